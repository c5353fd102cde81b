"""What every power plan shares, whatever kind it simulates: its numeric options, the designs asked for, and the
recommendations (the cheapest design reaching a target power, the best strategy per budget)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext

from pydantic import BaseModel, ConfigDict, Field

from survey.common.limits import Alpha, Flips, Seed
from survey.stats.ab_tests import DECISION_TEST, label
from survey.stats.planning.paraphrases import ParaphraseLimit, paraphrase_warnings, small_m_warnings, within
from survey.stats.planning.power import (
    DEFAULT_STRATEGIES,
    PowerResult,
    best_per_budget,
    cheapest_design,
    parse_design,
    parse_strategy,
)

# progress(label, total) -> a context manager yielding advance(k=1); total None: no known count
Progress = Callable[[str, int | None], AbstractContextManager]


def no_progress(label: str, total: int | None) -> AbstractContextManager:
    return nullcontext(lambda k=1: None)


class PlanNumbers(BaseModel):
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


def recommend(params, results: list[PowerResult], limit: ParaphraseLimit | None, opts: PlanNumbers, seed: int,
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
    warnings += small_m_warnings((r.design.m for r in results), opts.alpha, alternative,
                                 getattr(params, "holm_family", None))
    warnings += paraphrase_warnings(limit, best, cheapest)
    return cheapest, best, warnings


__all__ = ["PlanNumbers", "Progress", "design_requests", "no_progress", "recommend"]
