"""Segments and target markets on the command line say nothing wrong: --json stays JSON when the personas are
raked to two attributes, target margins out of reach are refused naming the personas that make them so, a
target effect resting on a handful of personas is warned about, and a segment definition is used as given or
refused (never rewritten)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_result import run_cli
from shoe_study import shoe_messages_toml

import survey

# Twelve women, all young, twelve men, all old, and two non-binary personas of each age: the example of
# margins no weighting reaches (gender .5/.5 with age .2/.8), and a market of 96% non-binary shoppers that
# rests on the two non-binary personas.
PERSONAS = ['{"template": "You are {gender}, aged {age}. Answer ONLY \'Yes\' or \'No\'."}']
PERSONAS += [json.dumps({"id": f"w{i}", "gender": "female", "age": 20 + i}) for i in range(12)]
PERSONAS += [json.dumps({"id": f"m{i}", "gender": "male", "age": 60 + i}) for i in range(12)]
PERSONAS += [json.dumps({"id": "x0", "gender": "non-binary", "age": 25}),
             json.dumps({"id": "x1", "gender": "non-binary", "age": 65})]

STUDY = """
name = "tied"
store = "store.sqlite"
replicates = 1

[personas]
set = "tied.jsonl"

""" + shoe_messages_toml() + """
{extra}

[[models]]
name = "sim"
backend = "simulated"
"""

# reachable (young = the women and one non-binary persona), and slow enough that ipfn once stopped on a stall
# and printed why to stdout
REACHABLE = ("attribute,level,share\ngender,female,0.45\ngender,male,0.45\ngender,non-binary,0.1\n"
             "age,18-39,0.52\nage,40+,0.48\n")
UNREACHABLE = ("attribute,level,share\ngender,female,0.45\ngender,male,0.45\ngender,non-binary,0.1\n"
               "age,18-39,0.2\nage,40+,0.8\n")
FEW = "attribute,level,share\ngender,female,0.02\ngender,male,0.02\ngender,non-binary,0.96\n"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("tied")
    (d / "tied.jsonl").write_text("\n".join(PERSONAS) + "\n")
    for name, text in {"reachable": REACHABLE, "unreachable": UNREACHABLE, "few": FEW}.items():
        (d / f"{name}.csv").write_text(text)
    (d / "study.toml").write_text(STUDY.format(extra=""))
    (d / "two.toml").write_text(STUDY.format(extra='[target]\nfile = "reachable.csv"').replace("store.sqlite",
                                                                                                "two.sqlite"))
    survey.Study.from_toml(d / "study.toml").run(yes=True, progress=False)
    return d


def test_json_is_json_when_the_personas_are_raked_to_two_attributes(folder, capsys, monkeypatch):
    monkeypatch.chdir(folder)
    code, out, err = run_cli(capsys, "analyze", "store.sqlite", "--target", "reachable.csv", "--json")
    assert code == 0, err
    pop = json.loads(out)["results"][0]["population"]  # the whole of stdout is one JSON document
    assert pop["weights"]["margins_after"]["age"] == pytest.approx({"18-39": 0.52, "40+": 0.48}, abs=1e-9)
    code, out, err = run_cli(capsys, "report", "store.sqlite", "--target", "reachable.csv", "--out", "rep", "--json")
    assert code == 0, err
    json.loads(out)
    code, out, err = run_cli(capsys, "run", "two.toml", "--dry-run", "--json")
    assert code == 0, err
    json.loads(out)
    code, out, _ = run_cli(capsys, "analyze", "store.sqlite", "--target", "reachable.csv")
    assert "ipfn" not in out


def test_margins_out_of_reach_are_refused_naming_the_personas(folder, capsys, monkeypatch):
    monkeypatch.chdir(folder)
    code, out, err = run_cli(capsys, "analyze", "store.sqlite", "--target", "unreachable.csv")
    assert code == 2 and "Traceback" not in out + err and len(err.strip().splitlines()) == 1, err
    assert "cannot meet the target margins: gender = female reached" in err
    assert "every persona with gender = female (12) has age = 18-39" in err
    code, out, _ = run_cli(capsys, "analyze", "store.sqlite", "--target", "unreachable.csv", "--json")
    assert code == 2 and "cannot meet the target margins" in json.loads(out)["error"]
    (folder / "gap.toml").write_text(STUDY.format(extra='[target]\nfile = "unreachable.csv"')
                                     .replace("store.sqlite", "gap.sqlite"))
    code, out, err = run_cli(capsys, "run", "gap.toml", "--dry-run")
    assert code == 2 and "[target]: the personas cannot meet the target margins" in err
    assert not (folder / "gap.sqlite").exists()


def test_a_target_effect_on_a_handful_of_personas_is_warned_about(folder, capsys, monkeypatch):
    monkeypatch.chdir(folder)
    words = "the target population's effect rests on 2.2 effective personas (fewer than 10"
    code, out, _ = run_cli(capsys, "analyze", "store.sqlite", "--target", "few.csv")
    assert code == 0 and f"WARNING: {words}" in out
    code, out, _ = run_cli(capsys, "analyze", "store.sqlite", "--target", "few.csv", "--json")
    assert code == 0 and any(words in w for w in json.loads(out)["results"][0]["warnings"])
    code, _, _ = run_cli(capsys, "report", "store.sqlite", "--target", "few.csv", "--out", "few-report")
    assert code == 0 and words.replace("'", "&#39;") in (folder / "few-report" / "index.html").read_text()
    code, out, _ = run_cli(capsys, "analyze", "store.sqlite", "--target", "reachable.csv", "--json")
    assert not any("effective personas" in w for w in json.loads(out)["results"][0]["warnings"])


@pytest.mark.parametrize("args, words", [
    (["analyze", "store.sqlite", "--by", "age:"], "name at least one bin after the colon"),
    (["analyze", "store.sqlite", "--by", "age:,"], "name at least one bin after the colon"),
    (["analyze", "store.sqlite", "--by", ""], "--by is empty"),
    (["analyze", "store.sqlite", "--by", "  "], "--by is empty"),
    (["analyze", "store.sqlite", "--segment", "a=age < 30", "--segment", "a=age > 60"],
     "--segment a is given twice"),
    (["analyze", "store.sqlite", "--by", "gender", "--sequential", "betting"], "--sequential replays the pooled"),
    (["analyze", "store.sqlite", "--target", "reachable.csv", "--sequential", "betting"],
     "--sequential replays the pooled"),
    (["report", "store.sqlite", "--out", "r", "--by", ""], "--by is empty"),
    (["report", "store.sqlite", "--out", "r", "--by", "age:"], "name at least one bin after the colon"),
    (["plan", "--delta", "0.3", "--by", "gender", "--segments", "3"], "give --personas SET too"),
])
def test_a_segment_definition_is_used_as_given_or_refused(folder, capsys, monkeypatch, args, words):
    monkeypatch.chdir(folder)
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, (code, out, err)
    code, out, _ = run_cli(capsys, *args, "--json")
    assert code == 2 and words in json.loads(out)["error"]
