"""A fourth response kind, added the way a user's plugin would: one folder (tests/extension/slider_kind/) holding
every part of it (response parsing, analysis, power model, report view, text output, segment simulator) under one
manifest, registered once, and nothing in the package touched. A study file, a run on the simulated backend,
analyze, estimate, compare, plan, segments, report and the text output then work on it.

The toy is a 0-100 slider ("how far would you go towards buying it?"): its answers are positions, its
cell summary the mean position, and its model a plain two-way random-effects fit by moments."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_result import run_cli
from shoe_study import shoe_messages_toml

import survey
from survey.common import kinds
from survey.common.kinds import register_kind

STUDY = """
name = "slider-study"
store = "store.sqlite"
replicates = 2

[personas]
set = "shoppers"
count = 12
sample_seed = 1

""" + shoe_messages_toml() + """
[question]
type = "slider"

[segments]
by = "age:18-39,40+"

[[models]]
name = "sim"
backend = "simulated"
seed = 3

[models.options]
deltas = { boots = -0.8 }
"""


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


@pytest.fixture
def slider(monkeypatch):
    """The slider registered once, by its manifest (a plugin would call register_kind or declare an entry point
    in the group "survey.kinds"); the registry is restored after the test."""
    monkeypatch.setattr(kinds, "KINDS", kinds.KINDS.copy())
    register_kind("slider_kind:MANIFEST")
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
    from survey import compare as compare_table

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


def test_a_study_file_runs_the_slider_on_the_simulated_backend(slider, tmp_path, capsys):
    (tmp_path / "study.toml").write_text(STUDY)
    study = survey.Study.from_toml(tmp_path / "study.toml")
    assert study.spec.question.type == "slider"
    study.run(yes=True, progress=False)
    table = study.table()
    assert set(table["scale"]) == {"slider"} and table["answer"].dropna().between(0, 100).all()
    res = survey.analyze(study.load(), "sneakers", "boots")
    assert res.view.quantity == "mean position" and res["sim"].effect.estimate > 0  # boots shifted down
    assert [s.segment for s in res["sim"].segments.segments] == ["18-39", "40+"]  # the study's segments
    code, out, err = run_cli(capsys, "analyze", tmp_path / "store.sqlite")
    assert code == 0, err
    assert "slider effect = mean position(sneakers) - mean position(boots)" in out  # the kind's own text
    code, out, err = run_cli(capsys, "analyze", tmp_path / "store.sqlite", "--json")
    assert code == 0 and json.loads(out)["results"][0]["unit"] == "mean position (0–100)"


def test_plan_a_fourth_kind(slider):
    from slider_kind.power import SliderPlan

    res = survey.plan(SliderPlan(0.8), designs=["8,6,2", "16,12,2"], simulations=200, target_power=0.8)
    power = [r.power["sign_flip"] for r in res.results]
    assert power[0] < power[1] and power[1] > 0.5
    null = survey.plan(SliderPlan(0.0, rho=0.0), designs=["10,8,2"], simulations=400)
    assert null.results[0].power["sign_flip"] <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)
    doc = res.to_dict()
    assert doc["params"]["scale"] == "slider" and doc["params"]["source"] == "given"


def test_segments_of_a_fourth_kind(slider):
    from survey.stats.segments.simulation import SimSegment, segment_table, simulate_segment_cells

    cells = simulate_segment_cells([SimSegment("young", 20, delta=-1.0), SimSegment("old", 20, delta=1.0)], 8, 2,
                                   scale="slider", seed=4)
    df = segment_table(cells)
    assert set(df["scale"]) == {"slider"} and df["answer"].between(0, 100).all()
    seg = survey.analyze(df, "A", "B", by="segment").results[0].segments
    effects = {s.segment: s.result.effect.estimate for s in seg.segments}
    assert effects["young"] > 0 > effects["old"]  # delta > 0 favours B: the young segment's B is lower
