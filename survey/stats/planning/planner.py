"""What `survey plan` computes, as one Python call: the model parameters (given, from an estimate, or
fitted on a table), the power of each test at every design, the best strategy per budget, and the
cheapest design reaching a target power.

    res = plan(BinaryPlan(delta=0.4, rho=0.3), budgets=[500, 1000], target_power=0.8)  # survey.kinds.binary.power
    res.cheapest, res.to_dict()  # the dict is what `survey plan --json` prints

The parameters may come from files (a `survey estimate --json` output, a long table or a store):
reading them is this module's only I/O; the simulation itself is pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from survey.common.display import Display
from survey.common.options import options_from
from survey.data.plan_inputs import PARAMS, estimate_rows, pick_estimate, plan_table_of
from survey.errors import SurveyError, validated
from survey.stats import ab_tests
from survey.stats.ab_tests import DECISION_TEST, label
from survey.stats.beta_logit_estimate import EstimateResult, fit_beta_logit
from survey.stats.planning.model import PowerModel
from survey.stats.planning.params import PlanSource
from survey.stats.planning.paraphrases import ParaphraseLimit, paraphrase_limit
from survey.stats.planning.power import DEFAULT_BUDGETS, PowerResult, designs_for, estimate_power, mc_error
from survey.stats.planning.search import PlanNumbers, Progress, design_requests, no_progress, recommend
from survey.stats.sequential import make_design


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
        df, mdl, source = plan_table_of(from_table, model, message, study)
        res = fit_beta_logit(df, mdl, message, method=method)
        fell_back = f"; {res.note}" if res.method != method else ""
        return ({p: float(getattr(res, p)) for p in PARAMS},
                f"estimated by {res.method} from {source} (model {mdl}, message {message}){fell_back}")
    return {}, "given"


@dataclass(repr=False)
class PlanResult(Display):
    """The plan of any kind: the power of each test its model simulates at every design, the best strategy per
    budget, the cheapest design reaching ``target_power``; ``model`` the kind's PowerModel
    (survey.stats.planning.model), ``source`` where its parameters came from."""

    model: PowerModel
    source: str
    alpha: float
    simulations: int
    seed: int
    alternative: str
    flips: int
    results: list[PowerResult]
    best: list[dict]  # the best strategy at each budget, for the deciding test
    cheapest: dict | None  # the fewest-query design reaching target_power
    target_power: float | None
    warnings: list[str] = field(default_factory=list)
    paraphrases: ParaphraseLimit | None = None  # the most paraphrases the sets hold, when known
    sequential: list[dict] | None = None  # per design: the sequential rule's power and expected queries
    family: dict | None = None  # several questions: the family's power with and without the adjustment

    @property
    def params(self):
        """The model's parameters (ModelParams, OrdinalParams, or a kind's plan object)."""
        return self.model.params

    @property
    def test_label(self) -> str | None:
        return self.model.test_label

    def display_parts(self):
        rows = [self.model.row(r) for r in self.results]
        c = self.cheapest
        cheapest = (f"; cheapest reaching power {self.target_power}: n,m,r = {c['n']},{c['m']},{c['r']}" if c else "")
        return f"Power plan: {self.describe()}{cheapest}", rows, self.warnings

    def describe(self) -> str:
        return f"{self.model.describe()}; {self.simulations} simulated surveys per design"

    def to_dict(self) -> dict:
        return {"params": {**self.model.summary(), "source": self.source},
                "alpha": self.alpha, "simulations": self.simulations, "seed": self.seed,
                "alternative": self.alternative, "flips": self.flips, "mc_error": mc_error(self.simulations),
                **self.model.result_fields(self),
                "results": [r.to_dict() for r in self.results], "best": self.best,
                "cheapest": self.cheapest, "target_power": self.target_power,
                "warnings": self.warnings, "plot": None, **({"family": self.family} if self.family else {})}


@dataclass(frozen=True)
class PlanOptions:
    """What plan() searches and how it simulates, checked once when built: the designs (``budgets``,
    ``strategies``, explicit ``designs``), the simulation (``alpha``, ``simulations``, ``flips``, ``seed``,
    ``alternative``), the goal (``target_power``), the paraphrase limit (``max_paraphrases``, ``sets``) and an
    optional ``sequential`` rule. ``plan(model, alpha=0.01)`` and ``plan(model, options=PlanOptions(alpha=0.01))``
    are the same call."""

    budgets: Iterable[int] | None = None
    strategies: Iterable[str] | None = None
    designs: Iterable[str | tuple] = ()
    alpha: float = 0.05
    simulations: int = 1000
    flips: int = 1000
    seed: int = 0
    alternative: str = "two-sided"
    target_power: float | None = None
    max_paraphrases: int | None = None
    sets: Mapping[str, int] | None = None
    sequential: object = None
    questions: int | None = None  # several questions: plan the family's power too (survey.stats.planning.family)
    question_correlation: float = 0.5
    family: str = "holm"
    _numbers: PlanNumbers | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        for name in ("budgets", "strategies", "designs"):  # an iterator is read once, here
            if getattr(self, name) is not None:
                object.__setattr__(self, name, tuple(getattr(self, name)))
        # checked once, here (dataclasses.replace builds a new instance, which checks its own)
        object.__setattr__(self, "_numbers", validated(
            PlanNumbers, alpha=self.alpha, simulations=self.simulations, flips=self.flips, seed=self.seed,
            budgets=list(DEFAULT_BUDGETS if self.budgets is None else self.budgets), target_power=self.target_power))
        if self.questions is not None:  # several questions: refused before anything is simulated
            from survey.stats.family import check_family

            check_family(self.family)
            if isinstance(self.questions, bool) or not isinstance(self.questions, int) or self.questions < 2:
                raise SurveyError(f"questions: a family needs at least 2 questions; got {self.questions!r}")
            low = -1 / (self.questions - 1)  # the least correlation K questions can share pairwise
            if not low <= self.question_correlation <= 1:
                raise SurveyError(f"question correlation (--question-correlation) must lie in [{low:.3g}, 1] for "
                                  f"{self.questions} questions; got {self.question_correlation}")

    def numbers(self) -> PlanNumbers:
        """The numeric options, checked when the options were built (a bad one is a SurveyError naming it)."""
        return self._numbers


def plan(params: PowerModel, *, source: PlanSource | None = None, progress: Progress = no_progress,
         options: PlanOptions | None = None, **keywords) -> PlanResult:
    """Simulated power of each test for allocation strategies n:m:r at budgets N = prompts·nmr, and explicit
    designs ("n,m,r" or (n, m, r)); with ``target_power``, also the cheapest design reaching it.

    ``params``: what is simulated, a kind's power model (survey.stats.planning.model): BinaryPlan
    (survey.kinds.binary.power), RatingPlan (survey.kinds.ordinal.power), PickPlan, MaxDiffPlan, ChoicePlan
    (survey.kinds.<name>.power, whose designs cost k·nmr, v·nmr or 2nmr queries and whose power is their
    deciding test's), or your kind's. ``source``: where the parameters not given are read (PlanSource; Yes/No
    reads an estimate or fits a table, a rating scale fits a table; see load_params). Without strategies and
    designs, the eight default strategies are planned at ``budgets`` (default 200..10000). The recommendations
    stay within ``max_paraphrases`` per message, or the smallest size in ``sets`` (perturbation set name ->
    paraphrases it holds); without either, those that exceed the paraphrases in the source table or estimate
    are flagged (survey.stats.planning.paraphrases). ``sequential`` (Yes/No only): a SequentialDesign (or its
    fields as a dict): each design's m becomes its maximum pairs, and the result's ``sequential`` rows give the
    rule's power and expected queries beside the fixed design's (survey.stats.sequential.planning). Those
    settings are PlanOptions' fields, given as keywords or as ``options``."""
    try:
        resolve = params.resolve
    except AttributeError:
        raise SurveyError("plan takes a kind's power model (BinaryPlan, RatingPlan, PickPlan, MaxDiffPlan, ChoicePlan) "
                          f"as its parameters; got {type(params).__name__}") from None
    request = options_from(PlanOptions, options, keywords, where="plan")
    opts, seed, alternative, sequential = request.numbers(), request.seed, request.alternative, request.sequential
    model, where = resolve(source, sequential)
    if request.questions is not None and not hasattr(model, "model_params"):
        raise SurveyError(f"questions: the family's power is simulated for Yes/No questions (the Beta-logit model); "
                          f"scale '{model.scale}' is planned one question at a time for now")
    triples, strategy_list = design_requests(request.strategies, request.designs)
    model.check_size(opts.budgets, triples)
    given = (source or PlanSource()).keywords()
    limit = paraphrase_limit(request.max_paraphrases, request.sets,
                             *(given[k] for k in ("from_estimate", "from_table", "model", "message", "study")))
    grid = designs_for(strategy_list, opts.budgets, triples, model.prompts)
    flips = model.flips_for(opts.flips, opts.alpha)
    model.check_work(grid, opts.simulations, flips)
    with progress("simulating designs", len(grid)) as advance:
        results = estimate_power(model, grid, opts.simulations, opts.alpha, seed, alternative, flips,
                                 progress=advance)
    seq_rows = None
    if sequential is not None:
        seq_design = make_design(sequential, alpha=opts.alpha, alternative=alternative)
        with progress("simulating the sequential rule", len(grid)) as advance:
            seq_rows = model.sequential_rows(grid, seq_design, opts.simulations, seed, advance)
    family = _family_plan(model, grid, request, opts, seed, flips) if request.questions is not None else None
    opts = opts.model_copy(update={"flips": flips})
    cheapest, best, warnings = recommend(model, results, limit, opts, seed, alternative, progress)
    invalid = [label(t) for t in results[0].power if not ab_tests.get(t).valid_when_rho_positive]
    if model.rho > 0 and invalid:
        warnings.insert(0, f"rho = {model.rho:g} > 0: the {' and '.join(invalid)} tests are INVALID (oversized); "
                        f"their 'power' includes false positives. Plan with the {label(DECISION_TEST)} test.")
    return PlanResult(model, where, opts.alpha, opts.simulations, seed, alternative, flips, results, best, cheapest,
                      opts.target_power, warnings, limit, seq_rows, family)


def _family_plan(model, grid, request: PlanOptions, opts, seed: int, flips: int) -> dict:
    """Several questions of the same effect (survey.stats.planning.family): per design the primary's power at
    alpha alone and each question's with and without the family's adjustment."""
    from survey.stats.planning.family import family_power

    rows = family_power(model.model_params, request.questions, [(d.n, d.m, d.r) for d in grid], opts.simulations,
                        opts.alpha, seed, request.question_correlation, request.family, flips)
    return {"questions": request.questions, "method": request.family, "correlation": request.question_correlation,
            "rows": rows}
