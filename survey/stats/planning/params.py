"""What a power plan simulates, one parameters object per response kind, and where fitted values come from.

    plan(BinaryPlan(delta=0.4, rho=0.3), budgets=[500, 1000], target_power=0.8)
    plan(RatingPlan(delta=0.5, scale="likert5", tau=1.0), designs=["30,10,5"])
    plan(BinaryPlan(delta=0.4), source=PlanSource(from_table=df, message="A"))

A parameter left None is read from ``source`` (a `survey estimate --json` file or result, or a table to
fit), else takes the model's default; a given one overrides the one read (survey.stats.planning.planner).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class BinaryPlan:
    """Yes/No answers from the Beta-logit model of Helm & Priebe (2026): ``delta`` the logit shift of B over A
    (positive: B more often Yes); mu, kappa, sigma, rho default to 0.5, 4, 1, 0.3."""

    delta: float
    mu: float | None = None
    kappa: float | None = None
    sigma: float | None = None
    rho: float | None = None
    scale = "binary"

    def keywords(self) -> dict:
        return {"mu": self.mu, "kappa": self.kappa, "sigma": self.sigma, "rho": self.rho}


@dataclass(frozen=True)
class RatingPlan:
    """Rating-scale answers from the ordinal model: ``scale`` ("likert5", "rating0-10"), ``delta`` the latent
    logit shift of B over A, ``tau`` the persona s.d. (default 1), sigma and rho as for Yes/No, ``cuts`` the
    K-1 cut points (default logit(c/K))."""

    delta: float
    scale: str = "likert5"
    tau: float | None = None
    sigma: float | None = None
    rho: float | None = None
    cuts: Sequence[float] | None = None

    def keywords(self) -> dict:
        return {"tau": self.tau, "sigma": self.sigma, "rho": self.rho, "cuts": self.cuts}


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


__all__ = ["BinaryPlan", "PlanSource", "RatingPlan"]
