"""Yes/No's power model (survey.stats.planning.plan): the Beta-logit model of Helm & Priebe (2026), every A/B test
planning simulates, parameters given or read from a `survey estimate` result or fitted on a table, and the
sequential rule's power beside each fixed design."""

from __future__ import annotations

from dataclasses import dataclass

from survey.errors import SurveyError
from survey.stats.beta_logit import DELTA_MEANING, ModelParams, make_params
from survey.stats.planning.model import PowerModelBase
from survey.stats.planning.planner import load_params
from survey.stats.planning.power import simulate_pvalues
from survey.stats.sequential.planning import sequential_plan

DEFAULTS = {"mu": 0.5, "kappa": 4.0, "sigma": 1.0, "rho": 0.3}


@dataclass(frozen=True)
class BinaryPlan(PowerModelBase):
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

    def resolve(self, source, sequential) -> tuple[BinaryPower, str]:
        """The parameters not given read from ``source`` (survey.stats.planning.load_params), then the model."""
        values, where = load_params(**source.keywords()) if source is not None else ({}, "given")
        values.update({k: v for k, v in self.keywords().items() if v is not None})
        return BinaryPower(make_params(**values, delta=self.delta)), where

    def segment_model(self, source) -> tuple[dict, str]:
        read, where = {}, "given"
        if source is not None and (source.from_estimate is not None or source.from_table is not None):
            read, where = load_params(source.from_estimate, source.from_table, source.model, source.message,
                                      source.study, source.method)
        return {k: (read.get(k, DEFAULTS[k]) if v is None else float(v)) for k, v in self.keywords().items()}, where

    def pvalues(self, *args, **kwargs):
        raise SurveyError("a BinaryPlan is resolved into its model before it is simulated (BinaryPlan.resolve)")


@dataclass(frozen=True)
class BinaryPower(PowerModelBase):
    """The Beta-logit model with every parameter known: what a Yes/No plan simulates."""

    model_params: ModelParams
    scale = "binary"

    @property
    def params(self) -> ModelParams:
        return self.model_params

    @property
    def rho(self) -> float:
        return self.model_params.rho

    def pvalues(self, n, m, r, simulations, rng, alternative="two-sided", flips=1000, exact_max_m=12):
        return simulate_pvalues(self.model_params, n, m, r, simulations, rng, alternative, flips, exact_max_m)

    def summary(self) -> dict:
        return self.model_params.model_dump()

    def describe(self) -> str:
        p = self.model_params
        return (f"mu={p.mu:g}, kappa={p.kappa:g}, sigma={p.sigma:g}, rho={p.rho:g}, "
                f"delta={p.delta:g} (B over A, logit)")

    def result_fields(self, result) -> dict:
        return {"delta_meaning": DELTA_MEANING,
                "max_paraphrases": result.paraphrases.to_dict() if result.paraphrases else None,
                "sequential": result.sequential}

    def sequential_rows(self, grid, design, simulations, seed, progress) -> list[dict]:
        return sequential_plan(self.model_params, grid, design, simulations, seed, progress=progress)


__all__ = ["BinaryPlan", "BinaryPower"]
