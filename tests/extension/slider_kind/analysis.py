"""The slider's analysis: every A/B test on the mean position per cell, and a two-way random-effects fit by
moments (a toy: no replicate-noise correction)."""

from __future__ import annotations

from dataclasses import dataclass, field

from survey.stats.comparison import compare_messages
from survey.stats.kinds.base import Kind


@dataclass
class SliderFit:
    """Mean position, persona and paraphrase standard deviations by moments (a fit-protocol object)."""

    mean: float
    sd_persona: float
    sd_paraphrase: float
    se: dict = field(default_factory=dict)
    ci: dict = field(default_factory=dict)
    model_name: str = "two-way random effects"

    @property
    def params(self) -> dict:
        return {"mean": self.mean, "sd_persona": self.sd_persona, "sd_paraphrase": self.sd_paraphrase}

    @property
    def notes(self) -> list:
        return ["moments of the cell means; no replicate-noise correction (a toy)"]

    @property
    def estimator(self) -> str:
        return "moments"

    def summary(self) -> dict:
        return {**self.params, "method": self.estimator}

    def to_dict(self) -> dict:
        return {**self.params, "se": self.se, "ci": self.ci, "method": self.estimator, "notes": self.notes}


class SliderKind(Kind):
    name = "slider"
    fit_params = ("mean", "sd_persona", "sd_paraphrase")
    weighted = True

    def compare(self, df, model, a, b, view, opts):
        return compare_messages(df, model, a, b, alternative=opts.alternative, n_resamples=opts.flips,
                                seed=opts.seed, confidence=opts.confidence, pairing=opts.pairing,
                                weights=opts.weights)

    def fit(self, df, model, message, view, opts):
        rows = df[(df["model"] == model) & (df["message"] == message)].dropna(subset=["answer"])
        cells = rows.assign(answer=rows["answer"].astype(float)).pivot_table(
            index="persona", columns="perturbation", values="answer", aggfunc="mean")
        return SliderFit(float(cells.stack().mean()), float(cells.mean(axis=1).std()), float(cells.mean(axis=0).std()))


SLIDER = SliderKind()
