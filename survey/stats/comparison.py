"""Message A vs message B for one model: every test of Helm & Priebe (2026) from a long table, no I/O.

Pairing rule for the sign-flip test (survey.data.pairing): the pairs given, else paraphrase j of A
with paraphrase j of B in design order (a store's table) or in natural order of the ids ("b2" before
"b10"), never in the order rows appear, which one missing row would shift. When m_A != m_B the
surplus is left out of the paired test (and reported with the pairs); the unpaired test uses all.
A (persona, perturbation) cell with no valid answer has theta = NaN: it is left out of the
persona and perturbation means that need it, and counted in ``empty_cells``.

On a rating scale theta is the cell's mean score, so D-bar_j, the tests and the effect are in scale
points (the interval bounded by +-(high - low)); Helm & Priebe note that the sign-flip test needs only a
perturbation-level summary such as mean ratings. A scale of four or more points also gets the top-2-box
share (the two highest points) with its own sign-flip test on the same pairs (``Comparison.top_box``).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.display import Display
from survey.data.pairing import Pairing, pair_perturbations
from survey.data.scale_columns import table_scale
from survey.data.table import CellCounts, cell_counts, first_appearance
from survey.errors import SurveyError, TableError
from survey.responses import DEFAULT_SCALE, response_type
from survey.responses.view import AnalysisView
from survey.stats import ab_tests
from survey.stats.ab_tests import DECISION_TEST, ByTest, result_dict, run_tests, with_aliases
from survey.stats.effect import EffectResult, effect_ci
from survey.stats.permutation import sign_flip_test
from survey.stats.sequential_decision import StoredSequential


@dataclass
class TopBox:
    """Top-2-box: the share of valid answers on the scale's two highest points, A vs B, with the sign-flip
    test on the same perturbation pairs as the mean scores and its effect (A - B in shares) and interval.

    Read like a Comparison where it matters: ``tests["sign_flip"]``, ``effect``, ``theta_bar``, ``a``, ``b``."""

    a: str
    b: str
    points: list[int]  # the top-box scores
    shares: dict  # message -> mean over its perturbations of the per-perturbation share
    tests: ByTest  # "sign_flip" only: the paired test on the share differences
    effect: EffectResult  # A - B in shares, interval within [-1, 1]
    theta_bar: dict = field(repr=False)  # message -> per-perturbation shares, paired ones first
    d_perturbation: np.ndarray = field(repr=False)  # paired share differences

    @property
    def statistic(self) -> float:
        return float(self.tests[DECISION_TEST].statistic)

    @property
    def pvalue(self) -> float:
        return float(self.tests[DECISION_TEST].pvalue)

    @property
    def ci(self) -> tuple[float, float]:
        return self.effect.ci

    def to_dict(self) -> dict:
        test = self.tests[DECISION_TEST]
        return {"points": list(self.points), "shares": dict(self.shares), "statistic": self.statistic,
                "pvalue": self.pvalue, "exact": bool(test.exact), "method": test.method,
                "effect": self.effect.to_dict()}


@dataclass(repr=False)
class Comparison(Display):
    """Everything `survey analyze` reports for one model.

    ``tests`` holds each registered test's result (survey.stats.ab_tests); they are also attributes:
    ``c.sign_flip``, ``c.unpaired``, ``c.sign``, ``c.wilcoxon``, and ``c.permutation``, the
    deprecated name of ``c.sign_flip``.
    """

    model: str
    a: str
    b: str
    n_personas: int
    n_perturbations: dict
    n_paired: int
    replicates: int
    invalid: dict
    empty_cells: dict
    effect: EffectResult
    tests: ByTest  # test name -> result with .statistic, .pvalue
    d_perturbation: np.ndarray = field(repr=False)  # paired D-bar_j
    d_persona: np.ndarray = field(repr=False)  # D-hat_i
    theta_bar: dict = field(repr=False)  # message -> per-perturbation means, paired ones first
    pairing: Pairing | None = field(default=None, repr=False)  # which paraphrases d_perturbation pairs
    scale: str = DEFAULT_SCALE  # the response type compared, e.g. "binary", "likert5"
    unit: str = "P(Yes)"  # what theta, the effect and its interval are measured in
    top_box: TopBox | None = None  # rating scales of four or more points
    sequential: StoredSequential | None = None  # set when the data were collected sequentially: it decides
    mean_scores: dict | None = None  # rating scales: message -> mean score with its interval (mean_interval)
    # a balanced scale (asked in both directions): the direction effect and its test (survey.kinds.ordinal.direction)
    direction: object | None = None
    segments: object | None = None  # survey.stats.segments.SegmentAnalysis, when analyze was asked for whom
    warnings: list = field(default_factory=list)  # what makes the result doubtful, e.g. unequal invalid rates (analyze)

    @property
    def means(self) -> dict:
        """message -> mean over its perturbations of theta-bar_j (P(Yes), or the mean score)."""
        return {m: _mean(v) for m, v in self.theta_bar.items()}

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """(A id, B id) of each entry of d_perturbation."""
        return self.pairing.pairs if self.pairing else []

    @property
    def decision(self):
        """The deciding test: the sign-flip test over paraphrase pairs (valid for any rho), or on data
        collected sequentially the sequential test the study stopped by (survey.stats.sequential_decision)."""
        return self.sequential if self.sequential is not None else self.tests[DECISION_TEST]

    def display_parts(self):
        lo, hi = self.effect.ci
        rows = [{"test": name, "statistic": float(t.statistic), "p": float(t.pvalue),
                 "valid for any rho": ab_tests.get(name).valid_when_rho_positive} for name, t in self.tests.items()]
        title = (f"{self.model}: {self.a} vs {self.b}, effect {self.effect.estimate:+.4g} {self.unit} "
                 f"({self.effect.confidence:.0%} CI {lo:+.4g} to {hi:+.4g}); deciding p = {self.decision.pvalue:.4g}")
        notes = [f"{self.n_personas} personas, {self.n_paired} paraphrase pairs, r = {self.replicates}"]
        if self.sequential is not None:
            notes.append(self.sequential.to_dict()["note"])
        if self.direction is not None:
            notes.append(self.direction.display_parts()[0])
        return title, rows, notes + [f"WARNING: {w}" for w in self.warnings]

    @property
    def warning(self) -> str | None:
        """What a reader must see beside the result: a balanced scale's large direction effect."""
        return self.direction.warning if self.direction is not None else None

    def model_summary(self) -> dict:
        """What this kind adds to a model's line across models: nothing beyond the effect and tests."""
        return {}

    def per_pair(self) -> dict:
        """(A id, B id) -> that pair's difference D-bar_j, for the pairs with valid answers."""
        return {lab: float(d) for lab, d in zip(self.pairs, self.d_perturbation, strict=False) if not np.isnan(d)}

    def to_dict(self) -> dict:
        return {
            "model": self.model, "a": self.a, "b": self.b,
            "n_personas": self.n_personas, "n_perturbations": self.n_perturbations,
            "n_paired": self.n_paired, **(self.pairing.to_dict() if self.pairing else {}),
            "replicates": self.replicates,
            "invalid": self.invalid, "empty_cells": self.empty_cells,
            "scale": self.scale, "unit": self.unit, "means": self.means,
            "effect": self.effect.to_dict(),
            "tests": with_aliases({name: result_dict(res) for name, res in self.tests.items()}),
            "top_box": self.top_box.to_dict() if self.top_box else None,
            **({"mean_scores": self.mean_scores} if self.mean_scores is not None else {}),
            **({"direction": self.direction.to_dict()} if self.direction is not None else {}),
            **({"decided_by": "sequential", "sequential": self.sequential.to_dict()} if self.sequential else {}),
        }

    def __getattr__(self, name):
        tests = self.__dict__.get("tests")
        if tests is not None and name in tests:
            return tests[name]
        raise AttributeError(f"'Comparison' object has no attribute '{name}'")


def paired_differences(ca: CellCounts, cb: CellCounts, n_pairs: int | None = None,
                       weights: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(D-bar_j for the paired perturbations, D-hat_i per persona) from two aligned CellCounts.

    Column j of A is paired with column j of B for the first ``n_pairs`` columns (default: all that
    both have); order the columns by a Pairing first (survey.data.pairing). ``weights``: one per persona
    (row): D-bar_j is then the weighted mean over the personas with a valid difference.
    """
    ta, tb = ca.theta, cb.theta
    k = min(ta.shape[1], tb.shape[1]) if n_pairs is None else n_pairs
    diff = ta[:, :k] - tb[:, :k]
    d_pert = persona_mean(diff, weights)
    d_pers = nanmean(ta, axis=1) - nanmean(tb, axis=1)
    # theta-hats are fractions of r: differences that are equal in exact arithmetic must tie exactly,
    # or scipy's Wilcoxon takes its no-ties path (and zeros slip past the sign test) on rounding noise.
    return np.round(d_pert, 12), np.round(d_pers, 12)


def _mean(x: np.ndarray) -> float | None:
    x = np.asarray(x, dtype=float)
    x = x[~np.isnan(x)]
    return round(float(x.mean()), 12) if len(x) else None


def persona_mean(x: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Mean over personas (axis 0, or -2 of a batch) of the valid cells, weighted by ``weights`` (one per
    persona) when given: sum_i w_i x_ij / sum_i w_i over the personas with a valid x_ij; NaN where none is."""
    if weights is None:
        return nanmean(x, axis=-2)
    w = np.asarray(weights, dtype=float)[:, None]
    valid = ~np.isnan(x)
    total = (np.where(valid, x, 0.0) * w).sum(axis=-2)
    mass = (valid * w).sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mass > 0, total / np.where(mass > 0, mass, 1.0), np.nan)


def persona_weights(weights, personas: list[str]) -> np.ndarray | None:
    """One weight per persona of ``personas`` from a mapping persona id -> weight (None: unweighted)."""
    if weights is None:
        return None
    missing = [p for p in personas if str(p) not in weights]
    if missing:
        raise SurveyError(f"no weight for persona(s) {', '.join(map(str, missing[:5]))}; weights must cover "
                          "every persona of the comparison")
    return np.array([float(weights[str(p)]) for p in personas])


def nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    """Mean over valid cells; NaN (silently) where a row or column has none: that is the answer."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(x, axis=axis)


def compare_messages(df: pd.DataFrame, model: str, a: str, b: str, alternative: str = "two-sided",
                     n_resamples: int = 9999, seed=0, confidence: float = 0.95,
                     probabilities: bool = False, pairing=None, weights=None) -> Comparison:
    """Run every registered A/B test (survey.stats.ab_tests) and the effect interval for A vs B.

    Yes/No answers are compared as P(Yes), a rating scale's as mean scores (the effect in scale points,
    its interval within +-(high - low)), plus the top-2-box share on scales of four or more points.
    ``probabilities``: use the exact per-cell expected score (``expected``, or ``p_yes`` for Yes/No)
    instead of answer means; the top-2-box then comes from the ``distribution`` column (left out without it).
    ``pairing``: [(A id, B id), ...] for the paired tests; by default the design or natural order of
    the ids (survey.data.pairing). The result's ``pairs`` and ``to_dict()`` say which were formed.
    ``weights``: persona id -> weight (survey.stats.segments.weights): every paraphrase-level mean (D-bar_j,
    the messages' means, the top-2-box) is then the weighted mean over personas, and the sign-flip test and
    the effect's interval run on those weighted pair means (still exact: the weights are fixed by persona
    attributes, not answers). The per-persona sign and Wilcoxon tests stay unweighted.
    """
    sub = df[df["model"] == model]
    if sub.empty:
        raise TableError(f"no rows for model '{model}'")
    rows = sub[sub["message"].isin([a, b])]
    info = response_type(table_scale(rows, f"model '{model}', messages '{a}' and '{b}',")).view
    if not info.points:
        raise SurveyError(f"scale '{info.scale}' has no scores to compare (free text); compare the texts with "
                          "`survey dbpa` instead")
    if not info.per_message:
        raise SurveyError("a forced-choice table compares A and B within each reply: use "
                          "survey.kinds.choice.table.compare_choice (survey.analyze does it for a choice table)")
    personas = first_appearance(rows["persona"])
    pairs = pair_perturbations(sub, model, a, b, pairing)
    ca = cell_counts(sub, model, a, personas, probabilities, pairs.order_a)
    cb = cell_counts(sub, model, b, personas, probabilities, pairs.order_b)
    w = persona_weights(weights, personas)
    d_pert, d_pers = paired_differences(ca, cb, len(pairs.pairs), w)
    d_valid = d_pert[~np.isnan(d_pert)]
    if len(d_valid) == 0:
        raise TableError(f"model '{model}': no perturbation pair of '{a}' and '{b}' has valid answers")
    bar_a, bar_b = persona_mean(ca.theta, w), persona_mean(cb.theta, w)
    samples = {"pairs": (d_valid,), "personas": (d_pers,), "means": (bar_a, bar_b)}
    top = None
    if info.top_box:
        top = top_box_comparison(sub, model, a, b, personas, pairs, info,
                                 Resampling(alternative, n_resamples, seed, confidence), probabilities, w)
    return Comparison(
        model=model, a=a, b=b, n_personas=len(personas),
        n_perturbations={a: len(ca.perturbations), b: len(cb.perturbations)},
        n_paired=int(len(d_valid)), replicates=max(ca.replicates, cb.replicates),
        invalid={a: ca.n_invalid, b: cb.n_invalid, "total": ca.n_invalid + cb.n_invalid},
        empty_cells={a: len(ca.empty_cells), b: len(cb.empty_cells)},
        effect=effect_ci(d_valid, confidence=confidence, n_resamples=n_resamples, seed=seed, bounds=info.bounds),
        tests=run_tests(samples, alternative, n_resamples, seed),
        d_perturbation=d_pert, d_persona=d_pers, theta_bar={a: bar_a, b: bar_b}, pairing=pairs,
        scale=info.scale, unit=info.unit, top_box=top,
        mean_scores=({m: mean_interval(bar, confidence, info.low, info.high) for m, bar in ((a, bar_a), (b, bar_b))}
                     if info.ordered else None),
    )


@dataclass(frozen=True)
class Resampling:
    """How a comparison's sign-flip test and effect interval resample, passed on as one: the ``alternative``,
    ``n_resamples`` flips or bootstrap draws, their ``seed`` and the interval's ``confidence``."""

    alternative: str = "two-sided"
    n_resamples: int = 9999
    seed: object = 0
    confidence: float = 0.95


def top_box_comparison(sub: pd.DataFrame, model: str, a: str, b: str, personas: list[str], pairs: Pairing,
                       info: AnalysisView, resampling: Resampling = Resampling(), probabilities: bool = False,
                       weights: np.ndarray | None = None) -> TopBox | None:
    """The top-2-box share of A and B per cell, its paired sign-flip test and effect interval (in shares).

    In exact mode the share is the probability of the top points in the ``distribution`` column; a table
    without it has no exact top-2-box (None)."""
    points = info.top_box
    if probabilities:
        sub = _exact_top_box(sub, points)
        if sub is None:
            return None
        ca = cell_counts(sub, model, a, personas, True, pairs.order_a)
        cb = cell_counts(sub, model, b, personas, True, pairs.order_b)
    else:
        def in_top(answers: pd.Series) -> pd.Series:
            return answers.isin(sorted(points))

        ca = cell_counts(sub, model, a, personas, perturbations=pairs.order_a, value=in_top)
        cb = cell_counts(sub, model, b, personas, perturbations=pairs.order_b, value=in_top)
    d_pert, _ = paired_differences(ca, cb, len(pairs.pairs), weights)
    d = d_pert[~np.isnan(d_pert)]
    if len(d) == 0:
        return None
    bar_a, bar_b = persona_mean(ca.theta, weights), persona_mean(cb.theta, weights)
    flips = resampling.n_resamples
    return TopBox(a=a, b=b, points=sorted(points), shares={a: _mean(bar_a), b: _mean(bar_b)},
                  tests=ByTest({DECISION_TEST: sign_flip_test(d, resampling.alternative, n_resamples=flips,
                                                              seed=resampling.seed)}),
                  effect=effect_ci(d, confidence=resampling.confidence, n_resamples=flips, seed=resampling.seed,
                                   bounds=(-1.0, 1.0)),
                  theta_bar={a: bar_a, b: bar_b}, d_perturbation=d_pert)


def _exact_top_box(sub: pd.DataFrame, points) -> pd.DataFrame | None:
    """``sub`` with ``expected`` replaced by each row's exact probability of the top points (from the JSON
    ``distribution`` column, renormalised over the scale's points); None when no row has a distribution."""
    if "distribution" not in sub.columns or not sub["distribution"].notna().any():
        return None
    keys = {str(p) for p in points}

    def share(text) -> float:
        try:
            dist = json.loads(text) if isinstance(text, str) and text else {}
        except ValueError:  # an unreadable distribution: the row has no exact share, like an empty one
            dist = {}
        if not isinstance(dist, dict) or not dist:
            return np.nan
        total = sum(float(v) for v in dist.values())
        return sum(float(v) for k, v in dist.items() if str(k) in keys) / total if total > 0 else np.nan

    return sub.assign(expected=sub["distribution"].map(share), p_yes=np.nan)


MEAN_COVERS = ("the mean score of these personas over new paraphrases of the message (the paraphrase is the unit, "
               "as in the sign-flip test); it is conditional on the sampled personas and does not cover the mean "
               "of a persona population they were drawn from")


def mean_interval(values, confidence: float, low: float, high: float) -> dict:
    """A message's mean score with a t interval over its paraphrase means (Student's t), clipped to the scale.

    What it covers: ``MEAN_COVERS``. Measured at n = 20 personas it covered the sampled personas' mean
    (.948) but the population mean only .90-.91, so it is stated as an interval for these personas."""
    from scipy import stats as sps

    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    if len(v) == 0:
        return {"mean": None, "ci": [None, None], "method": "t interval over paraphrase means", "covers": MEAN_COVERS}
    mean = float(v.mean())
    if len(v) < 2:
        lo, hi = float(low), float(high)
    else:
        half = float(sps.t.ppf((1 + confidence) / 2, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v)))
        lo, hi = max(float(low), mean - half), min(float(high), mean + half)
    return {"mean": mean, "ci": [lo, hi], "confidence": confidence, "method": "t interval over paraphrase means",
            "covers": MEAN_COVERS}
