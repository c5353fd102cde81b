"""Power by simulation and budget allocation (Helm & Priebe 2026, section 4.5).

A design (n, m, r) costs N = 2·n·m·r queries (two messages). A strategy n:m:r is a direction in
design space; ``allocate`` turns it into integers for a budget N.

Rounding rule (ours), for weights w = (w_n, w_m, w_r) and budget N:
  1. round the point s·w to the nearest integers (halves up), raised to the minimums n >= 2,
     m >= 2, r >= 1, for the largest scale s at which 2·n·m·r still fits in N;
  2. spend the rest one unit at a time: add 1 to the factor furthest below its ideal value
     w_i·t (t the real scale with 2·w_n·w_m·w_r·t^3 = N) among those whose increase still fits;
     stop when no increase fits.
The total never exceeds N; over the default strategies and budgets 100..20000 it uses 98% of N
on average and at least 88%, and each factor stays within 15% of its ideal in 95% of cases.

Speed: S surveys are simulated at once (binomial counts per cell via survey.stats.beta_logit.simulate_counts,
or for a rating scale the per-cell score sums of survey.kinds.ordinal.model.simulate_score_sums), and each test
of survey.stats.ab_tests that planning simulates runs its batched function on the whole (S, ·) batch (sign_flip_pvalues, survey.stats.batched's sign and Wilcoxon p-values).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from survey.common.threads import one_blas_thread
from survey.errors import SurveyError
from survey.stats import ab_tests
from survey.stats.ab_tests import DECISION_TEST, ByTest, batched_pvalues, with_aliases
from survey.stats.beta_logit import simulate_counts

MINIMUM = (2, 2, 1)  # n >= 2 personas, m >= 2 perturbations, r >= 1 replicate
# Eight strategies: the balanced point, the three corners (persona-, perturbation-,
# replicate-heavy), the three edge midpoints (one factor kept small) and an extreme
# perturbation-heavy allocation, the paper's recommendation pushed further.
DEFAULT_STRATEGIES = ("1:1:1", "4:1:1", "1:4:1", "1:1:4", "4:4:1", "4:1:4", "1:4:4", "1:16:1")
DEFAULT_BUDGETS = (200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 10000)
_MAX_CELLS = 4_000_000  # cells per simulated batch: bounds memory at a few tens of MB


def __getattr__(name: str):
    if name == "TESTS":  # the tests `survey plan` simulates, read from the registry when asked
        return ab_tests.names(power=True)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class SurveySize:
    """One concrete allocation. ``strategy`` is "n:m:r" weights or "n,m,r" for an explicit triple."""

    strategy: str
    budget: int  # the budget asked for (for an explicit triple, its own cost)
    n: int
    m: int
    r: int
    prompts: int = 2  # prompts per persona, paraphrase and replicate: 2 messages, or a kind's arrangements

    @property
    def queries(self) -> int:
        return self.prompts * self.n * self.m * self.r


@dataclass
class PowerResult:
    design: SurveySize
    power: ByTest  # test -> rejection rate at alpha
    simulations: int
    pvalues: dict = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict:
        d = self.design
        return {"strategy": d.strategy, "budget": d.budget, "n": d.n, "m": d.m, "r": d.r,
                "power": with_aliases(self.power)}


def parse_strategy(text: str) -> tuple[float, float, float]:
    """'1:4:1' -> weights; each must be a positive number."""
    parts = str(text).strip().split(":")
    try:
        w = tuple(float(p) for p in parts)
    except ValueError:
        w = ()
    if len(w) != 3 or not all(math.isfinite(x) and x > 0 for x in w):
        raise SurveyError(f"strategy '{text}' must be three positive numbers n:m:r, e.g. 1:4:1")
    return w


def parse_design(text: str) -> tuple[int, int, int]:
    """'10,20,3' -> (n, m, r), checked against the minimums."""
    parts = str(text).replace("x", ",").split(",")
    try:
        n, m, r = (int(p) for p in parts)
    except ValueError:
        raise SurveyError(f"design '{text}' must be three whole numbers n,m,r, e.g. 10,20,3") from None
    check_design(n, m, r, f"design '{text}'")
    return n, m, r


def check_design(n: int, m: int, r: int, what: str = "design") -> None:
    if n < MINIMUM[0] or m < MINIMUM[1] or r < MINIMUM[2]:
        raise SurveyError(f"{what}: needs n >= 2 personas, m >= 2 perturbations and r >= 1 replicate; "
                          f"got n={n}, m={m}, r={r}")


def allocate(weights, budget: int, prompts: int = 2) -> tuple[int, int, int]:
    """Integers (n, m, r) for strategy ``weights`` with prompts·nmr close to ``budget``, never above it
    (``prompts``: queries per persona, paraphrase and replicate, 2 for two messages)."""
    w = parse_strategy(weights) if isinstance(weights, str) else tuple(float(x) for x in weights)
    half = int(budget) // prompts
    if half < math.prod(MINIMUM):
        raise SurveyError(f"budget {budget} is below the smallest design (2, 2, 1), which costs "
                          f"{prompts * math.prod(MINIMUM)} queries")

    def at(s: float) -> list[int]:
        return [max(lo, math.floor(wi * s + 0.5)) for wi, lo in zip(w, MINIMUM, strict=True)]

    # Step 1: the largest s whose rounded point w*s still fits. The cost only changes where some
    # w_i*s crosses a half-integer, and it never decreases with s, so scan those points upwards.
    best = at(0.0)
    steps = sorted((k - 0.5) / wi for wi in w for k in range(1, int(wi * (half / math.prod(w)) ** (1 / 3)) + 3))
    for s in steps:
        c = at(s)
        if math.prod(c) > half:
            break
        best = c
    # Step 2: spend what is left one unit at a time on the factor furthest below its ideal share.
    t = (half / math.prod(w)) ** (1 / 3)
    ideal = [wi * t for wi in w]
    while True:
        fits = [k for k in range(3) if math.prod(best) // best[k] * (best[k] + 1) <= half]
        if not fits:
            return tuple(best)
        k = min(fits, key=lambda k: ((best[k] + 1) / ideal[k], k))
        best[k] += 1


def designs_for(strategies: Iterable[str], budgets: Iterable[int],
                explicit: Iterable[tuple[int, int, int]] = (), prompts: int = 2) -> list[SurveySize]:
    """Every strategy at every budget, then the explicit triples (each at its own cost)."""
    out = []
    for s in strategies:
        w = parse_strategy(s)
        label = ":".join(f"{x:g}" for x in w)
        for b in budgets:
            out.append(SurveySize(label, int(b), *allocate(w, int(b), prompts), prompts))
    for n, m, r in explicit:
        check_design(n, m, r)
        out.append(SurveySize(f"{n},{m},{r}", prompts * n * m * r, n, m, r, prompts))
    return out


def simulate_pvalues(params, n: int, m: int, r: int, simulations: int, rng: np.random.Generator,
                     alternative: str = "two-sided", flips: int = 1000, exact_max_m: int = 12,
                     tests: Iterable[str] | None = None, draw: Callable = simulate_counts,
                     points: int = 1) -> ByTest:
    """p-values of each test (default: every test planning simulates) on ``simulations`` surveys of two
    messages of design (n, m, r), simulated in batches by ``draw(params, n, m, m, r, rng, size=(S,))``, which
    gives each cell's r times mean answer for A and B: Yes counts of the Beta-logit model (ModelParams, the
    default), or a rating scale's score sums (survey.kinds.ordinal.power, with its ``points`` categories)."""
    tests = ab_tests.names(power=True) if tests is None else tuple(ab_tests.canonical(t) for t in tests)
    out = ByTest({t: np.empty(simulations) for t in tests})
    # a rating scale draws K category counts per cell: K times the memory of a Yes count
    step = max(1, _MAX_CELLS // (n * m * points))
    test_seed = int(rng.integers(2**63))  # one set of random sign vectors for every batch of this design
    # per cell: Yes counts, or sums of r scores; either is r times the cell's mean answer
    for start in range(0, simulations, step):
        S = min(step, simulations - start)
        ya, yb = draw(params, n, m, m, r, rng, size=(S,))
        diff = ya - yb  # (S, n, m) integers
        # D-bar_j, D-hat_i and theta-bar_j up to the factors 1/(n r), 1/(m r) and 1/(n r): the tests
        # are scale-free (and the unpaired one shift-free), and integer sums keep ties exact in floating point.
        samples = {"pairs": (diff.sum(axis=1).astype(float),), "personas": (diff.sum(axis=2).astype(float),),
                   "means": (ya.sum(axis=1).astype(float), yb.sum(axis=1).astype(float))}
        pv = batched_pvalues(samples, tests, alternative, flips, exact_max_m, test_seed)
        for t in tests:
            out[t][start:start + S] = pv[t]
    return out


def design_seed(seed: int, design: SurveySize | tuple) -> np.random.Generator:
    """A generator that depends only on the seed and (n, m, r): a design's estimate does not
    change when other strategies or budgets are added to the run."""
    n, m, r = (design.n, design.m, design.r) if isinstance(design, SurveySize) else design
    return np.random.default_rng([int(seed), n, m, r])


def estimate_power(model, designs: list[SurveySize], simulations: int = 1000,
                   alpha: float = 0.05, seed: int = 0, alternative: str = "two-sided",
                   flips: int = 1000, exact_max_m: int = 12, keep_pvalues: bool = False,
                   progress: Callable[[int], None] | None = None) -> list[PowerResult]:
    """Rejection rate at ``alpha`` (p <= alpha) of each test of a PowerModel (survey.stats.planning.model) for
    each design."""
    cache: dict[tuple, tuple] = {}
    results = []
    # The sign-flip products are small; on 2 shared cores a second BLAS thread mostly waits
    # (the full bench grid took 40 s with OpenBLAS threads and far less with one).
    with one_blas_thread():
        for d in designs:
            key = (d.n, d.m, d.r)
            if key not in cache:
                pv = model.pvalues(d.n, d.m, d.r, simulations, design_seed(seed, d), alternative, flips,
                                   exact_max_m)
                cache[key] = (ByTest({t: float(np.mean(p <= alpha)) for t, p in pv.items()}), pv)
            power, pv = cache[key]
            results.append(PowerResult(d, ByTest(power), simulations, pv if keep_pvalues else {}))
            if progress:
                progress(1)
    return results


def best_per_budget(results: list[PowerResult], test: str = DECISION_TEST) -> list[dict]:
    """The strategy with the highest power at each asked budget (ties: fewer queries)."""
    by_budget: dict[int, PowerResult] = {}
    for res in results:
        if "," in res.design.strategy:  # explicit triples have no budget of their own to compete at
            continue
        cur = by_budget.get(res.design.budget)
        if cur is None or (res.power[test], -res.design.queries) > (cur.power[test], -cur.design.queries):
            by_budget[res.design.budget] = res
    return [{"budget": b, "strategy": r.design.strategy, "n": r.design.n, "m": r.design.m,
             "r": r.design.r, "queries": r.design.queries, "power": r.power[test]}
            for b, r in sorted(by_budget.items())]


def cheapest_design(model, results: list[PowerResult], target: float,
                    simulations: int = 1000, alpha: float = 0.05, seed: int = 0,
                    alternative: str = "two-sided", flips: int = 1000, exact_max_m: int = 12,
                    test: str = DECISION_TEST, tolerance: float = 0.02) -> dict | None:
    """The fewest-query (n, m, r) whose simulated power reaches ``target``, or None.

    For each strategy, the first asked budget that reaches the target is refined by bisection
    down towards the previous budget (power is taken as increasing in the budget along a
    strategy), stopping when the bracket is within ``tolerance`` of its upper end. Explicit
    triples compete at their own cost.
    """
    cache: dict[tuple, dict] = {}

    def power_of(n, m, r):
        if (n, m, r) not in cache:
            with one_blas_thread():
                pv = model.pvalues(n, m, r, simulations, design_seed(seed, (n, m, r)), alternative, flips,
                                   exact_max_m)
            cache[n, m, r] = ByTest({t: float(np.mean(p <= alpha)) for t, p in pv.items()})
        return cache[n, m, r]

    found = []
    strategies: dict[str, list[PowerResult]] = {}
    for res in results:
        if "," in res.design.strategy:
            if res.power[test] >= target:
                found.append((res.design, res.power))
        else:
            strategies.setdefault(res.design.strategy, []).append(res)
    for label, rows in strategies.items():
        rows = sorted(rows, key=lambda x: x.design.budget)
        hit = next((i for i, x in enumerate(rows) if x.power[test] >= target), None)
        if hit is None:
            continue
        best = rows[hit]
        prompts = best.design.prompts
        smallest = prompts * math.prod(MINIMUM)
        lo = rows[hit - 1].design.budget if hit > 0 else smallest
        hi_design, hi_power = best.design, best.power
        while hi_design.budget - lo > max(smallest, tolerance * hi_design.budget):
            mid = (lo + hi_design.budget) // 2
            d = SurveySize(label, mid, *allocate(label, mid, prompts), prompts)
            pw = power_of(d.n, d.m, d.r)
            if pw[test] >= target:
                hi_design, hi_power = d, pw
            else:
                lo = mid
        found.append((hi_design, hi_power))
    if not found:
        return None
    design, power = min(found, key=lambda x: (x[0].queries, -x[1][test]))
    return {"strategy": design.strategy, "budget": design.queries, "n": design.n, "m": design.m,
            "r": design.r, "power": with_aliases(power), "target_power": target}


def mc_error(simulations: int) -> float:
    """Worst-case Monte Carlo standard error of a simulated power (at power 0.5)."""
    return math.sqrt(0.25 / simulations)
