"""How far are the personas from the people? Fidelity of answer levels, of effects, and of dispersion.

Levels (one message): the human answer distribution h and the personas' p over the scale's K points, compared by
the Jensen-Shannon divergence (base 2, in [0, 1]; Lin, "Divergence measures based on the Shannon entropy", IEEE
Trans. Information Theory 1991) and, on ordered scales, the Wasserstein-1 distance between the two distributions
on the points 0, 1/(K-1), ..., 1: sum_k |H_k - P_k| / (K - 1) over the cumulative shares H, P. These are the
distribution-match scores of the synthetic-respondent benchmarks (SynthBench, popfidelity). A distance alone
means little: both samples are finite, so even a perfect model scores above 0. ``level_fidelity`` therefore
reports, beside each distance and its bootstrap interval, the **human noise floor** (the same distance between
two random halves of the humans, averaged over splits: what sampling alone gives, at half the humans) and
baselines (the uniform distribution, and the humans' distribution over all messages when given): a model is
informative when it beats the baselines. The floor is not a bound a model cannot beat: to first order the JSD
of two samples grows with 1/n_1 + 1/n_2, so a model answering exactly like the population, with as many answers
as there are humans, scores about half the floor in JSD (1/sqrt(2) of it in Wasserstein).

Effects: the human effect Delta_H with its interval beside the persona effect T with its (sign-flip) interval;
their difference Delta_H - T gets a normal-approximation interval from two independent sources, the persona
side's s.e. read off its interval as (upper - lower) / (2 z) (an approximation, said in the result). Over a
benchmark of experiments: how often the signs agree (Wilson interval), Pearson's correlation (Fisher-z
interval) and the calibration slope of the human on the persona effects (least squares, t interval). Hewitt,
Ashokkumar, Ghezae & Willer, "Predicting Results of Social Science Experiments Using Large Language Models"
(2024) find effects tracked far better than levels; this is the measurement that tells for a given model.

Dispersion: the personas' between-persona variance over the humans' between-respondent variance; models are
known to be too uniform (Toubia et al., "Twin-2K-500: A dataset for building digital twins of over 2,000
people", 2025), which shows as a ratio below 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from survey.common.display import Display
from survey.common.formatting import finite
from survey.errors import SurveyError

FLOOR_SPLITS = 200  # random halvings of the humans averaged into the noise floor
FLOOR_BY_COUNTS = 20_000  # humans above which a halving is drawn from the answer counts (same law, less memory)


def _shares(x) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if (x < 0).any() or not np.isfinite(x).all():
        raise SurveyError("a distribution needs non-negative finite counts or shares over the scale's points")
    total = x.sum(axis=-1, keepdims=True)
    if (total <= 0).any():
        raise SurveyError("a distribution needs at least one answer (its counts sum to 0)")
    return x / total


def jsd(h, p) -> np.ndarray | float:
    """Jensen-Shannon divergence (base 2, in [0, 1]) between count or share vectors over the same points.

    Equals scipy.spatial.distance.jensenshannon(h, p, base=2) ** 2. Works row-wise on (..., K) arrays.
    """
    h, p = _shares(h), _shares(p)
    m = (h + p) / 2

    def kl(a):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(a > 0, a * np.log2(a / m), 0.0).sum(axis=-1)

    out = np.clip((kl(h) + kl(p)) / 2, 0.0, 1.0)
    return float(out) if out.ndim == 0 else out


def wasserstein_ordinal(h, p) -> np.ndarray | float:
    """Wasserstein-1 distance between two distributions over K ordered points placed at 0, 1/(K-1), ..., 1:
    sum_k |H_k - P_k| / (K - 1) over the cumulative shares, in [0, 1]. Row-wise on (..., K) arrays.

    Equals scipy.stats.wasserstein_distance on those points with the shares as weights.
    """
    h, p = _shares(h), _shares(p)
    k = h.shape[-1]
    if k < 2:
        raise SurveyError("a Wasserstein distance on a scale needs at least two points")
    out = np.abs(np.cumsum(h - p, axis=-1)[..., :-1]).sum(axis=-1) / (k - 1)
    return float(out) if out.ndim == 0 else out


DISTANCES = {"jsd": jsd, "wasserstein": wasserstein_ordinal}


@dataclass(repr=False)
class LevelFidelity(Display):
    """Human and persona answer distributions side by side, with distances, intervals, floor and baselines."""

    points: list
    human: list  # shares over the points
    persona: list
    n_humans: int
    n_persona_units: int  # persona answers (or answer distributions) pooled
    n_persona_groups: int  # the units the bootstrap resamples (persona x paraphrase groups)
    distances: dict  # name -> {"value", "ci", "noise_floor", "baselines": {name: value}}
    confidence: float
    n_boot: int
    ordered: bool

    @property
    def jsd(self) -> float:
        return self.distances["jsd"]["value"]

    @property
    def wasserstein(self) -> float | None:
        return self.distances["wasserstein"]["value"] if "wasserstein" in self.distances else None

    @property
    def note(self) -> str:
        return (f"bootstrap {self.confidence:.0%} intervals ({self.n_boot} resamples of the {self.n_humans} humans "
                f"and of {self.n_persona_groups} persona groups); the noise floor is the distance between two "
                f"random halves of the humans (averaged over {FLOOR_SPLITS} splits), sampling noise at half the "
                f"sample: a model that answers exactly like these people's population scores about half of it in "
                f"JSD (about 0.7 of it in Wasserstein) when it gives as many answers as there are humans, so "
                f"reaching the floor is not matching people")

    def display_parts(self):
        rows = [{"distance": name, "value": d["value"], "ci": tuple(d["ci"]), "noise floor": d["noise_floor"],
                 **{f"vs {b}": v for b, v in d["baselines"].items()}} for name, d in self.distances.items()]
        title = f"answer distributions: {self.n_humans} humans vs {self.n_persona_units} persona answers"
        return title, rows, [self.note]

    def to_dict(self) -> dict:
        return {"points": list(self.points), "human": self.human, "persona": self.persona,
                "n_humans": self.n_humans, "n_persona_units": self.n_persona_units,
                "n_persona_groups": self.n_persona_groups, "confidence": self.confidence, "n_boot": self.n_boot,
                "ordered": self.ordered,
                "distances": {k: {"value": finite(d["value"]), "ci": [finite(x) for x in d["ci"]],
                                  "noise_floor": finite(d["noise_floor"]),
                                  "baselines": {b: finite(v) for b, v in d["baselines"].items()}}
                              for k, d in self.distances.items()},
                "note": self.note}


def _rows(answers, points, who: str) -> np.ndarray:
    """(units, K) rows: one-hot for answers on the points, or given answer distributions (rows of shares)."""
    a = np.asarray(answers)
    if a.ndim == 2:
        if a.shape[1] != len(points):
            raise SurveyError(f"the {who} answer distributions need one column per scale point ({len(points)}); "
                              f"got {a.shape[1]}")
        return _shares(a)
    if a.ndim != 1 or len(a) == 0:
        raise SurveyError(f"the {who} answers must be a non-empty list of answers on the scale's points")
    index = {p: i for i, p in enumerate(points)}
    missing = sorted({str(x) for x in a.tolist() if x not in index})
    if missing:
        raise SurveyError(f"{len(missing)} {who} answer(s) are not points of the scale {list(points)}: "
                          f"{', '.join(missing[:5])}; drop invalid answers before comparing")
    rows = np.zeros((len(a), len(points)))
    rows[np.arange(len(a)), [index[x] for x in a.tolist()]] = 1.0
    return rows


def level_fidelity(human_answers, persona_answers, points, *, persona_groups=None, ordered: bool = True,
                   human_overall=None, confidence: float = 0.95, n_boot: int = 2000, seed=0) -> LevelFidelity:
    """Fidelity of one message's answer levels: JSD and (``ordered``) Wasserstein between humans and personas.

    ``human_answers``: one answer per human, each a point of ``points`` (the scale in order). ``persona_answers``:
    one answer per persona unit, or an (units, K) array of answer distributions (e.g. a persona's exact
    probabilities). ``persona_groups``: a label per persona unit (e.g. persona x paraphrase); the bootstrap
    resamples groups, so answers that share a group move together (default: every unit its own group).
    ``human_overall``: the humans' answer counts over all messages, a further baseline.
    """
    if not 0 < confidence < 1:
        raise SurveyError(f"confidence must be between 0 and 1; got {confidence}")
    if int(n_boot) != n_boot or n_boot < 1:
        raise SurveyError(f"n_boot is a number of bootstrap resamples (e.g. 2000); got {n_boot}")
    points = list(points)
    if len(points) < 2:
        raise SurveyError("a scale needs at least two points")
    hum, per = _rows(human_answers, points, "human"), _rows(persona_answers, points, "persona")
    if len(hum) < 2:
        raise SurveyError("a noise floor needs at least two human answers")
    groups = np.arange(len(per)) if persona_groups is None else np.asarray(persona_groups)
    if len(groups) != len(per):
        raise SurveyError(f"persona_groups needs one label per persona answer ({len(per)}); got {len(groups)}")
    _, gid = np.unique(groups, return_inverse=True)
    group_sums = np.zeros((gid.max() + 1, len(points)))
    np.add.at(group_sums, gid, per)
    h_counts, p_counts = hum.sum(axis=0), per.sum(axis=0)

    rng = np.random.default_rng(seed)
    h_boot = rng.multinomial(len(hum), h_counts / len(hum), size=n_boot)  # resampling humans = multinomial
    # resampling G groups with replacement = multinomial counts over the distinct group rows (few when the
    # groups are single answers: one per point), which keeps the bootstrap O(n_boot x distinct rows)
    distinct, times = np.unique(group_sums, axis=0, return_counts=True)
    p_boot = rng.multinomial(len(group_sums), times / len(group_sums), size=n_boot) @ distinct
    if len(hum) > FLOOR_BY_COUNTS and np.asarray(human_answers).ndim == 1:
        # the answers of a random half are a multivariate hypergeometric draw from the counts: the same split
        # without a (splits x humans) array, which at a million humans would take gigabytes
        first = rng.multivariate_hypergeometric(h_counts.astype(np.int64), len(hum) // 2,
                                                size=FLOOR_SPLITS).astype(float)
    else:
        halves = np.argsort(rng.random((FLOOR_SPLITS, len(hum))), axis=1) < len(hum) // 2
        first = halves.astype(float) @ hum
    second = h_counts - first

    baselines = {"uniform": np.ones(len(points))}
    if human_overall is not None:
        overall = np.asarray(human_overall, dtype=float)
        if overall.shape != (len(points),):
            raise SurveyError(f"human_overall needs one count per scale point ({len(points)})")
        baselines["humans over all messages"] = overall
    tail = (1 - confidence) / 2
    distances = {}
    for name in ("jsd", "wasserstein") if ordered else ("jsd",):
        dist = DISTANCES[name]
        boot = dist(h_boot, p_boot)
        distances[name] = {"value": dist(h_counts, p_counts),
                           "ci": [float(np.quantile(boot, tail)), float(np.quantile(boot, 1 - tail))],
                           "noise_floor": float(np.mean(dist(first, second))),
                           "baselines": {b: dist(h_counts, v) for b, v in baselines.items()}}
    return LevelFidelity(points, (h_counts / h_counts.sum()).tolist(), (p_counts / p_counts.sum()).tolist(),
                         len(hum), len(per), len(group_sums), distances, confidence, n_boot, ordered)


def se_from_ci(ci, confidence: float) -> float:
    """The s.e. a normal interval of this width would have: (upper - lower) / (2 z_{1 - alpha/2})."""
    lo, hi = (float(x) for x in ci)
    if not hi >= lo:
        raise SurveyError(f"an interval needs lower <= upper; got ({lo}, {hi})")
    return (hi - lo) / (2 * sps.norm.ppf(0.5 + confidence / 2))
