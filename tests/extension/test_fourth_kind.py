"""A fourth response kind, added the way a user's plugin would: one response type (survey.responses),
one analysis kind (survey.stats.kinds) and one report view (survey.reporting.views), registered, and
nothing else touched. analyze, estimate, compare and report then work on it.

The toy is a 0-100 slider ("how far would you go towards buying it?"): its answers are positions, its
cell summary the mean position, and its model a plain two-way random-effects fit by moments."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest

import survey
from survey import responses
from survey.reporting import views
from survey.reporting.views.ordinal import OrdinalView
from survey.responses.scales import NumericLabels
from survey.stats import kinds
from survey.stats.comparison import compare_messages
from survey.stats.kinds.base import Kind


class Slider(NumericLabels):
    scale = "slider"
    labels = MappingProxyType({v: str(v) for v in range(0, 101)})
    template = 'A customer said: "{perturbation}" From 0 to 100, how close are you to buying it?'
    max_tokens = 4
    kind = "slider"
    quantity = "mean position"
    ordered = True


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

    def compare(self, df, model, a, b, view, opts):
        return compare_messages(df, model, a, b, alternative=opts.alternative, n_resamples=opts.flips,
                                seed=opts.seed, confidence=opts.confidence, pairing=opts.pairing)

    def fit(self, df, model, message, view, opts):
        rows = df[(df["model"] == model) & (df["message"] == message)].dropna(subset=["answer"])
        cells = rows.assign(answer=rows["answer"].astype(float)).pivot_table(
            index="persona", columns="perturbation", values="answer", aggfunc="mean")
        return SliderFit(float(cells.stack().mean()), float(cells.mean(axis=1).std()), float(cells.mean(axis=0).std()))


def slider_table(seed: int = 0, models=("m1", "m2")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for k, model in enumerate(models):
        for msg, shift in (("A", 6.0 * (1 - 2 * k)), ("B", 0.0)):
            for j in range(8):
                para = rng.normal(0, 4)
                for i in range(12):
                    base = 50 + 10 * np.sin(i)
                    for rep in range(2):
                        rows.append(dict(model=model, message=msg, perturbation=f"{msg}{j}", persona=f"p{i}",
                                         replicate=rep, scale="slider",
                                         answer=int(np.clip(round(base + shift + para + rng.normal(0, 5)), 0, 100))))
    return pd.DataFrame(rows)


class SliderView(OrdinalView):
    """The report's view: the mean-score view, with the slider's own words for what each persona did."""

    kind = "slider"
    reading = "moved a 0-100 slider for many paraphrases (perturbations) of each message"


@pytest.fixture
def slider(monkeypatch):
    monkeypatch.setitem(responses.RESPONSE_TYPES, "slider", Slider())
    monkeypatch.setitem(kinds.KINDS, "slider", SliderKind())
    monkeypatch.setitem(views.VIEWS, "slider", SliderView())
    return slider_table()


def test_analyze_a_fourth_kind(slider):
    res = survey.analyze(slider, "A", "B")
    assert res.view.quantity == "mean position" and res.view.unit == "mean position (0–100)"
    r = res["m1"]
    assert r.effect.ci[0] > 0 and res.significant("m1")  # +6 points for A in model m1
    assert res["m2"].effect.estimate < 0
    assert res.to_dict()["results"][0]["unit"] == "mean position (0–100)"
    assert -100 <= r.effect.ci[0] <= r.effect.ci[1] <= 100


def test_estimate_a_fourth_kind(slider):
    est = survey.estimate(slider, "A", bootstrap=0)
    assert set(est) == {"m1", "m2"} and est["m1"].params["mean"] == pytest.approx(
        slider[(slider.model == "m1") & (slider.message == "A")]["answer"].mean(), abs=0.01)
    assert est.to_dict()["results"][0]["method"] == "moments"


def test_compare_a_fourth_kind(slider):
    from survey.stats.table_comparison import compare_table

    res = compare_table(slider, "A", "B", n_resamples=999)
    m = res.models
    assert m.unit == "mean position (0–100)" and m.fit_params == ("mean", "sd_persona", "sd_paraphrase")
    assert m.models[0].effect.estimate > 0 > m.models[1].effect.estimate  # m1 leans to A, m2 to B
    assert m.heterogeneity is not None and m.heterogeneity.pvalue < 0.05
    assert "equal effects in mean position" in m.heterogeneity_null
    assert m.models[0].fit.params["mean"] > 0 and "mean" in m.table().columns
    assert res.to_dict()["models"]["models"][0]["fit"]["message"] == "A"


def test_report_a_fourth_kind(slider, tmp_path):
    doc = survey.report(slider, out=tmp_path / "r")
    page = (tmp_path / "r" / "index.html").read_text()
    assert "moved a 0-100 slider" in page and "mean position" in page
    assert doc["results"] == survey.analyze(slider, every_pair=True).to_dict()["results"]
    assert "Across models" in page and doc["fits"]["m1"]["A"]["mean"] > 0
