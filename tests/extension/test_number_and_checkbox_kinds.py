"""The numeric and checkbox kinds end to end, each one folder (survey/kinds/numeric, survey/kinds/checkbox)
registered like the built-in ones: a study file whose [question] keys the kind declares itself, a run on the
simulated backend, analyze (Python, CLI text and --json) with the study's segments and target weights, plan,
report, and human answers beside the models'."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_result import run_cli
from shoe_study import shoe_messages_toml

import survey
from survey.common.kinds import manifest

BASE = """
name = "{name}"
store = "store.sqlite"
replicates = 2

[personas]
set = "shoppers"
count = 16
sample_seed = 1
""" + shoe_messages_toml(8) + """
[question]
{question}

[segments]
by = "age:18-39,40+"

[target]
file = "margins.csv"

[[models]]
name = "sim"
backend = "simulated"
seed = 3

[models.options]
deltas = {{ boots = -1.5 }}
"""
MARGINS = "attribute,level,share\ngender,male,0.45\ngender,female,0.45\ngender,non-binary,0.10\n"
QUESTIONS = {
    "numeric": ('type = "numeric"\nmin = 0\nmax = 300\nunit = "US dollars"', "numeric0to300"),
    "checkbox": ('type = "checkbox"\noptions = ["comfortable", "stylish", "good value", "durable"]\nmax_choices = 3',
                 "checkbox4-1-3"),
}


@pytest.fixture(scope="module", params=sorted(QUESTIONS))
def study(request, tmp_path_factory):
    """One run per kind, shared by the tests below (they only read it)."""
    kind = request.param
    tmp_path = tmp_path_factory.mktemp(kind)
    question, scale = QUESTIONS[kind]
    (tmp_path / "margins.csv").write_text(MARGINS)
    (tmp_path / "study.toml").write_text(BASE.format(name=f"{kind}-study", question=question))
    s = survey.Study.from_toml(tmp_path / "study.toml")
    assert s.spec.question.type == scale
    s.run(yes=True, progress=False)
    return kind, scale, s, tmp_path


def test_each_kind_is_one_registered_folder():
    for kind in ("numeric", "checkbox"):
        m = manifest(kind)
        assert all(str(getattr(m, p)).startswith(f"survey.kinds.{kind}") for p in
                   ("parsing", "analysis", "power", "view", "text", "knobs"))
        assert m.has("segments")  # its segment simulator plans by segment; analysis by segment works (below)


def test_study_to_report_on_the_simulated_backend(study, capsys):
    kind, scale, s, tmp = study
    table = s.table()
    assert set(table["scale"]) == {scale} and table["answer"].notna().all()
    res = survey.analyze(s.load(), "sneakers", "boots")
    r = res["sim"]
    assert r.scale == scale and res.significant("sim")  # boots shifted down by 1.5 on the latent scale
    assert r.effect.estimate > 0
    if kind == "numeric":
        assert table["answer"].between(0, 300).all() and str(table["answer"].dtype) == "Float64"
        assert "US dollars" in s.spec.question.resolved_template
    else:
        assert r.options == ["comfortable", "stylish", "good value", "durable"]
        assert len(r.per_option) == 4 and r.pvalue == min(o["holm"] for o in r.per_option)
    seg = r.segments
    assert [x.segment for x in seg.segments] == ["18-39", "40+"]  # the study's segments, analysed by the kind
    code, out, err = run_cli(capsys, "analyze", tmp / "store.sqlite")
    assert code == 0, err
    assert ("Holm p" in out) if kind == "checkbox" else ("effect = mean(sneakers) - mean(boots)" in out)
    code, out, err = run_cli(capsys, "analyze", tmp / "store.sqlite", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["results"][0]["scale"] == scale
    survey.report(s.load(), out=tmp / "r")
    page = (tmp / "r" / "index.html").read_text()
    assert "sneakers" in page and ("Holm p (over the options)" in page if kind == "checkbox"
                                   else "histograms of every valid reply" in page)


def test_weights_change_the_estimate(study):
    kind, scale, s, tmp = study
    personas = sorted(set(s.table()["persona"]))
    weights = {p: (5.0 if i % 2 else 1.0) for i, p in enumerate(personas)}
    r = survey.analyze(s.load(), "sneakers", "boots", by=False, weights=weights)["sim"]
    pop = r.segments.population.result  # the kind's comparison with persona weights
    assert type(pop) is type(r) and pop.effect.estimate != pytest.approx(r.effect.estimate)
    target = survey.analyze(s.load(), "sneakers", "boots")["sim"].segments.population  # the study's [target]
    assert target is not None and target.weights.design_effect >= 1


def test_plan_by_simulation(study, capsys):
    kind, scale, s, tmp = study
    code, out, err = run_cli(capsys, "plan", "--scale", scale, "--delta", "1.0", "--design", "12,10,2",
                             "--simulations", "100", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["params"]["scale"] == scale and doc["results"][0]["power"]["sign_flip"] > 0.5


def test_human_answers_beside_the_models(study, capsys):
    kind, scale, s, tmp = study
    rows = ["respondent,message,answer"]
    rng = np.random.default_rng(0)
    for i in range(20):
        for msg in ("sneakers", "boots"):
            answer = f"${rng.integers(20, 200)}" if kind == "numeric" else '"1, 3"' if msg == "boots" else "2"
            rows.append(f"h{i},{msg},{answer}")
    (tmp / "humans.csv").write_text("\n".join(rows) + "\n")
    h = survey.load_humans(tmp / "humans.csv", scale, ["sneakers", "boots"])
    assert len(h.table) == 40 and h.scale == scale
    code, out, err = run_cli(capsys, "fidelity", tmp / "store.sqlite", "--humans", tmp / "humans.csv")
    if kind == "numeric":  # levels over tenths of the range, the effect against the humans', dispersion
        assert code == 0 and "JSD" in out and "dispersion" in out, err
    else:  # the kind's own comparison (survey.kinds.checkbox.humans), option by option
        assert code == 0 and out.startswith("Checkbox fidelity to people"), err


@pytest.mark.parametrize("scale, why", [("numeric5to1", "min must be below max"),
                                        ("checkbox13", "takes 2 to 12 options"),
                                        ("checkbox4-3-2", "min_choices must be at most max_choices")])
def test_plan_refuses_a_bad_scale_in_one_line(scale, why, capsys):
    code, out, err = run_cli(capsys, "plan", "--scale", scale, "--delta", "0.5", "--design", "10,8,2")
    assert code == 2 and why in err and err.strip().count("\n") == 0
    code, out, err = run_cli(capsys, "plan", "--scale", scale, "--delta", "0.5", "--design", "10,8,2", "--json")
    assert code == 2 and set(json.loads(out)) == {"error"} and why in json.loads(out)["error"]


def test_checkbox_answers_beside_people_in_every_route(study, capsys, tmp_path):
    """The checkbox kind's comparison with people (plugged in by its manifest's ``humans`` line) in `survey
    fidelity --json`, `survey analyze --humans` (text and --json), survey.fidelity and the report."""
    kind, scale, s, tmp = study
    if kind != "checkbox":
        pytest.skip("the checkbox kind's own comparison")
    rows = ["respondent,message,answer"] + [f"h{i},{msg},{answer}" for i in range(20)
                                            for msg, answer in (("sneakers", "2"), ("boots", '"1, 3"'))]
    (tmp_path / "humans.csv").write_text("\n".join(rows) + "\n")
    store, humans = tmp / "store.sqlite", tmp_path / "humans.csv"
    code, out, err = run_cli(capsys, "fidelity", store, "--humans", humans, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["kind"] == "checkbox" and len(doc["per_option"]) == len(doc["options"])
    py = survey.fidelity(store, humans, flips=999, n_boot=50)
    assert py.to_dict()["per_option"][0]["human_effect"]["estimate"] == pytest.approx(
        doc["per_option"][0]["human_effect"]["estimate"])
    code, out, err = run_cli(capsys, "analyze", store, "--a", "sneakers", "--b", "boots", "--humans", humans)
    assert code == 0 and "Checkbox fidelity to people" in out, err
    code, out, err = run_cli(capsys, "analyze", store, "--a", "sneakers", "--b", "boots", "--humans", humans, "--json")
    assert code == 0 and json.loads(out)["humans"]["kind"] == "checkbox", err
    results = survey.report(survey.load_source(store, humans=humans), tmp_path / "r", a="sneakers", b="boots")
    page = (tmp_path / "r" / "index.html").read_text()
    assert results["humans"]["kind"] == "checkbox" and "No comparison with people" not in page
    assert "Does it match people?" in page and "human effect sneakers − boots (CI)" in page
