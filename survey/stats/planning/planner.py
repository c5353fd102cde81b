"""What `survey plan` computes, as one Python call: the model parameters (given, from an estimate, or
fitted on a table), the power of each test at every design, the best strategy per budget, and the
cheapest design reaching a target power.

    res = plan(BinaryPlan(delta=0.4, rho=0.3), budgets=[500, 1000], target_power=0.8)
    res.cheapest, res.to_dict()  # the dict is what `survey plan --json` prints

The parameters may come from files (a `survey estimate --json` output, a long table or a store):
reading them is this module's only I/O; the simulation itself is pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from survey.common.display import Display
from survey.common.limits import PLAN_BUDGET_MAX, WHY, Alpha, Flips, Seed, check_simulation_work
from survey.data.plan_inputs import PARAMS, estimate_rows, pick_estimate, plan_table
from survey.data.table import models_in, require_models
from survey.errors import SurveyError, validated
from survey.stats import ab_tests
from survey.stats.ab_tests import DECISION_TEST, label
from survey.stats.beta_logit import DELTA_MEANING, ModelParams, make_params
from survey.stats.beta_logit_estimate import EstimateResult, fit_beta_logit
from survey.stats.ordinal import DELTA_MEANING_ORDINAL, OrdinalParams
from survey.stats.ordinal_table import scale_params, simulation_view
from survey.stats.planning.params import BinaryPlan, PlanSource, RatingPlan

if TYPE_CHECKING:
    from survey.stats.planning.kind_plans import ChoicePlan, KindPlanResult, MaxDiffPlan, PickPlan
from survey.stats.planning.paraphrases import (
    ParaphraseLimit,
    paraphrase_limit,
    paraphrase_warnings,
    small_m_warnings,
    within,
)
from survey.stats.planning.power import (
    DEFAULT_BUDGETS,
    DEFAULT_STRATEGIES,
    PowerResult,
    SurveySize,
    best_per_budget,
    cheapest_design,
    designs_for,
    estimate_power,
    mc_error,
    parse_design,
    parse_strategy,
)

# progress(label, total) -> a context manager yielding advance(k=1); total None: no known count
Progress = Callable[[str, int | None], AbstractContextManager]


def no_progress(label: str, total: int | None) -> AbstractContextManager:
    return nullcontext(lambda k=1: None)


class PlanOptions(BaseModel):
    """Numeric options of `survey plan`; pydantic names the bad one and its range."""

    model_config = ConfigDict(extra="forbid")
    alpha: Alpha
    simulations: int = Field(ge=20, le=1_000_000)
    flips: Flips = Field(ge=19)
    seed: Seed
    budgets: list[int] = Field(min_length=1)
    target_power: float | None = Field(default=None, gt=0, lt=1)


def design_requests(strategies: Iterable[str] | None, designs: Iterable[str | tuple]) -> tuple[list, list]:
    """(explicit (n, m, r) triples, strategies), each checked; the eight default strategies when neither is given."""
    triples = [parse_design(d) if isinstance(d, str) else tuple(d) for d in designs]
    strategy_list = list(strategies or [])
    for s in strategy_list:
        parse_strategy(s)
    if not strategy_list and not triples:
        strategy_list = list(DEFAULT_STRATEGIES)
    return triples, strategy_list


def recommend(params, results: list[PowerResult], limit: ParaphraseLimit | None, opts: PlanOptions, seed: int,
              alternative: str, progress: Progress) -> tuple[dict | None, list[dict], list[str]]:
    """(cheapest design reaching the target power, best strategy per budget, warnings), within the
    paraphrases the sets hold."""
    cheapest = None
    if opts.target_power is not None:
        with progress("searching the cheapest design", None):
            cheapest = cheapest_design(params, within(results, limit), opts.target_power, opts.simulations,
                                       opts.alpha, seed, alternative, opts.flips)
    warnings = []
    if opts.target_power is not None and cheapest is None:
        warnings.append(f"no design reached power {opts.target_power:g} with the {label(DECISION_TEST)} test; "
                        "try larger `budget=` values or another `strategy=`")
    best = best_per_budget(within(results, limit))
    warnings += small_m_warnings((r.design.m for r in results), opts.alpha, alternative)
    warnings += paraphrase_warnings(limit, best, cheapest)
    return cheapest, best, warnings


def check_plan_size(budgets: list[int], triples: list[tuple], grid: list[SurveySize], simulations: int,
                    flips: int, exact_max_m: int = 12) -> None:
    """Refuse budgets past PLAN_BUDGET_MAX and a grid whose simulation would take more than about a minute."""
    for budget in budgets:
        if budget > PLAN_BUDGET_MAX:
            raise SurveyError(f"`budget={budget:,}` is above {PLAN_BUDGET_MAX:,} queries, the most a plan "
                              f"simulates ({WHY['budget']})")
    for n, m, r in triples:
        if 2 * n * m * r > PLAN_BUDGET_MAX:
            raise SurveyError(f"design {n},{m},{r} costs {2 * n * m * r:,} queries, above the {PLAN_BUDGET_MAX:,} "
                              f"a plan simulates ({WHY['budget']})")
    distinct = {(d.n, d.m, d.r) for d in grid}
    work = simulations * sum(n * m * r + (flips * m if m > exact_max_m else 0) for n, m, r in distinct)
    check_simulation_work(work, f"{simulations} simulations x {len(distinct)} designs x (answers + flips x m)",
                          "lower `simulations=`, `flips=` or the budgets")


def load_params(from_estimate=None, from_table=None, model: str | None = None, message: str | None = None,
                study: str | None = None, method: str = "moments") -> tuple[dict, str]:
    """(mu, kappa, sigma, rho, where they came from), from either source or neither ({}, "given").

    ``from_estimate``: a `survey estimate --json` file, its document, survey.stats.analysis.estimate's
    result, or an EstimateResult;
    ``from_table``: a long table, or a table file or store to read (``study`` picks one in a store),
    fitted by ``method`` ("moments", or "appendix-c" for comparison; survey.stats.beta_logit_estimate).
    """
    if from_estimate is not None and from_table is not None:
        raise SurveyError("give `from_estimate=` or `from_table=`, not both")
    if isinstance(from_estimate, EstimateResult):
        return {p: float(getattr(from_estimate, p)) for p in PARAMS}, "an estimate"
    if from_estimate is not None:
        rows, source = estimate_rows(from_estimate)
        row = pick_estimate(rows, model, message, source)
        return ({p: float(row[p]) for p in PARAMS},
                f"{source} (model {row.get('model')}, message {row.get('message')})")
    if from_table is not None:
        if not message:
            raise SurveyError("`from_table=` needs `message=`: the message whose answers are fitted")
        df, source = plan_table(from_table, study)
        models = models_in(df)
        if model is None and len(models) > 1:
            raise SurveyError(f"{source} has several models ({', '.join(models)}); choose one with `model=`")
        mdl = model or models[0]
        require_models(df, [mdl])
        res = fit_beta_logit(df, mdl, message, method=method)
        fell_back = f"; {res.note}" if res.method != method else ""
        return ({p: float(getattr(res, p)) for p in PARAMS},
                f"estimated by {res.method} from {source} (model {mdl}, message {message}){fell_back}")
    return {}, "given"


@dataclass(repr=False)
class PlanResult(Display):
    params: ModelParams | OrdinalParams  # OrdinalParams: a rating scale (survey.stats.ordinal)
    source: str  # where mu, kappa, sigma, rho came from
    alpha: float
    simulations: int
    seed: int
    alternative: str
    flips: int
    results: list[PowerResult]
    best: list[dict]  # the best strategy at each budget, for the sign-flip test
    cheapest: dict | None  # the fewest-query design reaching target_power
    target_power: float | None
    warnings: list[str] = field(default_factory=list)
    paraphrases: ParaphraseLimit | None = None  # the most paraphrases the sets hold, when known
    sequential: list[dict] | None = None  # per design: the sequential rule's power and expected queries

    def display_parts(self):
        rows = [{"strategy": r.design.strategy, "n,m,r": f"{r.design.n},{r.design.m},{r.design.r}",
                 "queries": r.design.budget, **{t: float(v) for t, v in r.power.items()}} for r in self.results]
        cheapest = (f"; cheapest reaching power {self.target_power}: n,m,r = {self.cheapest['n']},{self.cheapest['m']},"
                    f"{self.cheapest['r']}" if self.cheapest else "")
        return f"Power plan: {self.describe()}{cheapest}", rows, self.warnings

    def describe(self) -> str:
        p = self.params
        if isinstance(p, OrdinalParams):
            cuts = ", ".join(f"{c:.2f}" for c in p.cut_points)
            return (f"{p.scale}: tau={p.tau:g}, sigma={p.sigma:g}, rho={p.rho:g}, delta={p.delta:g} (B over A, "
                    f"latent logit), cuts {cuts}; {self.simulations} simulated surveys per design")
        return (f"mu={p.mu:g}, kappa={p.kappa:g}, sigma={p.sigma:g}, rho={p.rho:g}, "
                f"delta={p.delta:g} (B over A, logit); {self.simulations} simulated surveys per design")

    def to_dict(self) -> dict:
        ordinal = isinstance(self.params, OrdinalParams)
        params = self.params.summary() if ordinal else self.params.model_dump()
        return {"params": {**params, "source": self.source},
                "alpha": self.alpha, "simulations": self.simulations, "seed": self.seed,
                "alternative": self.alternative, "flips": self.flips, "mc_error": mc_error(self.simulations),
                "results": [r.to_dict() for r in self.results], "best": self.best,
                "cheapest": self.cheapest, "target_power": self.target_power,
                "warnings": self.warnings, "plot": None,
                "delta_meaning": DELTA_MEANING_ORDINAL if ordinal else DELTA_MEANING,
                "max_paraphrases": self.paraphrases.to_dict() if self.paraphrases else None,
                "sequential": self.sequential}


def _plan(delta: float, *, mu: float | None = None, kappa: float | None = None, sigma: float | None = None,
         rho: float | None = None, from_estimate=None, from_table=None, model: str | None = None,
         message: str | None = None, study: str | None = None, budgets: Iterable[int] | None = None,
         strategies: Iterable[str] | None = None, designs: Iterable[str | tuple] = (), alpha: float = 0.05,
         simulations: int = 1000, flips: int = 1000, seed: int = 0, alternative: str = "two-sided",
         target_power: float | None = None, method: str = "moments", max_paraphrases: int | None = None,
         sets: Mapping[str, int] | None = None, progress: Progress = no_progress, sequential=None, scale: str = "binary",
         tau: float | None = None, cuts: Iterable[float] | None = None) -> PlanResult:
    """Simulated power of each test for allocation strategies n:m:r at budgets N = 2nmr, and explicit
    designs ("n,m,r" or (n, m, r)); with ``target_power``, also the cheapest design reaching it.

    Parameters not given default to mu 0.5, kappa 4, sigma 1, rho 0.3, or come from ``from_estimate``
    / ``from_table`` (see load_params; ``method`` fits the table); a given one overrides the one read.
    Without strategies and designs, the eight default strategies are planned at ``budgets``
    (default 200..10000). ``delta`` is the logit shift of B over A (positive: B more often Yes).
    The recommendations (best per budget, cheapest) stay within ``max_paraphrases`` per message, or
    the smallest size in ``sets`` (perturbation set name -> paraphrases it holds, e.g. from
    the registry's perturbation set); without either, those that exceed
    the paraphrases in the source table or estimate are flagged (survey.stats.planning.paraphrases).
    ``sequential``: a SequentialDesign (or its fields as a dict): each design's m becomes its maximum
    pairs, and the result's ``sequential`` rows give the rule's power and expected queries beside the
    fixed design's (survey.stats.sequential.planning).
    ``scale``: "binary" (the Beta-logit model) or a rating scale such as "likert5", simulated from the
    ordinal model (survey.stats.ordinal) with persona s.d. ``tau`` (default 1) and ``cuts`` (default
    logit(c/K)); sigma, rho and delta keep their meaning on the latent logit scale, and the tests run on
    the mean score per cell.
    """
    opts = validated(PlanOptions, alpha=alpha, simulations=simulations, flips=flips, seed=seed,
                         budgets=list(DEFAULT_BUDGETS if budgets is None else budgets), target_power=target_power)
    if simulation_view(scale).ordered:  # a rating scale: the ordinal model; Yes/No: the Beta-logit model
        _check_rating_inputs(scale, mu, kappa, from_estimate, sequential)
        fitted, source = _rating_params_from_table(scale, from_table, model, message, study)
        given = {"tau": tau, "sigma": sigma, "rho": rho, "cuts": cuts}
        fitted.update({k: v for k, v in given.items() if v is not None})
        params = scale_params(scale, delta=delta, **fitted)
    else:
        if tau is not None or cuts is not None:
            raise SurveyError("`tau=` and `cuts=` belong to rating scales (e.g. `scale=likert5`); "
                              "a binary survey takes `mu=` and `kappa=`")
        values, source = load_params(from_estimate, from_table, model, message, study, method)
        values.update({k: v for k, v in zip(PARAMS, (mu, kappa, sigma, rho), strict=True) if v is not None})
        params = make_params(**values, delta=delta)
    triples, strategy_list = design_requests(strategies, designs)
    check_plan_size(opts.budgets, triples, [], opts.simulations, opts.flips)
    limit = paraphrase_limit(max_paraphrases, sets, from_estimate, from_table, model, message, study)
    grid = designs_for(strategy_list, opts.budgets, triples)
    check_plan_size([], [], grid, opts.simulations, opts.flips)
    with progress("simulating designs", len(grid)) as advance:
        results = estimate_power(params, grid, opts.simulations, opts.alpha, seed, alternative, opts.flips,
                                 progress=advance)
    seq_rows = None
    if sequential is not None:
        from survey.stats.sequential import make_design
        from survey.stats.sequential.planning import sequential_plan

        seq_design = make_design(sequential, alpha=opts.alpha, alternative=alternative)
        with progress("simulating the sequential rule", len(grid)) as advance:
            seq_rows = sequential_plan(params, grid, seq_design, opts.simulations, seed, progress=advance)
    cheapest, best, warnings = recommend(params, results, limit, opts, seed, alternative, progress)
    invalid = [label(t) for t in results[0].power if not ab_tests.get(t).valid_when_rho_positive]
    if params.rho > 0 and invalid:
        warnings.insert(0, f"rho = {params.rho:g} > 0: the {' and '.join(invalid)} tests are INVALID (oversized); "
                        f"their 'power' includes false positives. Plan with the {label(DECISION_TEST)} test.")
    return PlanResult(params, source, opts.alpha, opts.simulations, seed, alternative, opts.flips, results,
                      best, cheapest, opts.target_power, warnings, limit, seq_rows)



def plan(params: BinaryPlan | RatingPlan | PickPlan | MaxDiffPlan | ChoicePlan, *, source: PlanSource | None = None,
         budgets: Iterable[int] | None = None, strategies: Iterable[str] | None = None,
         designs: Iterable[str | tuple] = (), alpha: float = 0.05, simulations: int = 1000, flips: int = 1000,
         seed: int = 0, alternative: str = "two-sided", target_power: float | None = None,
         max_paraphrases: int | None = None, sets: Mapping[str, int] | None = None,
         progress: Progress = no_progress, sequential=None) -> PlanResult | KindPlanResult:
    """Simulated power of each test for allocation strategies n:m:r at budgets N = 2nmr, and explicit
    designs ("n,m,r" or (n, m, r)); with ``target_power``, also the cheapest design reaching it.

    ``params``: what is simulated, one object per response kind (survey.stats.planning.params: BinaryPlan,
    RatingPlan; survey.stats.planning.kind_plans: PickPlan, MaxDiffPlan, ChoicePlan, whose designs cost k·nmr, v·nmr or 2nmr
    queries and whose power is their deciding test's, returned as a KindPlanResult); ``source``: where the
    parameters not given are read (PlanSource). Without strategies and
    designs, the eight default strategies are planned at ``budgets`` (default 200..10000). The
    recommendations stay within ``max_paraphrases`` per message, or the smallest size in ``sets``
    (perturbation set name -> paraphrases it holds); ``sequential``: a SequentialDesign (or its fields as a
    dict) whose power and expected queries are simulated beside each fixed design's."""
    from survey.stats.planning.kind_plans import ChoicePlan, MaxDiffPlan, PickPlan, plan_kind

    if isinstance(params, PickPlan | MaxDiffPlan | ChoicePlan):  # a kind that shows several messages: its own deciding test
        _refuse_for_kinds(params, source, sequential)
        return plan_kind(params, budgets=budgets, strategies=strategies, designs=designs, alpha=alpha,
                         simulations=simulations, flips=flips, seed=seed, alternative=alternative,
                         target_power=target_power, max_paraphrases=max_paraphrases, sets=sets, progress=progress)
    if not isinstance(params, BinaryPlan | RatingPlan):
        raise SurveyError("plan takes a BinaryPlan, RatingPlan, PickPlan, MaxDiffPlan or ChoicePlan (survey.stats.planning) as "
                          f"its parameters; got {type(params).__name__}")
    return _plan(params.delta, scale=params.scale, **params.keywords(), **(source or PlanSource()).keywords(),
                 budgets=budgets, strategies=strategies, designs=designs, alpha=alpha, simulations=simulations,
                 flips=flips, seed=seed, alternative=alternative, target_power=target_power,
                 max_paraphrases=max_paraphrases, sets=sets, progress=progress, sequential=sequential)

def _refuse_for_kinds(params, source: PlanSource | None, sequential) -> None:
    """What a pick or best-worst plan cannot take: a source to read parameters from, the sequential rule."""
    if source is not None and any(v is not None for k, v in source.keywords().items() if k != "method"):
        raise SurveyError(f"scale '{params.scale}' is planned from the parameters given (delta, sigma, rho, "
                          "positions); it reads no estimate or table")
    if sequential is not None:
        raise SurveyError(f"the sequential rule is simulated for Yes/No surveys only; plan scale '{params.scale}' "
                          "without it")


def _check_rating_inputs(scale, mu, kappa, from_estimate, sequential) -> None:
    """What a rating-scale plan cannot take (yet): the binary model's parameters and sources."""
    if mu is not None or kappa is not None:
        raise SurveyError(f"`mu=` and `kappa=` belong to the binary model; scale '{scale}' takes `tau=` (persona "
                          "s.d.) and `cuts=` (cut points) on the latent logit scale")
    if from_estimate is not None:
        raise SurveyError(f"`from_estimate=` reads the binary model's estimate; for scale '{scale}' give `tau=`, "
                          "`sigma=`, `rho=`, or `from_table=` to fit them on rating answers")
    if sequential is not None:
        raise SurveyError(f"the sequential rule is simulated for Yes/No surveys only; plan scale '{scale}' "
                          "without it")


def _rating_params_from_table(scale, from_table, model, message, study) -> tuple[dict, str]:
    """tau, sigma, rho and cuts fitted on one message of a rating table (survey.stats.ordinal_estimate),
    or nothing when no table is given."""
    if from_table is None:
        return {}, "given"
    from survey.stats.ordinal_estimate import category_counts, estimate_ordinal

    if not message:
        raise SurveyError("`from_table=` needs `message=`: the message whose answers are fitted")
    df, source = plan_table(from_table, study)
    models = models_in(df)
    if model is None and len(models) > 1:
        raise SurveyError(f"{source} has several models ({', '.join(models)}); choose one with `model=`")
    mdl = model or models[0]
    require_models(df, [mdl])
    scales = set(df.loc[(df["model"] == mdl) & (df["message"] == message), "scale"].astype(str)) \
        if "scale" in df.columns else set()
    if scales and scales != {scale}:
        raise SurveyError(f"{source}: the answers of message {message} are on scale {', '.join(sorted(scales))}; "
                          f"plan with that `scale=`, not '{scale}'")
    view = simulation_view(scale)
    low, high = int(view.low), int(view.high)
    est = estimate_ordinal(category_counts(df, mdl, message, low, high), n_boot=0)
    clamped = f"; {'; '.join(n for n in est.notes if n.startswith('clamped'))}" if est.clamped else ""
    # a point nobody chose ties two cuts, and sigma = 0 leaves rho undefined: both are edges the simulation
    # cannot take, so nudge the tie apart (1e-6 logits) and read an undefined rho as 0
    cuts = np.maximum.accumulate(np.asarray(est.cuts)) + 1e-6 * np.arange(len(est.cuts))
    rho = est.rho if np.isfinite(est.rho) else 0.0
    return ({"tau": est.tau, "sigma": est.sigma, "rho": rho, "cuts": [float(c) for c in cuts]},
            f"estimated by ordinal moments from {source} (model {mdl}, message {message}){clamped}")
