"""What a power plan simulates, whatever the kind: one protocol, implemented by every kind's power model (its
manifest's ``power`` part, survey.common.kinds) and read by the one planning path (survey.stats.planning.plan).

    model, where = BinaryPlan(delta=0.4).resolve(source, sequential)   # parameters read from a source if asked
    model.pvalues(n, m, r, simulations, rng)                          # p-values of the tests it plans, per survey
    model.summary(), model.describe()                                 # for the plan's JSON and its title

A kind's plan object (BinaryPlan, RatingPlan, PickPlan, ...) resolves into the model that is simulated: itself
when every parameter is given (pick, best-worst, forced choice), or a model whose parameters were read from an
estimate or fitted on a table (Yes/No, rating scales). ``PowerModelBase`` holds the defaults every model shares
(two messages, every test planning simulates, no source and no sequential rule).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from survey.common.limits import PLAN_BUDGET_MAX, WHY, check_simulation_work
from survey.errors import SurveyError
from survey.stats.ab_tests import ByTest


class PowerModel(Protocol):
    """A kind's model of the surveys a plan simulates."""

    scale: str
    prompts: int  # queries per persona, paraphrase and replicate (2 for two messages)

    def resolve(self, source, sequential) -> tuple[PowerModel, str]:
        """(the model to simulate, where its parameters came from); refuses what it cannot take."""

    def pvalues(self, n: int, m: int, r: int, simulations: int, rng: np.random.Generator,
                alternative: str = "two-sided", flips: int = 1000, exact_max_m: int = 12) -> ByTest:
        """p-values of each test it plans, on ``simulations`` surveys of design (n, m, r)."""

    def summary(self) -> dict:
        """Its parameters, for the plan's JSON."""

    def describe(self) -> str:
        """Its parameters in words, for the plan's title."""


class PowerModelBase:
    """The defaults of a PowerModel: two messages, every test of survey.stats.ab_tests that planning simulates,
    parameters given (no source), no sequential rule, no segment plan."""

    prompts = 2
    test_label: str | None = None  # the tests' words for tables; None: the deciding test's label

    @property
    def params(self):
        """What the plan's result reports as its parameters (the model itself unless it wraps a fitted one)."""
        return self

    def resolve(self, source, sequential) -> tuple[PowerModelBase, str]:
        if source is not None and any(v is not None for k, v in source.keywords().items() if k != "method"):
            raise SurveyError(f"scale '{self.scale}' is planned from the parameters given (delta, sigma, rho, "
                              "positions); it reads no estimate or table")
        refuse_sequential(self.scale, sequential)
        return self, "given"

    def flips_for(self, flips: int, alpha: float) -> int:
        """The random sign vectors the deciding test needs at ``alpha`` (Holm over pairs needs more)."""
        return flips

    def check_size(self, budgets: list[int], triples: list[tuple]) -> None:
        """Refuse budgets and designs past PLAN_BUDGET_MAX queries."""
        for budget in budgets:
            if budget > PLAN_BUDGET_MAX:
                raise SurveyError(f"`budget={budget:,}` is above {PLAN_BUDGET_MAX:,} queries, the most a plan "
                                  f"simulates ({WHY['budget']})")
        for n, m, r in triples:
            if self.prompts * n * m * r > PLAN_BUDGET_MAX:
                raise SurveyError(f"design {n},{m},{r} costs {self.prompts * n * m * r:,} queries, above the "
                                  f"{PLAN_BUDGET_MAX:,} a plan simulates ({WHY['budget']})")

    def check_work(self, grid, simulations: int, flips: int, exact_max_m: int = 12) -> None:
        """Refuse a grid whose simulation would take more than about a minute."""
        distinct = {(d.n, d.m, d.r) for d in grid}
        work = simulations * sum(n * m * r + (flips * m if m > exact_max_m else 0) for n, m, r in distinct)
        check_simulation_work(work, f"{simulations} simulations x {len(distinct)} designs x (answers + flips x m)",
                              "lower `simulations=`, `flips=` or the budgets")

    def row(self, result) -> dict:
        """One design's row in the plan's table: its queries and the power of each test."""
        d = result.design
        return {"strategy": d.strategy, "n,m,r": f"{d.n},{d.m},{d.r}", "queries": d.budget,
                **{t: float(v) for t, v in result.power.items()}}

    def result_fields(self, result) -> dict:
        """What this kind adds to the plan's JSON."""
        return {}

    def sequential_rows(self, grid, design, simulations: int, seed: int, progress) -> list[dict]:
        raise SurveyError(f"the sequential rule is simulated for Yes/No surveys only; plan scale '{self.scale}' "
                          "without it")

    def segment_model(self, source) -> tuple[dict, str]:
        """(the keywords of survey.stats.segments.simulate_segment_cells, their words) for a segment plan."""
        raise SurveyError(f"scale '{self.scale}' has no segment plan: its kind has no segment simulator "
                          f"(plan_segments got a {type(self).__name__})")

    def segment_delta(self) -> float:
        """The effect every segment of a segment plan has: the latent shift of B over A (positive favours B)."""
        return float(self.delta)

    def segment_draws(self, replicates: int) -> int | None:
        """Random draws per (persona, pair) cell of the kind's segment simulator, to bound a batch's memory
        (None: one per point of the scale)."""
        return None


def refuse_sequential(scale: str, sequential) -> None:
    if sequential is not None:
        raise SurveyError(f"the sequential rule is simulated for Yes/No surveys only; plan scale '{scale}' "
                          "without it")


__all__ = ["PowerModel", "PowerModelBase", "refuse_sequential"]
