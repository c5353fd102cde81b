"""Ranking the k messages shown together: mean rank and Borda score per message, pairwise tests and the
position-bias test (ours; the design and tests are pick one of k's, survey.kinds.pick.statistics).

Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid statistical test for generative
surveying", note that their sign-flip test applies to any paraphrase-level summary; here it is a message's
Borda score. Paraphrase set j (the j-th paraphrase of every message) is asked in k arrangements, the rows of a
cyclic Latin square on a random message order per set (survey.study.design.latin_rows).

A reply ranks the k messages; message a at rank r_a (1 = best) earns the Borda score k − r_a (k − 1 for the
best, 0 for the last; Borda (1781), "Mémoire sur les élections au scrutin"). With M_jsa the Borda score of a in
arrangement s of set j, averaged over replicates and then over personas (persona means first, as in pick one
of k; weighted when a target population is given):

* **Borda score of a**: B_ja = mean_s M_jsa, order-averaged; reported as mean_j B_ja, in [0, k − 1], with the
  interval that inverts the sign-flip test of B_ja − (k − 1)/2 over the sets. **Mean rank** = k − Borda score
  (1 = always first), its interval the Borda interval's mirror.
* **a vs b**: D_j = B_ja − B_jb (= mean rank of b − mean rank of a), sign flips over the sets. Under H0 (a's and
  b's paraphrases exchangeable) swapping them within set j maps the set's data to that of the arrangements with a
  and b swapped, which the random message order per set makes as likely: D_j is symmetric about 0 whatever the
  position bias and the share rho of the paraphrase variance all personas share. Reported p-values are
  Holm-adjusted over the k(k−1)/2 pairs (``raw_pvalue`` unadjusted; ``pairs`` holds every pair).
* **Position bias**: R_jt, the mean rank given to the message at position t; the statistic is
  T = sum_t (mean_j R_jt − (k + 1)/2)^2, 0 without position bias, tested by permuting which arrangement each
  set's replies were asked in (pick one of k's position test on the Borda shares B/(k(k−1)/2), of which T is a
  fixed multiple: the same p-value).
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field

import numpy as np

from survey.common.display import Display
from survey.common.options import options_from
from survey.kinds.pick.statistics import PairTest, message_shares, position_pvalues, position_shares
from survey.stats.effect import EffectResult, effect_ci
from survey.stats.kinds.base import CompareOptions
from survey.stats.multiplicity import adjust_pvalues
from survey.stats.permutation import sign_flip_test, smallest_pvalue

PAIR_NOTE = ("valid for any rho and any position bias: the message order is drawn at random per paraphrase set, so "
             "under H0 each set's difference of order-averaged Borda scores is symmetric about 0; sets are "
             "exchanged, not personas")


def borda_total(k: int) -> float:
    """The Borda points one ranking of k hands out: (k − 1) + ... + 0."""
    return k * (k - 1) / 2


def borda_by_position(codes, k: int) -> np.ndarray:
    """(rows, k): each position's Borda score k − rank in each ranking; ``codes`` are answer codes (213: position
    2 first), NaN rows for missing codes."""
    out = np.full((len(codes), k), np.nan)
    for row, code in enumerate(codes):
        if code is None or not np.isfinite(code):
            continue
        digits = [int(c) for c in str(int(code))]
        if sorted(digits) != list(range(1, k + 1)):
            continue
        for rank, position in enumerate(digits, start=1):
            out[row, position - 1] = k - rank
    return out


def pair_table(B, alternative: str = "two-sided", key: tuple[int, int] | None = None, n_resamples: int = 9999,
               seed=0) -> dict:
    """(x, y) -> (raw test, Holm p) for every pair x < y of columns of B (sets x messages), Holm over all pairs; the
    pair ``key`` = (a, b) is tested as a − b with ``alternative``, the others two-sided."""
    B = np.asarray(B, dtype=float)
    raw = {}
    for x, y in itertools.combinations(range(B.shape[1]), 2):
        keyed = key is not None and (x, y) == (min(key), max(key))
        u, v = key if keyed else (x, y)
        raw[(x, y)] = sign_flip_test(np.round(B[:, u] - B[:, v], 12), alternative if keyed else "two-sided",
                                     n_resamples=n_resamples, seed=seed)
    holm = adjust_pvalues([t.pvalue for t in raw.values()], "holm")
    return {pair: (test, float(p)) for (pair, test), p in zip(raw.items(), holm, strict=True)}


@dataclass
class RankPositionTest:
    """Mean rank by position against (k + 1)/2: the permutation test of the arrangements within sets."""

    statistic: float  # T = sum_t (mean rank at t − (k + 1)/2)^2
    pvalue: float
    mean_ranks: list[float]  # mean rank given to the message at position 1..k
    cis: list[tuple[float, float]]
    n_resamples: int
    n_sets: int
    exchanges: str = "the k arrangements within each paraphrase set (all personas together); never personas"

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "pvalue": self.pvalue, "mean_ranks": self.mean_ranks,
                "cis": [list(c) for c in self.cis], "n_resamples": self.n_resamples, "n_sets": self.n_sets,
                "exchanges": self.exchanges}


@dataclass(repr=False)
class RankResult(Display):
    """A ranking of k messages, message a vs b: ``.pair`` decides (Holm-adjusted over every pair); ``.borda`` and
    ``.mean_rank`` give every message's order-averaged score with its interval; ``.pairs`` every pair's test;
    ``.position`` how far the model ranks by position."""

    a: str
    b: str
    messages: list[str]
    borda: dict  # message -> (Borda score, (lo, hi))
    mean_rank: dict  # message -> (mean rank, (lo, hi))
    pair: PairTest
    pairs: list  # every pair: {"a", "b", "difference", "raw_pvalue", "pvalue"}
    effect: EffectResult
    position: RankPositionTest
    n_personas: int
    n_sets: int
    replicates: int
    invalid: int = 0
    sets_left_out: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    warning: str | None = None
    d_set: np.ndarray = field(default=None, repr=False)
    sets: list = field(default_factory=list)
    set_scores: np.ndarray = field(default=None, repr=False)  # B_ja (m, k): each message's Borda score per set
    scale: str = "rank"
    model: str = ""
    sequential: object | None = None  # a stored sequential decision (analyze; never set for this kind)
    segments: object | None = None  # survey.stats.segments.SegmentAnalysis, when analyze was asked for whom
    warnings: list = field(default_factory=list)  # what makes the result doubtful, e.g. unequal invalid rates (analyze)
    unit = "Borda score A − Borda score B"

    statistic = property(lambda self: self.pair.statistic)
    pvalue = property(lambda self: self.pair.pvalue)
    decision = property(lambda self: self.pair)
    n_paired = property(lambda self: self.n_sets)
    tests = property(lambda self: {"sign_flip": self.pair})
    d_perturbation = property(lambda self: self.d_set)

    @property
    def theta_bar(self) -> dict:
        """Message -> its order-averaged Borda score per paraphrase set (the across-message comparison's means)."""
        return {msg: self.set_scores[:, i] for i, msg in enumerate(self.messages)}

    @property
    def n_perturbations(self) -> dict:
        return {"sets": self.n_sets, "sets_left_out": len(self.sets_left_out)}

    def per_pair(self) -> dict:
        """Paraphrase set label -> its difference of Borda scores a − b."""
        return {lab: float(x) for lab, x in zip(self.sets, self.d_set, strict=True)}

    def display_parts(self):
        rows = [{"message": msg, "mean rank": self.mean_rank[msg][0], "Borda score": s, "CI": tuple(ci)}
                for msg, (s, ci) in self.borda.items()]
        title = (f"{self.model or 'ranking'}: {self.a} vs {self.b}, effect {self.effect.estimate:+.3f} Borda points; "
                 f"Holm p = {self.pair.pvalue:.4g}; position p = {self.position.pvalue:.4g}")
        notes = [f"{self.n_personas} personas, {self.n_sets} paraphrase sets in {len(self.messages)} arrangements, "
                 f"r = {self.replicates}"]
        return title, rows, notes + ([self.warning] if self.warning else [])

    def in_message_order(self, order) -> RankResult:
        """The same result with its messages, scores and pairs listed in ``order`` (the study file's; a message it
        does not list keeps its place after them), each pair read in that order except the decided one, which stays
        a vs b: the table's own order is the first-shown message's, which the random message order per set makes a
        random one. Only the listing changes (a pair read the other way round has its difference negated; every
        other pair is tested two-sided)."""
        rank = {m: i for i, m in enumerate(order)}

        def key(m):
            return rank.get(m, len(rank))

        messages = sorted(self.messages, key=key)
        pairs = []
        for p in self.pairs:
            x, y = p["a"], p["b"]
            keyed = {x, y} == {self.a, self.b}
            first, second = (self.a, self.b) if keyed else tuple(sorted((x, y), key=key))
            pairs.append({**p, "a": first, "b": second} if first == x else
                         {**p, "a": first, "b": second, "difference": -p["difference"]})
        pairs.sort(key=lambda p: sorted((key(p["a"]), key(p["b"]))))
        columns = [self.messages.index(m) for m in messages]
        scores = None if self.set_scores is None else self.set_scores[:, columns]
        return dataclasses.replace(self, messages=messages, borda={m: self.borda[m] for m in messages},
                                   mean_rank={m: self.mean_rank[m] for m in messages}, pairs=pairs,
                                   set_scores=scores)

    def model_summary(self) -> dict:
        return {"borda": {m: s for m, (s, _) in self.borda.items()},
                "mean_rank": {m: s for m, (s, _) in self.mean_rank.items()}, "position": self.position.to_dict(),
                "warning": self.warning}

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "messages": list(self.messages),
                "borda": {m: {"score": s, "ci": list(ci)} for m, (s, ci) in self.borda.items()},
                "mean_rank": {m: {"rank": s, "ci": list(ci)} for m, (s, ci) in self.mean_rank.items()},
                "pair": self.pair.to_dict(), "pairs": [dict(p) for p in self.pairs],
                "tests": {"sign_flip": self.pair.to_dict()}, "effect": self.effect.to_dict(),
                "position": self.position.to_dict(), "n_personas": self.n_personas, "n_sets": self.n_sets,
                "replicates": self.replicates, "invalid": self.invalid, "sets": list(self.sets),
                "sets_left_out": list(self.sets_left_out), "notes": list(self.notes), "warning": self.warning}


def _centred_ci(values, centre: float, half: float, confidence: float, n_resamples: int, seed):
    eff = effect_ci(np.asarray(values) - centre, confidence=confidence, n_resamples=n_resamples, seed=seed,
                    bounds=(-half, half))
    return round(eff.estimate + centre, 12), (eff.ci[0] + centre, eff.ci[1] + centre)


def rank_test(M, at, a: int, b: int, *, messages: list[str], sets: list | None = None, n_personas: int = 0,
              replicates: int = 0, options: CompareOptions | None = None, **keywords) -> RankResult:
    """The ranking result for messages a vs b (indices into ``messages``) from M (m, k, k), each message's Borda
    share (Borda score / (k(k − 1)/2)) per set and arrangement, and at (m, k, k) the message at each position
    (survey.kinds.rank.table builds them). How it tests is a CompareOptions, or its fields' keywords."""
    o = options_from(CompareOptions, options, keywords, where="rank_test")
    M, at = np.asarray(M, dtype=float), np.asarray(at)
    m, k = M.shape[0], len(messages)
    total, centre, half = borda_total(k), (k - 1) / 2, (k - 1) / 2
    B = np.round(message_shares(M) * total, 12)  # (m, k) Borda scores per set
    table = pair_table(B, o.alternative, (a, b), o.flips, o.seed)
    d = np.round(B[:, a] - B[:, b], 12)
    test, holm = table[(min(a, b), max(a, b))]
    pair = PairTest(test.statistic, holm, test.pvalue, test.exact, test.method, o.alternative, m)
    eff = effect_ci(d, confidence=o.confidence, n_resamples=o.flips, seed=o.seed, bounds=(-(k - 1.0), k - 1.0))
    effect = EffectResult(eff.estimate, eff.ci, o.confidence, eff.method, eff.exact,
                          direction="Borda score A - Borda score B")
    borda = {msg: _centred_ci(B[:, i], centre, half, o.confidence, o.flips, o.seed) for i, msg in enumerate(messages)}
    mean_rank = {msg: (round(k - s, 12), (k - hi, k - lo)) for msg, (s, (lo, hi)) in borda.items()}
    P = position_shares(M, at) * total  # (m, k) Borda score by position
    pos = [_centred_ci(P[:, t], centre, half, o.confidence, o.flips, o.seed) for t in range(k)]
    ranks = [round(k - s, 12) for s, _ in pos]
    position = RankPositionTest(float(sum((r - (k + 1) / 2) ** 2 for r in ranks)),
                                float(position_pvalues(M, at, o.flips, o.seed)[0]), ranks,
                                [(k - hi, k - lo) for _, (lo, hi) in pos], o.flips, m)
    pairs = [{"a": messages[x], "b": messages[y], "difference": float(B[:, x].mean() - B[:, y].mean()),
              "raw_pvalue": float(t.pvalue), "pvalue": p} for (x, y), (t, p) in table.items()]
    notes = [f"pairwise tests: {PAIR_NOTE}"]
    floor = len(pairs) * smallest_pvalue(m, o.alternative)  # Holm's smallest adjusted p-value
    if floor > o.alpha:
        notes.append(f"with {m} paraphrase sets the smallest sign-flip p-value is {smallest_pvalue(m, o.alternative):.3g}, "
                     f"so Holm over the {len(pairs)} pairs cannot go below {min(floor, 1):.3g} and no pair can be "
                     f"called different at alpha = {o.alpha:g}: add paraphrase sets")
    return RankResult(a=messages[a], b=messages[b], messages=list(messages), borda=borda, mean_rank=mean_rank,
                      pair=pair, pairs=pairs, effect=effect, position=position, n_personas=n_personas, n_sets=m,
                      replicates=replicates, notes=notes,
                      warning=position_warning(position, o.alpha), d_set=d,
                      sets=list(range(m)) if sets is None else list(sets), set_scores=B)


def position_warning(position: RankPositionTest, alpha: float) -> str | None:
    """A sentence when the model ranks by position: a significant position test."""
    if position.pvalue > alpha:
        return None
    k = len(position.mean_ranks)
    t = int(np.argmax(np.abs(np.asarray(position.mean_ranks) - (k + 1) / 2)))
    return (f"position bias: the option shown at position {t + 1} got mean rank {position.mean_ranks[t]:.2f} (no bias: "
            f"{(k + 1) / 2:g}; p = {position.pvalue:.3g}); averaging over the Latin square's positions cancels it in "
            "the scores")
