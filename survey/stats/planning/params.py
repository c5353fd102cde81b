"""Where a power plan's fitted values come from. What it simulates is a kind's power model, one per kind in its
folder (survey.kinds.binary.power.BinaryPlan, survey.kinds.ordinal.power.RatingPlan, ...).

    plan(BinaryPlan(delta=0.4, rho=0.3), budgets=[500, 1000], target_power=0.8)
    plan(RatingPlan(delta=0.5, scale="likert5", tau=1.0), designs=["30,10,5"])
    plan(BinaryPlan(delta=0.4), source=PlanSource(from_table=df, message="A"))

A parameter left None is read from ``source`` (a `survey estimate --json` file or result, or a table to
fit), else takes the model's default; a given one overrides the one read (survey.stats.planning.planner).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PlanSource:
    """Where parameters not given are read: ``from_estimate`` (a `survey estimate --json` file, its document
    or result) or ``from_table`` (a long table, table file or store to fit by ``method``); ``model`` and
    ``message`` pick one, ``study`` one study of a store."""

    from_estimate: object = None
    from_table: object = None
    model: str | None = None
    message: str | None = None
    study: str | None = None
    method: str = "moments"

    def keywords(self) -> dict:
        return {"from_estimate": self.from_estimate, "from_table": self.from_table, "model": self.model,
                "message": self.message, "study": self.study, "method": self.method}


__all__ = ["PlanSource"]
