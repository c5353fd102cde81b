"""Segments and a target market end to end: a study file with [segments] and [target] on the simulated
backend, `survey analyze` (text and --json, the contract scripts rely on), `survey report`, the flags, and
the mistakes a user makes (one line, exit 2, nothing bought)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_result import run_cli
from shoe_study import shoe_messages_toml

import survey

STUDY = """
name = "seg"
store = "store.sqlite"
replicates = 2

[personas]
set = "shoppers"
count = 40
sample_seed = 1

""" + shoe_messages_toml() + """
{segments}

[[models]]
name = "sim"
backend = "simulated"
"""

SEGMENTS = """[segments]
by = "age:18-34,35-54,55+"

[target]
file = "margins.csv"
"""
MARGINS = "attribute,level,share\ngender,male,0.45\ngender,female,0.45\ngender,non-binary,0.10\n"


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("seg")
    (folder / "margins.csv").write_text(MARGINS)
    (folder / "study.toml").write_text(STUDY.format(segments=SEGMENTS))
    survey.Study.from_toml(folder / "study.toml").run(yes=True, progress=False)
    return folder / "store.sqlite"


def test_analyze_json_carries_segments_interaction_and_population(store, capsys):
    code, out, _ = run_cli(capsys, "analyze", store, "--json")
    assert code == 0
    r = json.loads(out)["results"][0]
    assert r["by"] == "age:18-34,35-54,55+"
    assert [s["segment"] for s in r["segments"]] == ["18-34", "35-54", "55+"]
    for s in r["segments"]:
        assert {"segment", "n_personas", "effect", "ci", "pvalue", "pvalue_adjusted"} <= set(s)
        assert s["pvalue_adjusted"] >= s["pvalue"]
    assert sum(s["n_personas"] for s in r["segments"]) == r["n_personas"] == 40
    assert {"statistic", "pvalue", "null"} <= set(r["interaction"])
    pop = r["population"]
    assert {"effect", "ci", "pvalue", "design_effect", "effective_personas"} <= set(pop)
    assert pop["weights"]["target"]["source"].endswith("margins.csv")
    for level, share in {"male": 0.45, "female": 0.45, "non-binary": 0.10}.items():
        assert pop["weights"]["margins_after"]["gender"][level] == pytest.approx(share, abs=1e-8)
    assert pop["effective_personas"] == pytest.approx(40 / pop["design_effect"])


def test_analyze_text_and_flags(store, capsys):
    code, out, _ = run_cli(capsys, "analyze", store)
    assert code == 0 and "in words:" in out and "segments differ? interaction p =" in out
    assert "design effect" in out
    code, out, _ = run_cli(capsys, "analyze", store, "--by", "gender", "--adjust", "bonferroni", "--json")
    r = json.loads(out)["results"][0]
    assert r["adjustment"] == "bonferroni" and {s["segment"] for s in r["segments"]} == {"male", "female", "non-binary"}
    assert r["population"] is not None  # the study's target still applies
    code, out, _ = run_cli(capsys, "analyze", store, "--segment", "young=age < 35", "--segment", "old=age >= 55",
                           "--json")
    assert [s["segment"] for s in json.loads(out)["results"][0]["segments"]] == ["young", "old"]
    code, out, _ = run_cli(capsys, "analyze", store, "--pooled", "--json")
    assert "segments" not in json.loads(out)["results"][0]


@pytest.mark.parametrize("args, words", [
    (["--by", "colour"], "no persona attribute 'colour'"),
    (["--by", "age:18-40,35-54"], "overlap"),
    (["--segment", "young"], "write NAME=FILTER"),
    (["--by", "gender", "--segment", "x=age < 3"], "give --by or --segment, not both"),
    (["--pooled", "--by", "gender"], "--pooled turns the study's segments off"),
    (["--target", "nope.toml"], "nope.toml: no such target file"),
])
def test_segment_mistakes_are_one_line_and_exit_2(store, capsys, args, words):
    code, out, err = run_cli(capsys, "analyze", store, *args)
    assert code == 2 and words in (out + err) and "Traceback" not in out + err
    code, out, _ = run_cli(capsys, "analyze", store, *args, "--json")
    assert code == 2 and words in json.loads(out)["error"]


def test_a_target_cell_without_personas_stops_the_dry_run_before_anything_is_bought(tmp_path, capsys):
    (tmp_path / "margins.csv").write_text("attribute,level,share\ngender,male,0.5\ngender,female,0.4\n"
                                          "gender,non-binary,0.05\ngender,other,0.05\n")
    (tmp_path / "study.toml").write_text(STUDY.format(segments=SEGMENTS))
    code, out, err = run_cli(capsys, "run", tmp_path / "study.toml", "--dry-run")
    assert code == 2 and "[target]: target cell gender = other has no persona" in out + err
    code, out, err = run_cli(capsys, "run", tmp_path / "study.toml", "--yes")
    assert code == 2 and not (tmp_path / "store.sqlite").exists()
    (tmp_path / "study.toml").write_text(STUDY.format(segments='[segments]\nby = "age:18-34,90+"\n'))
    code, out, err = run_cli(capsys, "run", tmp_path / "study.toml", "--dry-run")
    assert code == 2 and "[segments]: segment age in 90+ holds no persona" in out + err
    (tmp_path / "study.toml").write_text(STUDY.format(segments='[segments]\nby = "gender"\nyoung = "age < 3"\n'))
    code, out, err = run_cli(capsys, "run", tmp_path / "study.toml", "--dry-run")
    assert code == 2 and "either by" in out + err


def test_a_table_file_with_a_persona_set(store, tmp_path, capsys):
    table = tmp_path / "t.csv"
    assert run_cli(capsys, "export", store, "--out", table)[0] == 0
    code, out, err = run_cli(capsys, "analyze", table, "--by", "gender")
    assert code == 2 and "--personas SET" in out + err
    code, out, _ = run_cli(capsys, "analyze", table, "--by", "gender", "--personas", "shoppers", "--json")
    assert code == 0 and len(json.loads(out)["results"][0]["segments"]) == 3


def test_report_has_a_for_whom_section(store, tmp_path, capsys):
    code, out, _ = run_cli(capsys, "report", store, "--out", tmp_path / "rep", "--json")
    assert code == 0
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "For whom? sim: sneakers vs boots by age:18-34,35-54,55+" in html and "Target population:" in html
    results = json.loads((tmp_path / "rep" / "results.json").read_text())
    analyzed = json.loads(run_cli(capsys, "analyze", store, "--json")[1])
    assert results["results"][0]["segments"] == analyzed["results"][0]["segments"]


def test_the_demo_study_asks_for_whom(capsys):
    """The main job's study segments by age and weights to gender margins; its dry run checks both."""
    from survey.cli.demo import find_study

    plan = survey.Study.from_toml(find_study("demo")).dry_run()
    assert plan.context["analysis"]["segments"] == "age:18-39,40+"
    assert set(plan.context["analysis"]["target"]["margins"]["gender"]) == {"male", "female", "non-binary"}


def test_a_sequential_replay_refuses_the_studys_segments_unless_pooled(store, capsys):
    """The replay tests the pooled rule: a study's [segments] and [target] are not dropped without a word."""
    code, out, err = run_cli(capsys, "analyze", store, "--sequential", "betting")
    assert code == 2 and "--pooled" in err and "[segments] and [target]" in err and len(err.strip().splitlines()) == 1
    code, out, _ = run_cli(capsys, "analyze", store, "--sequential", "betting", "--json")
    assert code == 2 and "--pooled" in json.loads(out)["error"]
    code, out, _ = run_cli(capsys, "analyze", store, "--sequential", "betting", "--pooled", "--json")
    assert code == 0 and json.loads(out)
    src = survey.load_source(store)
    with pytest.raises(survey.SurveyError, match="pooled=True"):
        survey.sequential(src, method="betting")
    assert survey.sequential(src, method="betting", pooled=True)


def test_a_study_file_reads_as_its_store_in_every_reading_command(store, tmp_path, capsys):
    """`survey analyze study.toml` read the store the study's run filled, as `survey fidelity` does."""
    toml = store.parent / "study.toml"
    by_store = json.loads(run_cli(capsys, "analyze", store, "--json")[1])
    code, out, err = run_cli(capsys, "analyze", toml, "--json")
    assert code == 0, err
    assert json.loads(out)["results"] == by_store["results"]
    for args in (["estimate", toml, "--message", "boots", "--json"], ["compare", toml, "--json"],
                 ["export", toml, "--out", tmp_path / "t.csv", "--json"], ["status", toml, "--json"],
                 ["report", toml, "--out", tmp_path / "rep", "--json"]):
        code, out, err = run_cli(capsys, *args)
        assert code == 0, (args, out, err)
    code, _, err = run_cli(capsys, "analyze", toml, "--study", "other")
    assert code == 2 and "is study 'seg'" in err


def test_an_unknown_suffix_names_stores_and_study_files(tmp_path, capsys):
    odd = tmp_path / "answers.json"
    odd.write_text("{}")
    code, _, err = run_cli(capsys, "analyze", odd)
    assert code == 2 and ".sqlite store" in err and ".toml" in err


def test_a_missing_source_names_every_form_a_command_opens(tmp_path, capsys):
    code, _, err = run_cli(capsys, "analyze", tmp_path / "nowhere.json")
    assert code == 2 and ".sqlite store" in err and ".toml study file" in err


def test_open_source_names_every_form_it_opens_for_a_missing_path(tmp_path):
    import survey
    from survey.errors import SurveyError

    with pytest.raises(SurveyError, match=r"no such file .*\.sqlite store or a \.toml study file"):
        survey.open_source(tmp_path / "nowhere.csv")
