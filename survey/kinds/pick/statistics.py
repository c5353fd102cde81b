"""Pick one of k messages shown together: shares, pairwise tests and the position-bias test (ours).

Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid statistical test for
generative surveying", note that their sign-flip test applies to any paraphrase-level summary and name
joint presentation as future work; survey.kinds.choice.statistics is the case k = 2. Language models favour
positions (Brucks & Toubia (2025), "Prompt architecture induces methodological artifacts in large
language models"), so paraphrase set j (the j-th paraphrase of every message) is asked in k
arrangements, the rows of a cyclic Latin square on a random order of the messages drawn per set
(survey.study.design.latin_rows): every message takes every position once per set.

With M_jsa the share of valid replies choosing message a in arrangement s of set j, averaged over
personas (persona means first, as in forced choice):

* **Share of a**: S_ja = mean_s M_jsa, the mean over positions of the share choosing a when shown there
  (order-averaged); its interval inverts the sign-flip test of S_ja - c over the sets.
* **a vs b**: D_j = S_ja - S_jb, tested by sign flips over the sets. Under H0 (a and b's paraphrases
  exchangeable) swapping them within set j maps the set's data to that of the arrangements with a and b
  swapped; the message order is drawn at random per set, uniformly, so that swapped design is as likely
  as the one drawn, and D_j is symmetric about 0 whatever the position bias, the other messages and the
  share rho of the paraphrase variance all personas share. The exchanged units are paraphrase sets, not
  personas. Reported p-values are Holm-adjusted over the k(k-1)/2 pairs (``raw_pvalue`` unadjusted).
* **Position bias**: P_jt = mean_s M_js(message at t), the share choosing position t; the statistic is
  T = k * sum_t (mean_j P_jt - 1/k)^2. Under H0 (the arrangement does not matter) the k arrangements of a
  set are exchangeable, for all personas together: a set's share vectors M_js. stay, and which
  arrangement each was asked in is permuted, independently per set (p = (1 + count) / (1 + B)). The test
  exchanges arrangements within paraphrase sets, never personas; for k = 2 it is forced choice's sign-flip
  position test.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field

import numpy as np

from survey.common.display import Display
from survey.common.options import options_from
from survey.stats.comparison import persona_mean
from survey.stats.effect import EffectResult, effect_ci
from survey.stats.kinds.base import CompareOptions
from survey.stats.multiplicity import adjust_pvalues, holm_rows
from survey.stats.permutation import sign_flip_pvalues, sign_flip_test

POSITION_WARNING = 0.2  # a position chosen this much more (or less) often than 1/k: the model reads position
PAIR_NOTE = ("valid for any rho and any position bias: the message order is drawn at random per paraphrase set, so "
             "under H0 each set's difference of order-averaged shares is symmetric about 0; sets are exchanged, "
             "not personas")


# --- the statistics, vectorised over leading batch axes ---------------------------------------------------

def cell_shares(chosen, valid, weights=None) -> np.ndarray:
    """M (..., m, k, k): per (set, arrangement, message) the persona mean of the share choosing the message.

    ``chosen`` (..., n, m, k, k): replies (or exact-mode probability) choosing each message in persona i's
    arrangement s of set j, messages in a fixed order; ``valid`` (..., n, m, k): valid replies per cell.
    ``weights``: one per persona (a target population). NaN where no persona has a valid reply."""
    chosen, valid = np.asarray(chosen, dtype=float), np.asarray(valid, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(valid[..., None] > 0, chosen / valid[..., None], np.nan)
    moved = np.moveaxis(share, -4, -2)  # (..., m, k, n, k): personas next to the messages for persona_mean
    return np.round(persona_mean(moved, weights), 12)


def message_shares(M) -> np.ndarray:
    """S (..., m, k): each message's share per set, averaged over its k positions."""
    return np.asarray(M).mean(axis=-2)


def position_shares(M, at) -> np.ndarray:
    """P (..., m, k): per set the share choosing position t; ``at[..., j, s, t]`` is the message at t."""
    return np.take_along_axis(np.asarray(M), np.asarray(at), axis=-1).mean(axis=-2)


def position_statistic(P) -> np.ndarray:
    """T = k * sum_t (mean_j P_jt - 1/k)^2 per batch row: 0 without position bias."""
    P = np.asarray(P)
    k = P.shape[-1]
    return k * ((P.mean(axis=-2) - 1 / k) ** 2).sum(axis=-1)


def _random_arrangements(n_resamples: int, m: int, k: int, seed) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.permuted(np.tile(np.arange(k), (n_resamples, m, 1)), axis=-1)


def position_pvalues(M, at, n_resamples: int = 999, seed=None, chunk: int = 64) -> np.ndarray:
    """Permutation p-values of the position test for a batch: M (S, m, k, k), at (S, m, k, k).

    The same B permutations of each set's arrangements serve every row (they are independent of the
    data), as survey.stats.permutation.sign_flip_pvalues does with sign vectors."""
    M, at = np.asarray(M, dtype=float), np.asarray(at)
    if M.ndim == 3:
        M, at = M[None], at[None]
    S, m, k, _ = M.shape
    observed = position_statistic(position_shares(M, at))  # (S,)
    tol = 1e-9 * (1 + observed)
    perms = _random_arrangements(n_resamples, m, k, seed)  # (B, m, k)
    count = np.zeros(S)
    sets = np.arange(m)[:, None]
    for start in range(0, n_resamples, chunk):
        p = perms[start:start + chunk]  # (b, m, k): arrangement s is shown as arrangement p[s]
        moved = at[:, sets, p]  # (S, b, m, k, k): the message at t in the arrangement M[:, j, s] is moved to
        null = position_statistic(np.take_along_axis(M[:, None], moved, axis=-1).mean(axis=-2))
        count += (null >= (observed - tol)[:, None]).sum(axis=1)
    return (1 + count) / (1 + n_resamples)


def pair_pvalues(S, a: int, b: int, alternative: str = "two-sided", n_resamples: int = 999,
                 exact_max_m: int = 12, seed=None) -> np.ndarray:
    """Sign-flip p-values of message a vs b for a batch: S (batch, m, k) message shares per set."""
    D = np.atleast_3d(S)[..., a] - np.atleast_3d(S)[..., b]
    return sign_flip_pvalues(np.round(D, 12), alternative, n_resamples=n_resamples, exact_max_m=exact_max_m,
                             seed=seed)


def holm_pair_pvalues(S, a: int, b: int, alternative: str = "two-sided", n_resamples: int = 999,
                      exact_max_m: int = 12, seed=None) -> np.ndarray:
    """holm_pair's p-value of a vs b for a batch: S (batch, m, k) per-set shares or scores; every pair of the
    k columns is sign-flip tested (the others two-sided, one set of sign vectors for all) and Holm-adjusted
    per row."""
    S = np.asarray(S, dtype=float)
    key = (min(a, b), max(a, b))
    pairs = list(itertools.combinations(range(S.shape[-1]), 2))
    raw = np.stack([pair_pvalues(S, *((a, b) if pair == key else pair), alternative if pair == key else "two-sided",
                                 n_resamples, exact_max_m, seed) for pair in pairs], axis=-1)
    return holm_rows(raw)[:, pairs.index(key)]


# --- one comparison ------------------------------------------------------------------------------------------

@dataclass
class PairTest:
    """a vs b: the sign-flip test of the difference of order-averaged shares over paraphrase sets."""

    statistic: float  # mean_j D_j
    pvalue: float  # Holm-adjusted over the k(k-1)/2 pairs of the messages shown together
    raw_pvalue: float
    exact: bool
    method: str
    alternative: str
    n_sets: int

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "pvalue": self.pvalue, "raw_pvalue": self.raw_pvalue, "exact": self.exact,
                "method": self.method, "alternative": self.alternative, "n_sets": self.n_sets,
                "adjustment": "holm over every pair of the messages shown together"}


@dataclass
class PositionTest:
    """Chosen share by position against 1/k: the permutation test of the arrangements within sets."""

    statistic: float  # T = k * sum_t (share_t - 1/k)^2
    pvalue: float
    shares: list[float]  # share choosing position 1..k
    cis: list[tuple[float, float]]
    n_resamples: int
    n_sets: int
    exchanges: str = "the k arrangements within each paraphrase set (all personas together); never personas"

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "pvalue": self.pvalue, "shares": self.shares,
                "cis": [list(c) for c in self.cis], "n_resamples": self.n_resamples, "n_sets": self.n_sets,
                "exchanges": self.exchanges}


@dataclass(repr=False)
class PickResult(Display):
    """Pick one of k, message a vs b: ``.pair`` decides (Holm-adjusted); ``.shares`` gives every message's
    order-averaged share with its interval; ``.position`` says how far the model reads position."""

    a: str
    b: str
    messages: list[str]
    shares: dict  # message -> (share, (lo, hi))
    pair: PairTest
    effect: EffectResult
    position: PositionTest
    n_personas: int
    n_sets: int
    replicates: int
    invalid: int = 0
    sets_left_out: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    warning: str | None = None
    d_set: np.ndarray = field(default=None, repr=False)  # D_j per set used
    sets: list = field(default_factory=list)  # set labels of d_set's entries
    set_shares: np.ndarray = field(default=None, repr=False)  # S_ja (m, k): each message's share per set
    scale: str = "pick"
    model: str = ""
    sequential: object | None = None  # a stored sequential decision (analyze; never set for this kind)
    segments: object | None = None  # survey.stats.segments.SegmentAnalysis, when analyze was asked for whom
    warnings: list = field(default_factory=list)  # what makes the result doubtful, e.g. unequal invalid rates (analyze)
    unit = "share choosing A − share choosing B"

    @property
    def statistic(self) -> float:
        return self.pair.statistic

    @property
    def pvalue(self) -> float:
        return self.pair.pvalue

    @property
    def decision(self) -> PairTest:
        return self.pair

    @property
    def n_paired(self) -> int:
        return self.n_sets

    @property
    def d_perturbation(self) -> np.ndarray:
        """D_j per paraphrase set, under the name the across-message comparison reads."""
        return self.d_set

    @property
    def theta_bar(self) -> dict:
        """Message -> its order-averaged share per paraphrase set (the across-message comparison's means)."""
        return {msg: self.set_shares[:, i] for i, msg in enumerate(self.messages)}

    @property
    def n_perturbations(self) -> dict:
        """Paraphrase sets used and left out (each set is the j-th paraphrase of every message)."""
        return {"sets": self.n_sets, "sets_left_out": len(self.sets_left_out)}

    @property
    def tests(self) -> dict:
        return {"sign_flip": self.pair}

    def per_pair(self) -> dict:
        """Paraphrase set label -> its difference of order-averaged shares a − b."""
        return {lab: float(x) for lab, x in zip(self.sets, self.d_set, strict=True)}

    def display_parts(self):
        rows = [{"share of": msg, "share": s, "CI": tuple(ci)} for msg, (s, ci) in self.shares.items()]
        rows += [{"share of": f"position {t + 1}", "share": s, "CI": tuple(ci)}
                 for t, (s, ci) in enumerate(zip(self.position.shares, self.position.cis, strict=True))]
        title = (f"{self.model or 'pick one of k'}: {self.a} vs {self.b}, effect {self.effect.estimate:+.3f}; "
                 f"Holm p = {self.pair.pvalue:.4g}; position p = {self.position.pvalue:.4g}")
        notes = [f"{self.n_personas} personas, {self.n_sets} paraphrase sets in {len(self.messages)} arrangements, "
                 f"r = {self.replicates}"]
        return title, rows, notes + ([self.warning] if self.warning else [])

    def model_summary(self) -> dict:
        return {"shares": {m: s for m, (s, _) in self.shares.items()}, "position": self.position.to_dict(),
                "warning": self.warning}

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "messages": list(self.messages),
                "shares": {m: {"share": s, "ci": list(ci)} for m, (s, ci) in self.shares.items()},
                "pair": self.pair.to_dict(), "tests": {"sign_flip": self.pair.to_dict()}, "effect": self.effect.to_dict(), "position": self.position.to_dict(),
                "n_personas": self.n_personas, "n_sets": self.n_sets, "replicates": self.replicates,
                "invalid": self.invalid, "sets": list(self.sets), "sets_left_out": list(self.sets_left_out),
                "notes": list(self.notes), "warning": self.warning}


def _share_ci(values: np.ndarray, centre: float, confidence: float, n_resamples: int, seed):
    eff = effect_ci(values - centre, confidence=confidence, n_resamples=n_resamples, seed=seed,
                    bounds=(-centre, 1 - centre))
    return round(eff.estimate + centre, 12), (eff.ci[0] + centre, eff.ci[1] + centre)


def holm_pair(S, a: int, b: int, alternative: str = "two-sided", n_resamples: int = 9999, seed=0):
    """(PairTest, D_j) of columns a vs b of S (sets x messages): the sign-flip test of D_j = S_ja − S_jb over the
    sets, Holm-adjusted over every pair of columns (the other pairs tested two-sided)."""
    S = np.asarray(S, dtype=float)
    key = (min(a, b), max(a, b))
    raw = {}
    for x, y in itertools.combinations(range(S.shape[1]), 2):
        if (x, y) != key:
            raw[(x, y)] = sign_flip_test(np.round(S[:, x] - S[:, y], 12), "two-sided", n_resamples=n_resamples,
                                         seed=seed)
    d = np.round(S[:, a] - S[:, b], 12)
    raw[key] = test = sign_flip_test(d, alternative, n_resamples=n_resamples, seed=seed)
    holm = dict(zip(raw, adjust_pvalues([t.pvalue for t in raw.values()], "holm"), strict=True))
    return PairTest(test.statistic, float(holm[key]), test.pvalue, test.exact, test.method, alternative, len(d)), d


def pick_test(M, at, a: int, b: int, *, messages: list[str], sets: list | None = None, n_personas: int = 0,
              replicates: int = 0, options: CompareOptions | None = None, **keywords) -> PickResult:
    """The pick-one-of-k result for messages a vs b (indices into ``messages``) from M (m, k, k) and at (m, k, k)
    of the complete sets (survey.kinds.pick.table builds them from a long table). How it tests (``alternative``,
    ``alpha``, ``confidence``, ``flips`` resamples, ``seed``) is a CompareOptions, given as ``options`` or as its
    fields' keywords."""
    o = options_from(CompareOptions, options, keywords, where="pick_test")
    alternative, alpha, confidence, n_resamples, seed = o.alternative, o.alpha, o.confidence, o.flips, o.seed
    M, at = np.asarray(M, dtype=float), np.asarray(at)
    m, k = M.shape[0], len(messages)
    S = message_shares(M)
    pair, d = holm_pair(S, a, b, alternative, n_resamples, seed)
    eff = effect_ci(d, confidence=confidence, n_resamples=n_resamples, seed=seed, bounds=(-1.0, 1.0))
    effect = EffectResult(eff.estimate, eff.ci, confidence, eff.method, eff.exact,
                          direction="share choosing A - share choosing B")
    shares = {msg: _share_ci(S[:, i], 1 / k, confidence, n_resamples, seed) for i, msg in enumerate(messages)}
    P = position_shares(M, at)
    pos_ci = [_share_ci(P[:, t], 1 / k, confidence, n_resamples, seed) for t in range(k)]
    position = PositionTest(float(position_statistic(P)), float(position_pvalues(M, at, n_resamples, seed)[0]),
                            [s for s, _ in pos_ci], [ci for _, ci in pos_ci], n_resamples, m)
    return PickResult(a=messages[a], b=messages[b], messages=list(messages), shares=shares, pair=pair, effect=effect,
                      position=position, n_personas=n_personas, n_sets=m, replicates=replicates,
                      notes=[f"pairwise test: {PAIR_NOTE}"], warning=position_warning(position, alpha),
                      d_set=d, sets=list(range(m)) if sets is None else list(sets), set_shares=S)


def position_warning(position: PositionTest, alpha: float) -> str | None:
    """A sentence when the model picks by position: a position's share 0.2 away from 1/k, or a significant test."""
    k = len(position.shares)
    t = int(np.argmax(np.abs(np.asarray(position.shares) - 1 / k)))
    said = f"position {t + 1} was chosen in {position.shares[t]:.0%} of valid replies (1/k = {1 / k:.0%})"
    if abs(position.shares[t] - 1 / k) > POSITION_WARNING:
        return (f"position bias: {said}; the model reads position, not content. Averaging over the Latin square's "
                "positions keeps the message tests valid, but many replies carry no information about the messages")
    if position.pvalue <= alpha:
        return f"position bias: {said} (p = {position.pvalue:.3g}); averaging over positions cancels it in the shares"
    return None


def nan_sets(M) -> np.ndarray:
    """Sets with an arrangement that no persona answered validly: left out of every test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.isnan(np.asarray(M)).any(axis=(-1, -2))
