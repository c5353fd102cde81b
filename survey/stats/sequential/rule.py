"""A sequential design applied to paired differences: the stopping rule, its path and its decision.

``run_rule`` takes (S, M) paired differences (S surveys, pairs in collection order) and returns, per
survey, the look it stopped at and why; it is what simulations and the planner call. ``sequential_test``
runs one survey and returns its whole path (look, pairs, statistic, boundary, spent alpha) as a
``SequentialResult``. Both methods and the non-binding futility stop are described in
survey.stats.sequential.design.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from survey.errors import SurveyError
from survey.stats.sequential.betting import confidence_sequence, log_wealth
from survey.stats.sequential.design import SequentialDesign, conditional_power, make_design, spent_alpha
from survey.stats.sequential.group import group_sequential_paths

DECISIONS = ("reject", "futility", "max-reached", "continue")


@dataclass
class RuleOutcome:
    """Per survey: decision code (index into DECISIONS), the look index it stopped at, pairs used."""

    looks: np.ndarray
    decision: np.ndarray  # (S,) int
    stop: np.ndarray  # (S,) look index
    pairs: np.ndarray  # (S,) pairs bought
    statistic: np.ndarray  # (S, K) mean difference at each look
    boundary: np.ndarray  # (S, K) group-sequential: |mean| boundary; betting: wealth needed (1/alpha)
    spent: np.ndarray  # (S, K) alpha spent by each look
    pvalue: np.ndarray  # (S, K) valid p-value if stopped at that look
    crossed: np.ndarray  # (S,) first look crossing efficacy, -1 if none (ignoring futility)
    conditional_power: np.ndarray  # (S, K)
    wealth: np.ndarray | None = None  # (S, K) betting: largest wealth so far
    exact: bool = True

    @property
    def rejected(self) -> np.ndarray:
        return self.decision == 0


def _z(a_sum: np.ndarray, sq: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sq > 0, a_sum / np.sqrt(sq), 0.0)


def run_rule(D, design: SequentialDesign, seed=0, max_pairs: int | None = None) -> RuleOutcome:
    """Apply ``design`` to each row of D (paired differences in collection order).

    Looks are every ``round_pairs`` up to ``max_pairs`` (the design's, or the given one). When a row
    has fewer pairs than the last look, looks past its end are not reached: such a survey that has not
    stopped yet is "continue".
    """
    D = np.atleast_2d(np.asarray(D, dtype=float))
    top = design.max_pairs if max_pairs is None else int(max_pairs)
    planned = design.looks(top)
    have = D.shape[1]
    if have < 1:
        raise SurveyError("a sequential test needs at least one paired paraphrase")
    looks = planned[planned <= have]
    if looks.size == 0:  # not even one round yet: test what there is at its own information fraction
        looks = np.array([have])
    t = looks / top
    X = np.nan_to_num(D[:, :looks[-1]])
    csum = np.cumsum(X, axis=1)[:, looks - 1]
    csq = np.cumsum(X ** 2, axis=1)[:, looks - 1]
    stat = csum / looks
    two = design.alternative == "two-sided"
    z = _z(csum if design.alternative != "less" else -csum, csq)
    cp = conditional_power(z, t, design.alpha, two)
    wealth = None
    if design.method == "group-sequential":
        levels = spent_alpha(design.spending, design.alpha, t)
        g = group_sequential_paths(X, looks, design.alpha, levels, design.alternative, design.flips,
                                   design.exact_max_m, seed)
        crossed, boundary, spent, pvalue, exact = g.crossed, g.boundary, g.spent, g.pvalue, g.exact
    else:
        lw = np.maximum.accumulate(log_wealth(X, 0.0, design.bet, design.alternative), axis=1)[:, looks - 1]
        hit = lw >= np.log(1.0 / design.alpha)
        crossed = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
        wealth = np.exp(lw)
        boundary = np.full(stat.shape, 1.0 / design.alpha)
        spent = np.full(stat.shape, np.nan)
        pvalue = np.minimum(1.0, 1.0 / wealth)
        exact = True
    K = len(looks)
    futile = np.zeros(stat.shape, dtype=bool)
    if design.futility is not None:
        futile[:, :] = (cp < design.futility) & (looks < top) & (t >= design.futility_from - 1e-12)
    first_fut = np.where(futile.any(axis=1), futile.argmax(axis=1), K)
    first_cross = np.where(crossed >= 0, crossed, K)
    stop = np.minimum(first_cross, first_fut)
    decision = np.where(first_cross <= first_fut, 0, 1)
    ended = stop >= K
    decision = np.where(ended, np.where(looks[-1] >= top, 2, 3), decision)
    stop = np.minimum(stop, K - 1)
    return RuleOutcome(looks, decision, stop, looks[stop], stat, boundary, spent, pvalue, crossed, cp,
                       wealth, exact)


@dataclass
class SequentialResult:
    """One survey's sequential test: the decision, where it stopped, and the path up to there."""

    method: str
    decision: str  # reject | futility | max-reached | continue
    look: int  # 1-based look it stopped at
    pairs: int  # pairs used
    max_pairs: int
    statistic: float  # mean paired difference at the stop
    pvalue: float  # group-sequential: stagewise-ordering p; betting: anytime p = min(1, 1/max wealth)
    alpha: float
    design: SequentialDesign
    path: list[dict] = field(default_factory=list)  # one dict per look up to the stop
    confidence_sequence: tuple[float, float] | None = None  # betting: effect bounds valid at any time
    exact: bool = True

    @property
    def rejected(self) -> bool:
        return self.decision == "reject"

    def queries(self, personas: int, replicates: int) -> int:
        """Queries used: two messages, every persona and replicate of each pair bought."""
        return 2 * self.pairs * personas * replicates

    def to_dict(self) -> dict:
        out = {"method": self.method, "decision": self.decision, "look": self.look, "pairs": self.pairs,
               "max_pairs": self.max_pairs, "statistic": self.statistic, "pvalue": self.pvalue,
               "alpha": self.alpha, "exact": self.exact, "design": self.design.model_dump(), "path": self.path}
        if self.confidence_sequence is not None:
            out["confidence_sequence"] = list(self.confidence_sequence)
        return out


def sequential_test(d, design: SequentialDesign | dict | None = None, *, max_pairs: int | None = None,
                    seed=0, **options) -> SequentialResult:
    """The sequential test of one survey's paired differences ``d`` (in collection order).

    ``design`` (or keywords: method, round_pairs, max_pairs, alpha, spending, futility, ...) is a
    SequentialDesign; ``max_pairs`` defaults to the design's. Pairs past the stop are not used.
    """
    design = make_design(design, max_pairs=max_pairs, **options)
    d = np.asarray(d, dtype=float).ravel()
    out = run_rule(d[None, :], design, seed)
    k = int(out.stop[0])
    path = []
    for i in range(k + 1):
        row = {"look": i + 1, "pairs": int(out.looks[i]), "statistic": float(out.statistic[0, i]),
               "boundary": float(out.boundary[0, i]), "pvalue": float(out.pvalue[0, i]),
               "conditional_power": float(out.conditional_power[0, i])}
        if design.method == "group-sequential":
            row["spent_alpha"] = float(out.spent[0, i])
            row["spending_alpha"] = float(spent_alpha(design.spending, design.alpha,
                                                      out.looks[i] / design.max_pairs))
        else:
            row["wealth"] = float(out.wealth[0, i])
        path.append(row)
    cs = None
    if design.method == "betting":
        lo, hi = confidence_sequence(d[:int(out.pairs[0])], design.alpha, design.bet, design.alternative)
        cs = (float(lo[-1]), float(hi[-1]))
    return SequentialResult(design.method, DECISIONS[int(out.decision[0])], k + 1, int(out.pairs[0]),
                            design.max_pairs, float(out.statistic[0, k]), float(out.pvalue[0, k]),
                            design.alpha, design, path, cs, out.exact)
