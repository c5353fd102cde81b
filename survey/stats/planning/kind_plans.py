"""What the power models of the kinds that show several messages in one prompt share (pick one of k, best–worst
scaling and forced choice; their models are in their folders, survey.kinds.<name>.power). The deciding test is the kind's own, Holm-adjusted over every pair of the messages shown:

* pick one of k (survey.kinds.pick.statistics): the sign flips over paraphrase sets of the difference of order-averaged
  shares, message A vs B, simulated by survey.kinds.pick.table.simulate_pick_arrays (a multinomial logit
  with message effects, shared paraphrase effects, position shifts and a persona's pull to position 1);
* best–worst (survey.kinds.maxdiff.statistics): the sign flips of the difference of best-minus-worst scores, simulated
  by survey.kinds.maxdiff.simulation.simulate_maxdiff_arrays on the study's cyclic block design.

    plan(PickPlan(0.5, scale="pick3"), designs=["20,12,2"], target_power=0.8)

A design (n, m, r) asks each persona every paraphrase set in k arrangements (pick) or v blocks (best–worst),
r times: it costs k·n·m·r (v·n·m·r) queries, and the allocation strategies of survey.stats.planning.power
spend a budget in those units. Batches of surveys are simulated at once and tested with the batched
sign-flip p-values (survey.stats.permutation.sign_flip_pvalues), Holm per survey.
"""

from __future__ import annotations

import math

import numpy as np

from survey.common.limits import PLAN_BUDGET_MAX, WHY, check_simulation_work
from survey.errors import SurveyError
from survey.responses import response_type
from survey.stats.ab_tests import DECISION_TEST, ByTest
from survey.stats.planning.model import PowerModelBase

MAX_CELLS = 2_000_000  # simulated draws per batch: bounds memory at a few tens of MB
MESSAGES_MAX = 26  # messages A..Z
HOLM_LABEL = "the sign-flip test over paraphrase sets, Holm-adjusted over every pair of messages"


def numbers(values, what: str, length: int) -> tuple[float, ...]:
    out = tuple(float(x) for x in np.atleast_1d(np.asarray(values, dtype=float)))
    if len(out) != length or not all(np.isfinite(out)):
        raise SurveyError(f"`{what}` takes {length} finite numbers (one per {'position' if 'pos' in what else 'message'}); "
                          f"got {len(out)}")
    return out


class KindPlan(PowerModelBase):
    """The power model of a kind that shows several messages (survey.stats.planning.model): the message effects,
    their checks and the batched deciding test. A subclass sets ``pair_pvalues`` (the kind's Holm-adjusted pair
    p-values of a batch) and ``per_set`` (a batch of per-set shares or scores), ``prompts`` and
    ``draws_per_cell``; or its own ``pvalues`` (forced choice)."""

    test_label = HOLM_LABEL

    def _check_common(self, count: int) -> None:
        d = self.delta
        deltas = (float(d),) + (0.0,) * (count - 1) if np.ndim(d) == 0 else numbers(d, "delta", count)
        object.__setattr__(self, "delta", deltas)
        sigma = 1.0 if self.sigma is None else float(self.sigma)
        rho = 0.3 if self.rho is None else float(self.rho)
        if not (np.isfinite(sigma) and sigma >= 0):
            raise SurveyError(f"`sigma` is the paraphrase s.d. on the logit scale, >= 0; got {self.sigma}")
        if not 0 <= rho <= 1:
            raise SurveyError(f"`rho` is the share of the paraphrase variance every persona shares, in [0, 1]; got {self.rho}")
        object.__setattr__(self, "sigma", sigma)
        object.__setattr__(self, "rho", rho)

    @property
    def messages(self) -> list[str]:
        return [chr(ord("A") + i) for i in range(len(self.delta))]

    def pvalues(self, n: int, m: int, r: int, simulations: int, rng: np.random.Generator,
                alternative: str = "two-sided", flips: int = 1000, exact_max_m: int = 12) -> ByTest:
        """Holm-adjusted sign-flip p-values of message A vs B on ``simulations`` surveys of design (n, m, r)."""
        out = np.empty(simulations)
        step = max(1, MAX_CELLS // (n * m * self.draws_per_cell * r))
        test_seed = int(rng.integers(2**63))  # one set of sign vectors for every batch of this design
        for start in range(0, simulations, step):
            size = min(step, simulations - start)
            per_set = self.per_set(size, n, m, r, rng)  # (size, m, messages)
            out[start:start + size] = self.pair_pvalues(per_set, 0, 1, alternative, flips, exact_max_m, test_seed)
        return ByTest({DECISION_TEST: out})

    def summary(self) -> dict:
        return {"scale": self.scale, "messages": self.messages, "delta": list(self.delta), "sigma": self.sigma,
                "rho": self.rho, "positions": list(self.positions), "queries_per_cell": self.prompts}

    @property
    def pairs(self) -> int:
        return pair_count(len(np.atleast_1d(self.delta)))

    def flips_for(self, flips: int, alpha: float) -> int:
        # Past m = 12 the batched test draws random sign vectors, while the analysis is exact up to m = 40. Holm
        # rejects at p <= alpha / pairs at best, which a Monte Carlo p-value (1 + count) / (1 + B) resolves only
        # with B well above pairs / alpha: draw at least 20 * pairs / alpha, or the plan understates the power.
        return max(flips, math.ceil(20 * self.pairs / alpha) - 1)

    def check_size(self, budgets: list[int], triples: list[tuple]) -> None:
        prompts = self.prompts
        for what, cost in [*((f"`budget={b:,}`", b) for b in budgets),
                           *((f"design {n},{m},{r} ({prompts} queries per persona, set and replicate)",
                              prompts * n * m * r) for n, m, r in triples)]:
            if cost > PLAN_BUDGET_MAX:
                raise SurveyError(f"{what} is above {PLAN_BUDGET_MAX:,} queries, the most a plan simulates "
                                  f"({WHY['budget']})")

    def check_work(self, grid, simulations: int, flips: int, exact_max_m: int = 12) -> None:
        distinct = {(d.n, d.m, d.r) for d in grid}
        work = simulations * sum(n * m * r * self.draws_per_cell + self.pairs * m * (flips if m > 12 else 2**m)
                                 for n, m, r in distinct)
        check_simulation_work(work, f"{simulations} simulations x {len(distinct)} designs",
                              "lower `simulations=`, `flips=` or the budgets")

    def row(self, result) -> dict:
        d = result.design
        return {"strategy": d.strategy, "n,m,r": f"{d.n},{d.m},{d.r}", "queries": d.queries,
                "power": float(result.power[DECISION_TEST])}

    def result_fields(self, result) -> dict:
        return {"test": self.test_label, "queries_per_cell": self.prompts}








def scale_size(scale: str, family: str) -> int:
    """k or s from a scale name, through survey.responses (which refuses a pick1 or maxdiff2)."""
    rt = response_type(scale)
    if rt.kind != family:
        raise SurveyError(f"scale '{scale}' is not a {family} scale")
    return int(rt.n_options)


def listed(values) -> str:
    return "(" + ", ".join(f"{x:g}" for x in values) + ")"


def pair_count(k: int) -> int:
    return k * (k - 1) // 2


__all__ = ["HOLM_LABEL", "MAX_CELLS", "MESSAGES_MAX", "KindPlan", "listed", "numbers", "pair_count", "scale_size"]
