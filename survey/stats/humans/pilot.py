"""What a pilot tells the mixed-subjects planner: per model, the correlation r between the humans' answers and
the model's predictions for the same respondents, the answers' s.d. and the queries one persona prediction
costs (survey.stats.planning.mixed_effect.plan_mixed_effect takes them).

Broska, Howes & van Loon, "The Mixed Subjects Design: Treating Large Language Models as (Potentially)
Informative Observations" (Sociological Methods & Research, 2025) plan with r measured on a pilot. For the
within-subjects effect the target is the paired difference D = Y(A) - Y(B), predicted by f(A) - f(B); between
subjects each message's mean is its own PPI mean, so the pilot gives each arm's r and s.d. and the plan takes
the smaller r and the larger s.d. (a conservative plan for both arms). r is Pearson's, unweighted: the pilot
measures how well the model predicts these respondents, not the population's mean.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.display import Display
from survey.common.formatting import finite
from survey.data.humans import HUMAN_PREFIX, Humans
from survey.data.sources import Source
from survey.errors import SurveyError
from survey.stats.humans.compare import pair_in_order
from survey.stats.humans.inputs import (
    model_scores,
    paired_humans,
    population_predictions,
    require_predictions,
)


@dataclass(repr=False)
class PilotMeasure(Display):
    """One model's pilot: r and sigma for the planner, per arm between subjects."""

    model: str
    design: str  # "within" or "between"
    a: str
    b: str
    r: float  # the r the plan uses (between: the smaller arm's)
    sigma: float  # the s.d. the plan uses (between: the larger arm's)
    sigma_f: float  # the predictions' s.d. over every persona (between: the smaller arm's): lambda's cap
    n_humans: int
    queries_per_persona: float  # store rows behind one population persona's predictions of both messages
    arms: dict = field(default_factory=dict)  # between: message -> {"r", "sigma", "sigma_f", "n"}
    prediction_correlation: float | None = None  # between: corr(f(A), f(B)) over the population personas

    @property
    def target(self) -> str:
        return ("the paired effect A − B (r = corr(D, f(A) − f(B)))" if self.design == "within"
                else "each message's mean (r = corr(Y, f) per arm; the plan uses the smaller)")

    def display_parts(self):
        title = (f"pilot {self.model} ({self.design}-subjects, {self.a} vs {self.b}): r = {self.r:+.3f}, "
                 f"sigma = {self.sigma:.3f}, predictions' s.d. {self.sigma_f:.3g}, {self.n_humans} humans")
        rows = [{"message": m, **v} for m, v in self.arms.items()]
        return title, rows, [f"target: {self.target}; one persona prediction of both messages costs "
                             f"{self.queries_per_persona:g} queries"]

    @property
    def warnings(self) -> list[str]:
        """What the plan's simplifications miss on this pilot."""
        rho = self.prediction_correlation
        if rho is not None and rho < 0:
            return [f"the personas' predictions for {self.a} and {self.b} correlate negatively ({rho:+.2f}): "
                    "planning each arm as if it had its own personas is then not conservative (with costly "
                    "personas the s.e. can exceed the plan by up to about 10%)"]
        return []

    def to_dict(self) -> dict:
        return {"model": self.model, "design": self.design, "a": self.a, "b": self.b, "r": finite(self.r),
                "sigma": finite(self.sigma), "sigma_f": finite(self.sigma_f), "n_humans": self.n_humans,
                "prediction_correlation": finite(self.prediction_correlation), "warnings": self.warnings,
                "queries_per_persona": finite(self.queries_per_persona), "target": self.target,
                "arms": {m: {k: finite(x) if isinstance(x, float) else x for k, x in v.items()}
                         for m, v in self.arms.items()}}


def _r(y, f) -> float:
    y, f = np.asarray(y, dtype=float), np.asarray(f, dtype=float)
    if len(y) < 3 or np.ptp(y) == 0 or np.ptp(f) == 0:
        return 0.0  # no measurable correlation: planned as an uninformative model (the humans alone)
    return float(np.corrcoef(y, f)[0, 1])


def pilot_measures(source: Source, humans: Humans, a: str | None = None, b: str | None = None) -> dict:
    """model -> PilotMeasure, from a Source (a store's) whose models also answered as each respondent."""
    table = source.table
    a, b = pair_in_order(source, humans, a, b)
    design = humans.design(a, b)
    if design == "mixed":
        raise SurveyError(f"some respondents saw both '{a}' and '{b}', others one: a pilot needs one design")
    out = {}
    for model in pd.unique(table["model"].astype(str)):
        scores = model_scores(table, model)
        pop = population_predictions(scores, a, b)
        rows = table[(table["model"] == model) & table["message"].isin([a, b])
                     & ~table["persona"].astype(str).str.startswith(HUMAN_PREFIX)]
        per_persona = float(rows.groupby(rows["persona"].astype(str)).size().mean()) if len(rows) else float("nan")
        if design == "within":
            w = paired_humans(humans, a, b)
            f = require_predictions(scores, list(w.index), [a, b])
            d = (w[a] - w[b]).to_numpy(float)
            g = (f[a] - f[b]).to_numpy()
            spread = np.concatenate([g, (pop[a] - pop[b]).to_numpy()])
            out[model] = PilotMeasure(model, design, a, b, _r(d, g), float(np.std(d, ddof=1)),
                                      float(np.std(spread, ddof=1)), len(w), per_persona)
            continue
        arms = {}
        for msg in (a, b):
            y = humans.answers(msg)
            f = require_predictions(scores, list(y["respondent"]), [msg])[msg].to_numpy()
            arms[msg] = {"r": _r(y["answer"], f), "sigma": float(np.std(y["answer"].to_numpy(float), ddof=1)),
                         "sigma_f": float(np.std(np.concatenate([f, pop[msg].to_numpy()]), ddof=1)), "n": len(y)}
        rho = _r(pop[a], pop[b]) if len(pop) > 2 else None
        out[model] = PilotMeasure(model, design, a, b, min(v["r"] for v in arms.values()),
                                  max(v["sigma"] for v in arms.values()), min(v["sigma_f"] for v in arms.values()),
                                  sum(v["n"] for v in arms.values()), per_persona, arms, rho)
    return out


__all__ = ["PilotMeasure", "pilot_measures"]
