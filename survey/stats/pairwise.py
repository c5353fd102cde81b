"""Every pair of several messages as one family: each pair's own A/B result (the kind's comparison), its p-value
adjusted over the pairs, and a joint interval beside its marginal one. Pure: the comparisons come in, already run
(survey.stats.across_messages for `survey compare`, survey.stats.message_set for a k-message study)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from survey.stats.comparison import Comparison
from survey.stats.effect import EffectResult, effect_ci
from survey.stats.multiplicity import adjust_pvalues


@dataclass
class PairResult:
    """One pair (a, b) of messages: effect T = P(Yes|a) - P(Yes|b) (mean scores on a rating scale) and its tests."""

    a: str
    b: str
    effect: EffectResult
    simultaneous_ci: tuple[float, float] | None  # None: no joint interval (a pair BH did not select)
    pvalue: float  # sign-flip permutation, unadjusted
    pvalue_adjusted: float
    significant: bool  # pvalue_adjusted <= alpha
    n_paired: int
    comparison: Comparison = field(repr=False)

    @property
    def winner(self) -> str | None:
        if not self.significant or self.effect.estimate == 0:
            return None
        return self.a if self.effect.estimate > 0 else self.b

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "effect": self.effect.to_dict(),
                "simultaneous_ci": None if self.simultaneous_ci is None else list(self.simultaneous_ci),
                "pvalue": self.pvalue,
                "pvalue_adjusted": self.pvalue_adjusted, "significant": self.significant,
                "winner": self.winner, "n_paired": self.n_paired,
                "tests": self.comparison.to_dict()["tests"]}


def pairwise(comps: list, bounds: tuple[float, float], confidence: float, alpha: float, adjust: str = "holm",
             n_resamples: int = 9999, seed=0, levels=None) -> list[PairResult]:
    """The pairwise matrix of one model's comparisons ``comps`` (each the kind's own A/B result): each pair's
    unadjusted deciding p-value, adjusted over the m pairs (``adjust``: Holm by default), and beside its marginal
    interval the Bonferroni-simultaneous one: the kind's interval (sign-flip inversion of the pair's paraphrase-
    level differences) at confidence 1 - (1 - ``confidence``)/m, so that all m intervals cover their effects
    together with probability at least ``confidence``. ``levels``: instead, each pair's joint-interval level
    given by the caller (survey.stats.family.interval_levels; None: no joint interval for that pair)."""
    # a kind whose deciding p-value is already adjusted over the pairs (pick one of k) keeps its raw one beside it
    raw = np.array([getattr(c.decision, "raw_pvalue", c.decision.pvalue) for c in comps])
    adj = adjust_pvalues(raw, adjust)
    k = len(comps)
    levels = [1 - (1 - confidence) / k] * k if levels is None else levels(adj)
    pairs = []
    for c, p, q, level in zip(comps, raw, adj, levels, strict=True):
        d = c.d_perturbation[~np.isnan(c.d_perturbation)]
        # a pair decided over a family of tests (a checkbox's options): Bonferroni over those too, so that a pair
        # the adjusted p calls no difference never gets a joint interval excluding 0
        level = None if level is None else 1 - (1 - level) / getattr(c, "decision_tests", 1)
        simul = (None if level is None else tuple(c.effect.ci) if k == 1 else
                 tuple(effect_ci(d, confidence=level, n_resamples=n_resamples, seed=seed, bounds=bounds).ci))
        pairs.append(PairResult(c.a, c.b, c.effect, simul, float(p), float(q), bool(q <= alpha), c.n_paired, c))
    return pairs


__all__ = ["PairResult", "pairwise"]
