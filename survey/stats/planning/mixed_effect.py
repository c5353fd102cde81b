"""The mixed-subjects plan of a study's target, priced per model query: one message's mean, a within-subjects
effect or a between-subjects effect (two arms), built on survey.stats.planning.mixed_subjects (Broska, Howes &
van Loon, "The Mixed Subjects Design", 2025; PPI++ power tuning, Angelopoulos, Duchi & Zrnic 2024).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from survey.common.display import Display
from survey.common.formatting import finite
from survey.errors import SurveyError
from survey.stats.planning.mixed_subjects import MixedSubjectsPlan, check_finite, plan_mixed_subjects
from survey.stats.ppi import MIN_HUMANS

DESIGNS = ("mean", "within", "between")


@dataclass(repr=False)
class MixedEffectPlan(Display):
    """The cheapest mix for one message's mean, a within-subjects effect or a between-subjects effect, in humans,
    personas and model queries, from a per-query cost (``plan``: the underlying per-arm MixedSubjectsPlan)."""

    design: str
    plan: MixedSubjectsPlan
    queries_per_persona: float
    cost_query: float
    basis: str = ""  # where r and sigma come from: stated (and which defaulted) or the pilot's model
    warnings: list = field(default_factory=list)  # what the plan's simplifications miss (a pilot's)
    target: dict = field(default_factory=dict)  # as given: half_width, or effect and power; and alpha
    r_given: float | None = None  # the r stated or measured, before a negative one is planned as 0

    @property
    def arms(self) -> int:
        return 2 if self.design == "between" else 1

    @property
    def humans(self) -> int:
        return self.arms * self.plan.n

    @property
    def queries(self) -> int:
        return int(math.ceil(self.plan.N * self.queries_per_persona))

    @property
    def cost(self) -> float:
        return self.arms * self.plan.cost

    @property
    def humans_only(self) -> int:
        return self.arms * self.plan.humans_only_n

    @property
    def note(self) -> str:
        text = {"mean": "one message's mean",
                "within": "the within-subjects effect A − B (each human answers both; sigma is the s.d. of the "
                          "paired difference)",
                "between": "the between-subjects effect A − B: two arms of equal size, each reaching the effect's "
                           "s.e. over √2; every persona answers both messages, which is planned as if the arms "
                           "had their own personas (conservative when the personas' predictions for A and B "
                           "correlate positively, as they usually do; with negatively correlated predictions and "
                           "costly personas the s.e. can exceed the plan by up to about 10%)"}
        negative = ("" if self.r_given is None or self.r_given >= 0 else
                    f"r = {self.r_given:+.3g} is planned as 0: the tuned estimator ignores predictions that run "
                    "against the answers. ")
        return f"target: {text[self.design]}; {self.goal}. {negative}{self.plan.note}"

    @property
    def goal(self) -> str:
        """The target restated: a half-width at a level, or an effect with a power."""
        alpha = self.plan.alpha
        if self.target.get("half_width") is not None:
            return f"a {100 * (1 - alpha):.4g}% interval of half-width {self.target['half_width']:g}"
        return (f"an effect of {self.target.get('effect', float('nan')):g} detected with power "
                f"{self.target.get('power', float('nan')):g} (two-sided, alpha {alpha:g})")

    def display_parts(self):
        p = self.plan
        title = (f"{self.humans} humans + {self.plan.N} personas ({self.queries} model queries), cost "
                 f"{self.cost:.4g}; humans only: {self.humans_only}, cost {self.arms * p.humans_only_cost:.4g}")
        rows = [{"design": self.design, "humans": self.humans, "personas": p.N, "queries": self.queries,
                 "half-width": p.half_width * (math.sqrt(2) if self.arms == 2 else 1), "r": p.r,
                 "worth per human": p.worth_per_human, "saving": p.saving}]
        return title, rows, [self.note, *self.warnings] + ([f"basis: {self.basis}"] if self.basis else [])

    def to_dict(self) -> dict:
        p = self.plan
        return {"design": self.design, "humans": self.humans, "humans_per_arm": p.n, "personas": p.N,
                "queries": self.queries, "queries_per_persona": finite(self.queries_per_persona),
                "cost": finite(self.cost), "cost_query": self.cost_query, "humans_only": self.humans_only,
                "humans_only_cost": finite(self.arms * p.humans_only_cost), "saving": finite(p.saving),
                "half_width": finite(p.half_width * (math.sqrt(2) if self.arms == 2 else 1)),
                "effective_humans": finite(self.arms * p.effective_humans), "worth_per_human": finite(p.worth_per_human),
                "r": p.r, "sigma": p.sigma, "sigma_f": p.sigma_f, "cost_human": p.cost_human, "alpha": p.alpha,
                "target": {**self.target, "alpha": p.alpha}, "basis": self.basis, "warnings": list(self.warnings),
                "note": self.note}


class MixedEffectPlans(Display, dict):
    """A pilot's plans, model -> MixedEffectPlan (survey.plan_humans with a pilot): a dict that shows itself."""

    def display_parts(self):
        rows = [{"model": m, "r": p.plan.r, "humans": p.humans, "personas": p.plan.N, "queries": p.queries,
                 "cost": p.cost, "humans alone (cost)": f"{p.humans_only} ({p.arms * p.plan.humans_only_cost:.4g})",
                 "saving": f"{p.plan.saving:.0%}"} for m, p in self.items()]
        notes = [next(iter(self.values())).note] if self else []
        return (f"the cheapest mix of humans and persona queries for {len(self)} model(s) of the pilot", rows,
                [f"{m}: {p.basis}" for m, p in self.items()] + notes)

    def to_dict(self) -> dict:
        return {m: p.to_dict() for m, p in self.items()}


@dataclass(frozen=True)
class MixedPlanTarget:
    """What a mixed-subjects plan must reach and at what prices, checked once: a ``half_width`` (or an ``effect``
    detected with ``power``) at level ``alpha``, a human costing ``cost_human`` and a model query ``cost_query``,
    with at most ``max_personas`` personas (None: no cap)."""

    cost_human: float
    cost_query: float
    half_width: float | None = None
    effect: float | None = None
    power: float = 0.8
    alpha: float = 0.05
    max_personas: int | None = None

    def __post_init__(self):
        check_finite(cost_query=self.cost_query)
        if not self.cost_query >= 0:
            raise SurveyError(f"a model query costs >= 0; got {self.cost_query}")


def plan_mixed_effect(design: str = "mean", *, r: float, target: MixedPlanTarget, queries_per_persona: float = 1.0,
                      sigma: float = 0.5, sigma_f: float | None = None, basis: str = "", warnings=(),
                      scale_range: float | None = None, scale: str = "") -> MixedEffectPlan:
    """plan_mixed_subjects for a study's target, priced per model query: a persona's prediction costs
    ``queries_per_persona`` queries (paraphrases x replicates, of both messages for an effect).

    ``design``: "mean" (one message), "within" (paired A − B: ``sigma`` is the s.d. of the difference) or
    "between" (two arms of equal size, each planned to the effect's s.e. over √2, the personas' cost split over
    the arms since every persona answers both messages). ``target``: the half-width or effect to reach and the
    prices (MixedPlanTarget). ``sigma`` defaults to 0.5, the largest s.d. of a Yes/No answer; ``sigma_f`` (the
    predictions' s.d.) plans lambda's cap at 1 (mixed_subjects_se). ``scale_range``: the answers' highest minus
    lowest score (1 for Yes/No; ``scale`` names it), when known: a mean, or a difference of means, lies within
    it, so an effect or half-width as large as the range (or a sigma above it) is refused rather than planned
    with a handful of humans. ``basis`` (where r and sigma come from) and ``warnings`` are carried to the result.
    """
    if design not in DESIGNS:
        raise SurveyError(f"design must be one of {', '.join(DESIGNS)}; got '{design}'")
    check_finite(queries_per_persona=queries_per_persona)
    if not queries_per_persona > 0:
        raise SurveyError(f"a persona's prediction takes a positive number of queries (got {queries_per_persona}), "
                          f"each costing >= 0 (got {target.cost_query})")
    half_width, effect, power = target.half_width, target.effect, target.power
    _check_on_scale(scale_range, scale, half_width=half_width, effect=effect, sigma=sigma)
    between = design == "between"
    per_arm = math.sqrt(2) if between else 1.0
    plan = plan_mixed_subjects(r=r, cost_human=target.cost_human,
                               cost_persona=target.cost_query * queries_per_persona / (2 if between else 1),
                               sigma=sigma, half_width=None if half_width is None else half_width / per_arm,
                               effect=None if effect is None else effect / per_arm, power=power, alpha=target.alpha,
                               max_personas=target.max_personas, sigma_f=sigma_f)
    goal = {"half_width": half_width} if half_width is not None else {"effect": effect, "power": power}
    warnings = list(warnings)
    if plan.n < MIN_HUMANS:
        warnings.append(f"the plan has {plan.n} humans{' per arm' if between else ''}: prediction-powered intervals "
                        f"were checked by simulation from {MIN_HUMANS} humans{' per arm' if between else ''} on "
                        f"(below, they may cover less than they say); plan at least {MIN_HUMANS}")
    return MixedEffectPlan(design, plan, float(queries_per_persona), float(target.cost_query), basis, warnings,
                           goal, float(r))


def _check_on_scale(scale_range, scale: str, *, half_width, effect, sigma) -> None:
    """A target the answers' scale cannot hold: a mean or a difference of means lies within the scale's range."""
    if scale_range is None:
        return
    name = f"a {scale} answer" if scale else "these answers"
    share = scale == "Yes/No"  # a Yes/No mean is a share: its units are easily mistaken for percentage points
    if effect is not None and math.isfinite(effect) and abs(effect) >= scale_range:
        raise SurveyError(f"an effect on {name} (scores {scale_range:g} apart at most) lies strictly between "
                          f"-{scale_range:g} and {scale_range:g}; got {effect:g}: give the difference in the "
                          "answers' units" + (" (e.g. 0.1 for 10 percentage points)" if share else ""))
    if half_width is not None and math.isfinite(half_width) and half_width >= scale_range:
        raise SurveyError(f"a half-width of {half_width:g} on {name} (scores {scale_range:g} apart at most) is "
                          "wider than the scale: give it in the answers' units"
                          + (" (e.g. 0.05 for 5 percentage points)" if share else ""))
    if sigma is not None and math.isfinite(sigma) and sigma > scale_range:
        raise SurveyError(f"sigma {sigma:g} is larger than {name} can vary (scores {scale_range:g} apart at most): "
                          "give the s.d. in the answers' units")


__all__ = ["DESIGNS", "MixedEffectPlan", "MixedEffectPlans", "MixedPlanTarget", "plan_mixed_effect"]
