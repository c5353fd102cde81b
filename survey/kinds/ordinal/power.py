"""Rating scales' power model (survey.stats.planning.plan): the ordinal model (survey.kinds.ordinal.model),
every A/B test planning simulates on the mean score per cell, parameters given or fitted on one message of a
rating table (survey.kinds.ordinal.estimate)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from survey.data.plan_inputs import plan_table_of
from survey.errors import SurveyError
from survey.kinds.ordinal.estimate import category_counts, estimate_ordinal
from survey.kinds.ordinal.model import DELTA_MEANING_ORDINAL, OrdinalParams, simulate_score_sums
from survey.kinds.ordinal.table import scale_params, simulation_view
from survey.stats.planning.model import PowerModelBase, refuse_sequential
from survey.stats.planning.power import simulate_pvalues

SEGMENT_DEFAULTS = {"tau": 1.0, "sigma": 1.0, "rho": 0.3}


@dataclass(frozen=True)
class RatingPlan(PowerModelBase):
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

    def resolve(self, source, sequential) -> tuple[RatingPower, str]:
        """tau, sigma, rho and cuts not given fitted on a table (``source.from_table``), then the model."""
        if not simulation_view(self.scale).ordered:
            raise SurveyError(f"scale '{self.scale}' uses the Beta-logit model (mu, kappa): plan it with a "
                              "BinaryPlan")
        if source is not None and source.from_estimate is not None:
            raise SurveyError(f"`from_estimate=` reads the binary model's estimate; for scale '{self.scale}' give "
                              "`tau=`, `sigma=`, `rho=`, or `from_table=` to fit them on rating answers")
        refuse_sequential(self.scale, sequential)
        fitted, where = ({}, "given") if source is None or source.from_table is None else fit_from_table(
            self.scale, source.from_table, source.model, source.message, source.study)
        fitted.update({k: v for k, v in self.keywords().items() if v is not None})
        return RatingPower(scale_params(self.scale, delta=self.delta, **fitted)), where

    def segment_model(self, source) -> tuple[dict, str]:
        if source is not None and (source.from_estimate is not None or source.from_table is not None):
            raise SurveyError("a segment plan reads fitted parameters for Yes/No surveys only; for a rating scale "
                              "give `tau=`, `sigma=`, `rho=`")
        if self.cuts is not None:
            raise SurveyError("a segment plan simulates a rating scale with its default cut points logit(c/K); "
                              "drop `cuts=`")
        given = {"tau": self.tau, "sigma": self.sigma, "rho": self.rho}
        return {k: (SEGMENT_DEFAULTS[k] if v is None else float(v)) for k, v in given.items()}, "given"

    def pvalues(self, *args, **kwargs):
        raise SurveyError("a RatingPlan is resolved into its model before it is simulated (RatingPlan.resolve)")


@dataclass(frozen=True)
class RatingPower(PowerModelBase):
    """The ordinal model with every parameter known: what a rating-scale plan simulates."""

    ordinal: OrdinalParams

    @property
    def params(self) -> OrdinalParams:
        return self.ordinal

    @property
    def scale(self) -> str:
        return self.ordinal.scale

    @property
    def rho(self) -> float:
        return self.ordinal.rho

    def pvalues(self, n, m, r, simulations, rng, alternative="two-sided", flips=1000, exact_max_m=12):
        return simulate_pvalues(self.ordinal, n, m, r, simulations, rng, alternative, flips, exact_max_m,
                                draw=simulate_score_sums, points=self.ordinal.points)

    def summary(self) -> dict:
        return self.ordinal.summary()

    def describe(self) -> str:
        p = self.ordinal
        cuts = ", ".join(f"{c:.2f}" for c in p.cut_points)
        return (f"{p.scale}: tau={p.tau:g}, sigma={p.sigma:g}, rho={p.rho:g}, delta={p.delta:g} (B over A, "
                f"latent logit), cuts {cuts}")

    def result_fields(self, result) -> dict:
        return {"delta_meaning": DELTA_MEANING_ORDINAL,
                "max_paraphrases": result.paraphrases.to_dict() if result.paraphrases else None,
                "sequential": result.sequential}


def fit_from_table(scale, from_table, model, message, study) -> tuple[dict, str]:
    """tau, sigma, rho and cuts fitted on one message of a rating table (survey.kinds.ordinal.estimate)."""
    df, mdl, source = plan_table_of(from_table, model, message, study)
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


__all__ = ["RatingPlan", "RatingPower", "fit_from_table"]
