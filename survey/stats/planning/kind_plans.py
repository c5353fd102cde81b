"""Power plans for the question kinds that show several messages in one prompt: pick one of k and best–worst
scaling. The deciding test is the kind's own, Holm-adjusted over every pair of the messages shown:

* pick one of k (survey.stats.pick): the sign flips over paraphrase sets of the difference of order-averaged
  shares, message A vs B, simulated by survey.stats.pick_table.simulate_pick_arrays (a multinomial logit
  with message effects, shared paraphrase effects, position shifts and a persona's pull to position 1);
* best–worst (survey.stats.maxdiff): the sign flips of the difference of best-minus-worst scores, simulated
  by survey.stats.maxdiff_sim.simulate_maxdiff_arrays on the study's cyclic block design.

    plan(PickPlan(0.5, scale="pick3"), designs=["20,12,2"], target_power=0.8)

A design (n, m, r) asks each persona every paraphrase set in k arrangements (pick) or v blocks (best–worst),
r times: it costs k·n·m·r (v·n·m·r) queries, and the allocation strategies of survey.stats.planning.power
spend a budget in those units. Batches of surveys are simulated at once and tested with the batched
sign-flip p-values (survey.stats.permutation.sign_flip_pvalues), Holm per survey.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from survey.common.display import Display
from survey.common.limits import PLAN_BUDGET_MAX, WHY, check_simulation_work
from survey.errors import SurveyError, validated
from survey.responses import response_type
from survey.stats.ab_tests import DECISION_TEST, ByTest
from survey.stats.choice import choice_pvalues
from survey.stats.choice_model import simulate_choice_counts
from survey.stats.maxdiff import scores_from_counts
from survey.stats.maxdiff_sim import simulate_maxdiff_arrays
from survey.stats.pick import cell_shares, holm_pair_pvalues, message_shares
from survey.stats.pick_table import simulate_pick_arrays
from survey.stats.planning.paraphrases import paraphrase_limit
from survey.stats.planning.planner import PlanOptions, Progress, design_requests, no_progress, recommend
from survey.stats.planning.power import DEFAULT_BUDGETS, PowerResult, designs_for, estimate_power, mc_error

_MAX_CELLS = 2_000_000  # simulated draws per batch: bounds memory at a few tens of MB
MESSAGES_MAX = 26  # messages A..Z
HOLM_LABEL = "the sign-flip test over paraphrase sets, Holm-adjusted over every pair of messages"


def _numbers(values, what: str, length: int) -> tuple[float, ...]:
    out = tuple(float(x) for x in np.atleast_1d(np.asarray(values, dtype=float)))
    if len(out) != length or not all(np.isfinite(out)):
        raise SurveyError(f"`{what}` takes {length} finite numbers (one per {'position' if 'pos' in what else 'message'}); "
                          f"got {len(out)}")
    return out


class _KindPlan:
    """What both kinds share: the message effects, their checks and the batched deciding test."""

    def _check_common(self, count: int) -> None:
        d = self.delta
        deltas = (float(d),) + (0.0,) * (count - 1) if np.ndim(d) == 0 else _numbers(d, "delta", count)
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
        step = max(1, _MAX_CELLS // (n * m * self.draws_per_cell * r))
        test_seed = int(rng.integers(2**63))  # one set of sign vectors for every batch of this design
        for start in range(0, simulations, step):
            size = min(step, simulations - start)
            per_set = self.per_set(size, n, m, r, rng)  # (size, m, messages)
            out[start:start + size] = holm_pair_pvalues(per_set, 0, 1, alternative, flips, exact_max_m, test_seed)
        return ByTest({DECISION_TEST: out})

    def summary(self) -> dict:
        return {"scale": self.scale, "messages": self.messages, "delta": list(self.delta), "sigma": self.sigma,
                "rho": self.rho, "positions": list(self.positions), "queries_per_cell": self.prompts}


@dataclass(frozen=True)
class PickPlan(_KindPlan):
    """Pick one of k (``scale`` "pick3": k = 3): ``delta`` message A's logit utility over every other message, or
    one utility per message (A, B, ...; the plan tests A vs B); ``sigma`` the paraphrase s.d. (default 1),
    ``rho`` its share all personas share (0.3), ``positions`` a logit shift per position (none), ``tau`` the
    s.d. of a persona's pull towards position 1 (0)."""

    delta: float | Sequence[float]
    scale: str = "pick3"
    sigma: float | None = None
    rho: float | None = None
    positions: Sequence[float] | None = None
    tau: float | None = None
    invalid_rate: float = 0.0

    def __post_init__(self):
        k = _options(self.scale, "pick")
        self._check_common(k)
        tau = 0.0 if self.tau is None else float(self.tau)
        if not (np.isfinite(tau) and tau >= 0):
            raise SurveyError(f"`tau` is the s.d. of a persona's pull towards position 1, >= 0; got {self.tau}")
        if not 0 <= self.invalid_rate < 1:
            raise SurveyError(f"`invalid_rate` is a reply's chance of being unusable, in [0, 1); got {self.invalid_rate}")
        object.__setattr__(self, "tau", tau)
        object.__setattr__(self, "positions", (0.0,) * k if self.positions is None
                           else _numbers(self.positions, "positions", k))

    @property
    def prompts(self) -> int:  # k arrangements of each paraphrase set
        return len(self.delta)

    @property
    def draws_per_cell(self) -> int:
        return len(self.delta) ** 2

    def per_set(self, size, n, m, r, rng) -> np.ndarray:
        chosen, valid, _ = simulate_pick_arrays(size, n, m, r, len(self.delta), deltas=self.delta, sigma=self.sigma,
                                                rho=self.rho, positions=self.positions, tau=self.tau,
                                                invalid_rate=self.invalid_rate, seed=rng)
        return message_shares(cell_shares(chosen, valid))

    def summary(self) -> dict:
        return {**super().summary(), "tau": self.tau, "invalid_rate": self.invalid_rate}

    def describe(self) -> str:
        return (f"{self.scale}: message utilities {_listed(self.delta)} (logit), sigma={self.sigma:g}, rho={self.rho:g}, "
                f"position shifts {_listed(self.positions)}, tau={self.tau:g}; A vs B, Holm over the "
                f"{_pairs(len(self.delta))} pairs")


@dataclass(frozen=True)
class MaxDiffPlan(_KindPlan):
    """Best–worst scaling (``scale`` "maxdiff3": blocks of s = 3) on v messages: ``delta`` message A's utility over
    every other message (then ``messages`` = v is needed), or one utility per message; sigma, rho as for pick;
    ``positions`` a logit shift per position in a block."""

    delta: float | Sequence[float]
    scale: str = "maxdiff3"
    messages_shown: int | None = None
    sigma: float | None = None
    rho: float | None = None
    positions: Sequence[float] | None = None

    def __post_init__(self):
        s = _options(self.scale, "maxdiff")
        v = self.messages_shown if np.ndim(self.delta) == 0 else len(np.atleast_1d(self.delta))
        if v is None:
            raise SurveyError(f"scale '{self.scale}': say how many messages the study compares (`messages=`), "
                              "or give one delta per message")
        if self.messages_shown is not None and int(self.messages_shown) != v:
            raise SurveyError(f"{v} deltas for {self.messages_shown} messages: give one delta per message")
        if not s <= int(v) <= MESSAGES_MAX:
            raise SurveyError(f"scale '{self.scale}' shows {s} messages per block: the study needs {s} to "
                              f"{MESSAGES_MAX} messages; got {v}")
        self._check_common(int(v))
        object.__setattr__(self, "messages_shown", int(v))
        object.__setattr__(self, "positions", (0.0,) * s if self.positions is None
                           else _numbers(self.positions, "positions", s))

    @property
    def prompts(self) -> int:  # v blocks per paraphrase set
        return len(self.delta)

    @property
    def draws_per_cell(self) -> int:
        return 2 * len(self.delta) * len(self.positions)

    def per_set(self, size, n, m, r, rng) -> np.ndarray:
        best, worst, valid = simulate_maxdiff_arrays(size, n, m, r, len(self.delta), len(self.positions),
                                                     deltas=self.delta, sigma=self.sigma, rho=self.rho,
                                                     positions=self.positions, seed=rng)
        return scores_from_counts(best, worst, valid)

    def describe(self) -> str:
        return (f"{self.scale} on {len(self.delta)} messages: utilities {_listed(self.delta)} (logit), "
                f"sigma={self.sigma:g}, rho={self.rho:g}, position shifts {_listed(self.positions)}; A vs B "
                f"best-minus-worst, Holm over the {_pairs(len(self.delta))} pairs")


@dataclass(frozen=True)
class ChoicePlan:
    """Forced choice between A and B shown together in both orders (survey.stats.choice_model): ``delta`` the
    logit preference of B over A (positive favours B, as for Yes/No), sigma and rho as for pick, ``positions``
    a logit shift of the first and second position (pick2's convention), ``tau`` the s.d. of a persona's pull
    towards the first. The deciding test is the preference test: sign flips over paraphrase pairs of the
    order-averaged share choosing A (one pair of messages: no Holm)."""

    delta: float
    scale: str = "choice"
    sigma: float | None = None
    rho: float | None = None
    positions: Sequence[float] | None = None
    tau: float | None = None

    def __post_init__(self):
        if np.ndim(self.delta) != 0 or not np.isfinite(float(self.delta)):
            raise SurveyError(f"forced choice compares two messages: `delta` takes one number; got {self.delta}")
        _KindPlan._check_common(self, 1)
        object.__setattr__(self, "delta", float(self.delta[0]))
        object.__setattr__(self, "tau", 0.0 if self.tau is None else float(self.tau))
        object.__setattr__(self, "positions", (0.0, 0.0) if self.positions is None
                           else _numbers(self.positions, "positions", 2))

    prompts = 2  # both orders of each pair
    draws_per_cell = 2
    test_label = "the preference test (sign flips over paraphrase pairs of the order-averaged share choosing A)"

    def pvalues(self, n: int, m: int, r: int, simulations: int, rng: np.random.Generator,
                alternative: str = "two-sided", flips: int = 1000, exact_max_m: int = 12) -> ByTest:
        """Preference-test p-values on ``simulations`` forced-choice surveys of design (n, m, r)."""
        out = np.empty(simulations)
        step = max(1, _MAX_CELLS // (n * m * r * 2))
        test_seed = int(rng.integers(2**63))
        position = float(1 / (1 + np.exp(self.positions[1] - self.positions[0])))
        for start in range(0, simulations, step):
            size = min(step, simulations - start)
            counts = simulate_choice_counts(n, m, r, rng, delta=self.delta, sigma=self.sigma, rho=self.rho,
                                            position=position, tau=self.tau, size=(size,))
            out[start:start + size] = choice_pvalues(*counts.arrays(), alternative, flips, exact_max_m, test_seed)[0]
        return ByTest({DECISION_TEST: out})

    def summary(self) -> dict:
        return {"scale": self.scale, "messages": ["A", "B"], "delta": self.delta, "sigma": self.sigma, "rho": self.rho,
                "positions": list(self.positions), "tau": self.tau, "queries_per_cell": self.prompts}

    def describe(self) -> str:
        return (f"forced choice: delta={self.delta:g} (B over A, logit), sigma={self.sigma:g}, rho={self.rho:g}, "
                f"position shifts {_listed(self.positions)}, tau={self.tau:g}; the preference test over pairs")


def _options(scale: str, family: str) -> int:
    """k or s from a scale name, through survey.responses (which refuses a pick1 or maxdiff2)."""
    rt = response_type(scale)
    if rt.kind != family:
        raise SurveyError(f"scale '{scale}' is not a {family} scale")
    return int(rt.n_options)


def _listed(values) -> str:
    return "(" + ", ".join(f"{x:g}" for x in values) + ")"


def _pairs(k: int) -> int:
    return k * (k - 1) // 2


@dataclass(repr=False)
class KindPlanResult(Display):
    """Power of a question kind's deciding test (A vs B, Holm over the pairs) at every design; ``cheapest`` the
    fewest-query design reaching ``target_power``."""

    params: PickPlan | MaxDiffPlan | ChoicePlan
    alpha: float
    simulations: int
    seed: int
    alternative: str
    flips: int
    results: list[PowerResult]
    best: list[dict]
    cheapest: dict | None
    target_power: float | None
    warnings: list[str] = field(default_factory=list)
    source: str = "given"

    @property
    def test_label(self) -> str:
        return getattr(self.params, "test_label", HOLM_LABEL)

    def describe(self) -> str:
        return f"{self.params.describe()}; {self.simulations} simulated surveys per design"

    def display_parts(self):
        rows = [{"strategy": r.design.strategy, "n,m,r": f"{r.design.n},{r.design.m},{r.design.r}",
                 "queries": r.design.queries, "power": float(r.power[DECISION_TEST])} for r in self.results]
        c = self.cheapest
        cheapest = (f"; cheapest reaching power {self.target_power}: n,m,r = {c['n']},{c['m']},{c['r']}" if c else "")
        return f"Power plan: {self.describe()}{cheapest}", rows, self.warnings

    def to_dict(self) -> dict:
        return {"params": {**self.params.summary(), "source": self.source}, "alpha": self.alpha,
                "simulations": self.simulations, "seed": self.seed, "alternative": self.alternative,
                "flips": self.flips, "mc_error": mc_error(self.simulations),
                "test": self.test_label, "queries_per_cell": self.params.prompts,
                "results": [r.to_dict() for r in self.results], "best": self.best, "cheapest": self.cheapest,
                "target_power": self.target_power, "warnings": self.warnings, "plot": None}


def plan_kind(params: PickPlan | MaxDiffPlan | ChoicePlan, *, budgets: Iterable[int] | None = None,
              strategies: Iterable[str] | None = None, designs: Iterable[str | tuple] = (), alpha: float = 0.05,
              simulations: int = 1000, flips: int = 1000, seed: int = 0, alternative: str = "two-sided",
              target_power: float | None = None, max_paraphrases: int | None = None,
              sets: Mapping[str, int] | None = None, progress: Progress = no_progress) -> KindPlanResult:
    """survey.stats.planning.plan for PickPlan and MaxDiffPlan: the same designs, strategies, budgets (in the
    kind's queries) and cheapest-design search, on the kind's simulator and deciding test."""
    opts = validated(PlanOptions, alpha=alpha, simulations=simulations, flips=flips, seed=seed,
                     budgets=list(DEFAULT_BUDGETS if budgets is None else budgets), target_power=target_power)
    prompts = params.prompts
    triples, strategy_list = design_requests(strategies, designs)
    for what, cost in [*((f"`budget={b:,}`", b) for b in opts.budgets),
                       *((f"design {n},{m},{r} ({prompts} queries per persona, set and replicate)", prompts * n * m * r)
                         for n, m, r in triples)]:
        if cost > PLAN_BUDGET_MAX:
            raise SurveyError(f"{what} is above {PLAN_BUDGET_MAX:,} queries, the most a plan simulates "
                              f"({WHY['budget']})")
    grid = designs_for(strategy_list, opts.budgets, triples, prompts)
    pairs = _pairs(len(np.atleast_1d(params.delta)))
    # Past m = 12 the batched test draws random sign vectors, while the analysis is exact up to m = 40. Holm
    # rejects at p <= alpha / pairs at best, which a Monte Carlo p-value (1 + count) / (1 + B) resolves only
    # with B well above pairs / alpha: draw at least 20 * pairs / alpha, or the plan understates the power.
    flips = max(opts.flips, math.ceil(20 * pairs / opts.alpha) - 1)
    distinct = {(d.n, d.m, d.r) for d in grid}
    work = opts.simulations * sum(n * m * r * params.draws_per_cell + pairs * m * (flips if m > 12 else 2**m)
                                  for n, m, r in distinct)
    check_simulation_work(work, f"{opts.simulations} simulations x {len(distinct)} designs",
                          "lower `simulations=`, `flips=` or the budgets")
    limit = paraphrase_limit(max_paraphrases, sets)
    with progress("simulating designs", len(grid)) as advance:
        results = estimate_power(params, grid, opts.simulations, opts.alpha, seed, alternative, flips,
                                 progress=advance)
    cheapest, best, warnings = recommend(params, results, limit, opts.model_copy(update={"flips": flips}), seed,
                                         alternative, progress)
    return KindPlanResult(params, opts.alpha, opts.simulations, seed, alternative, flips, results, best,
                          cheapest, opts.target_power, warnings)


__all__ = ["ChoicePlan", "KindPlanResult", "MaxDiffPlan", "PickPlan", "plan_kind"]
