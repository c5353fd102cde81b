"""Best–worst scaling (MaxDiff): best-minus-worst scores per message and paraphrase set, pairwise sign-flip
tests over the sets (ours; the scores are the counting analysis of Louviere, Flynn & Marley (2015),
"Best-Worst Scaling: Theory, Methods and Applications", tested as Helm & Priebe (2026), "When prompt
perturbations break your A/B test", test paraphrase-level summaries).

Paraphrase set j is asked in the v blocks of a cyclic design on a random message order (survey.responses.
maxdiff): every message is in s blocks per set, once at each position. With b_ija and w_ija the replies of
persona i naming message a best and worst in set j, and n_ija the valid replies to blocks showing a:

* **Score**: S_ja = mean_i (b_ija − w_ija) / n_ija, in [−1, 1]; reported as mean_j S_ja with the interval
  that inverts the sign-flip test over the sets.
* **a vs b**: D_j = S_ja − S_jb, the sign-flip test over the sets. The message order is drawn per set, so
  under H0 (a's and b's paraphrases exchangeable) the design with a and b swapped is as likely as the one
  asked and D_j is symmetric about 0 whatever the position bias and rho: sets are exchanged, not personas.
  Reported p-values are Holm-adjusted over the v(v−1)/2 pairs (``raw_pvalue`` unadjusted).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.display import Display
from survey.data.pairing import natural_key
from survey.data.table import messages_in
from survey.errors import SurveyError, TableError
from survey.kinds.pick.statistics import PairTest, holm_pair
from survey.stats.comparison import persona_mean, persona_weights
from survey.stats.effect import EffectResult, effect_ci


def scores_from_counts(best, worst, valid, weights=None) -> np.ndarray:
    """S (..., m, v) from counts (..., n, m, v) per persona, set and message; NaN where no valid reply.
    ``weights``: one per persona (a target population, survey.stats.segments.weights): the mean over
    personas is then weighted, over the personas with a valid reply."""
    best, worst, valid = (np.asarray(x, dtype=float) for x in (best, worst, valid))
    with np.errstate(invalid="ignore", divide="ignore"):
        per_persona = np.where(valid > 0, (best - worst) / np.where(valid > 0, valid, 1), np.nan)
    # the mean over personas (axis -3), weighted when asked: persona_mean works over axis -2 of (n, cells)
    n, m, v = per_persona.shape[-3:]
    flat = per_persona.reshape(*per_persona.shape[:-3], n, m * v)
    return np.round(persona_mean(flat, weights).reshape(*per_persona.shape[:-3], m, v), 12)


@dataclass(repr=False)
class MaxDiffResult(Display):
    """Best–worst scaling, message a vs b: ``.pair`` decides (Holm-adjusted); ``.scores`` every message's
    best-minus-worst score with its interval; ``.best_by_position`` the share naming each position best."""

    a: str
    b: str
    messages: list[str]
    scores: dict  # message -> (score, (lo, hi))
    pair: PairTest
    effect: EffectResult
    best_by_position: list[float]
    n_personas: int
    n_sets: int
    replicates: int
    invalid: int = 0
    sets: list = field(default_factory=list)
    set_scores: np.ndarray = field(default=None, repr=False)
    notes: list = field(default_factory=list)
    warning: str | None = None
    scale: str = "maxdiff"
    model: str = ""
    sequential: object | None = None  # a stored sequential decision (analyze; never set for this kind)
    segments: object | None = None  # survey.stats.segments.SegmentAnalysis, when analyze was asked for whom
    warnings: list = field(default_factory=list)  # what makes the result doubtful, e.g. unequal invalid rates (analyze)
    unit = "score A − score B"

    statistic = property(lambda self: self.pair.statistic)
    pvalue = property(lambda self: self.pair.pvalue)
    decision = property(lambda self: self.pair)
    n_paired = property(lambda self: self.n_sets)
    tests = property(lambda self: {"sign_flip": self.pair})

    @property
    def d_perturbation(self) -> np.ndarray:
        i, j = self.messages.index(self.a), self.messages.index(self.b)
        return np.round(self.set_scores[:, i] - self.set_scores[:, j], 12)

    @property
    def theta_bar(self) -> dict:
        return {msg: self.set_scores[:, i] for i, msg in enumerate(self.messages)}

    @property
    def n_perturbations(self) -> dict:
        return {"sets": self.n_sets}

    def per_pair(self) -> dict:
        return {lab: float(x) for lab, x in zip(self.sets, self.d_perturbation, strict=True)}

    def model_summary(self) -> dict:
        """What best-worst scaling adds to a model's line across models: every message's score."""
        return {"scores": {m: s for m, (s, _) in self.scores.items()}}

    def display_parts(self):
        rows = [{"message": msg, "score": s, "CI": tuple(ci)} for msg, (s, ci) in self.scores.items()]
        title = (f"{self.model or 'best-worst'}: {self.a} vs {self.b}, effect {self.effect.estimate:+.3f}; "
                 f"Holm p = {self.pair.pvalue:.4g}")
        return title, rows, [f"{self.n_personas} personas, {self.n_sets} paraphrase sets, r = {self.replicates}"]

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "messages": list(self.messages),
                "scores": {m: {"score": s, "ci": list(ci)} for m, (s, ci) in self.scores.items()},
                "pair": self.pair.to_dict(), "tests": {"sign_flip": self.pair.to_dict()},
                "effect": self.effect.to_dict(), "best_by_position": list(self.best_by_position),
                "n_personas": self.n_personas, "n_sets": self.n_sets, "replicates": self.replicates,
                "invalid": self.invalid, "sets": list(self.sets), "notes": list(self.notes)}


def maxdiff_test(S, a: int, b: int, *, messages: list[str], alternative: str = "two-sided",
                 confidence: float = 0.95, n_resamples: int = 9999, seed=0) -> tuple:
    """(PairTest, effect, scores) of messages a vs b from S (m, v), Holm over every pair."""
    pair, d = holm_pair(S, a, b, alternative, n_resamples, seed)
    eff = effect_ci(d, confidence=confidence, n_resamples=n_resamples, seed=seed, bounds=(-2.0, 2.0))
    effect = EffectResult(eff.estimate, eff.ci, confidence, eff.method, eff.exact, direction="score A - score B")
    scores = {}
    for i, msg in enumerate(messages):
        e = effect_ci(S[:, i], confidence=confidence, n_resamples=n_resamples, seed=seed, bounds=(-1.0, 1.0))
        scores[msg] = (e.estimate, e.ci)
    return pair, effect, scores


def paraphrase_sets(perturbations: list[list[str]]) -> list[str]:
    """The paraphrase set of each row: paraphrases shown together belong to one set (a block design joins
    every message of a set), so a set is a connected group of paraphrase ids; labelled by its smallest id."""
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for ids in perturbations:
        for other in ids[1:]:
            a, b = root(ids[0]), root(other)
            if a != b:
                parent[max(a, b, key=natural_key)] = min(a, b, key=natural_key)
    return [root(ids[0]) for ids in perturbations]


def _pair_mass(sub: pd.DataFrame, s: int, probabilities: bool) -> list[np.ndarray | None]:
    """Per row an (s, s) array, [best - 1, worst - 1] the mass on that pair: one-hot of the answer, or exact
    mode's distribution renormalised over the valid pairs; None for an invalid row (no answer or no mass)."""
    out: list[np.ndarray | None] = []
    if probabilities:
        if "distribution" not in sub:
            raise TableError("exact mode needs the 'distribution' column (the probability of each (best, worst) "
                             "pair): collect with the local backend's mode = \"exact\"")
        for text in sub["distribution"]:
            dist = json.loads(text) if isinstance(text, str) and text else None
            mass = np.zeros((s, s))
            for code, p in (dist or {}).items():
                b, w = divmod(int(code), 10)
                if b != w and 1 <= b <= s and 1 <= w <= s:
                    mass[b - 1, w - 1] = float(p)
            out.append(mass / mass.sum() if mass.sum() > 0 else None)
        if all(m is None for m in out):
            raise TableError("no row carries exact mode's distribution over the (best, worst) pairs: collect with "
                             "the local backend's mode = \"exact\", or analyse the answers (drop --probabilities)")
        return out
    for code in pd.to_numeric(sub["answer"], errors="coerce").to_numpy(dtype=float):
        if np.isnan(code):
            out.append(None)
            continue
        mass = np.zeros((s, s))
        mass[int(code) // 10 - 1, int(code) % 10 - 1] = 1.0
        out.append(mass)
    return out


def compare_maxdiff(df: pd.DataFrame, model: str, a: str, b: str, *, alternative: str = "two-sided",
                    confidence: float | None = None, alpha: float = 0.05, n_resamples: int = 9999, seed=0,
                    weights=None, probabilities: bool = False) -> MaxDiffResult:
    """Best–worst scaling, message a vs b for one model of a long table (``shown``, ``shown_perturbations``,
    ``answer`` = 10 * best + worst position). ``weights``: persona id -> weight, for a target population.
    ``probabilities``: exact mode's ``distribution`` over the (best, worst) codes instead of the answer, so
    b_ija and w_ija are expected counts (P(best = a) and P(worst = a) summed over the pairs)."""
    if "shown" not in df or "shown_perturbations" not in df:
        raise TableError("a best-worst table needs the 'shown' and 'shown_perturbations' columns")
    sub = df[(df["model"] == model) & df["shown"].notna()]
    if sub.empty:
        raise TableError(f"no best-worst rows for model '{model}'")
    shown = [str(v).split("|") for v in sub["shown"]]
    order = {m: i for i, m in enumerate(messages_in(df, model))}
    messages = sorted({m for s in shown for m in s}, key=lambda m: order.get(m, len(order)))
    for msg in (a, b):
        if msg not in messages:
            raise TableError(f"model '{model}' was not shown '{msg}'; its rows show {', '.join(messages)}")
    if a == b:
        raise SurveyError("a and b must name two different messages")
    v, index = len(messages), {m: i for i, m in enumerate(messages)}
    number = paraphrase_sets([str(p).split("|") for p in sub["shown_perturbations"]])
    labels = sorted(set(number), key=natural_key)
    personas = list(pd.unique(sub["persona"].astype(str)))
    n, m = len(personas), len(labels)
    best, worst, valid = np.zeros((n, m, v)), np.zeros((n, m, v)), np.zeros((n, m, v))
    pair_mass = _pair_mass(sub, max(len(s) for s in shown), probabilities)
    i_of, j_of = {p: i for i, p in enumerate(personas)}, {lab: j for j, lab in enumerate(labels)}
    best_pos = np.zeros(max(len(s) for s in shown))
    invalid = 0
    for persona, num, s, mass in zip(sub["persona"].astype(str), number, shown, pair_mass, strict=True):
        i, j = i_of[persona], j_of[num]
        if mass is None:
            invalid += 1
            continue
        idx = np.array([index[msg] for msg in s])
        valid[i, j, idx] += 1
        at_best, at_worst = mass[: len(s), : len(s)].sum(axis=1), mass[: len(s), : len(s)].sum(axis=0)
        best[i, j, idx] += at_best
        worst[i, j, idx] += at_worst
        best_pos[: len(s)] += at_best
    S = scores_from_counts(best, worst, valid, persona_weights(weights, personas))
    keep = ~np.isnan(S).any(axis=1)
    if not keep.any():
        raise TableError(f"model '{model}': no paraphrase set has a valid reply for every message")
    S = S[keep]
    pair, effect, scores = maxdiff_test(S, index[a], index[b], messages=messages, alternative=alternative,
                                        confidence=1 - alpha if confidence is None else confidence,
                                        n_resamples=n_resamples, seed=seed)
    reps = int(sub.groupby(["persona", "shown", "shown_perturbations"]).size().max())
    return MaxDiffResult(a=a, b=b, messages=messages, scores=scores, pair=pair, effect=effect,
                         best_by_position=list(best_pos / max(best_pos.sum(), 1)), n_personas=n, n_sets=int(keep.sum()),
                         replicates=reps, invalid=invalid, sets=[lab for lab, k in zip(labels, keep, strict=True) if k],
                         set_scores=S, scale=f"maxdiff{len(best_pos)}", model=model)
