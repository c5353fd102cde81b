"""`survey analyze` on a table of several questions, as a user runs it: a scorecard per message pair in words,
ids never cut, --json carrying each result's question, adjusted p, family interval and whether it decides."""

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

import survey

A, B = "sneakers-with-a-long-identifier", "boots-classic-leather-edition"


def run(*args, check=True, columns=80):
    proc = subprocess.run([sys.executable, "-m", "survey", *args], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": str(columns)})
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    parts = [survey.simulate(30, 12, 2, scale=scale, delta=delta, seed=seed, messages=(A, B)).assign(question=q)
             for q, scale, delta, seed in [("intent", "binary", -1.2, 0), ("appeal", "likert5", -0.6, 1),
                                           ("believe", "binary", 0.0, 2)]]
    path = tmp_path_factory.mktemp("questions") / "questions.csv"
    survey.write_table(pd.concat(parts, ignore_index=True), path)
    return path


def test_scorecard_in_words_with_whole_ids(table):
    assert "…" not in run("analyze", str(table)).stdout  # a narrow terminal folds cells, never cuts them
    out = run("analyze", str(table), columns=200).stdout
    assert f"{A} vs {B}" in out
    for q in ("intent", "appeal", "believe"):
        assert q in out
    assert f"{A} wins" in out and "no reliable difference" in out and "Holm" in out and "correlate" in out


def test_json_carries_the_family(table):
    doc = json.loads(run("analyze", str(table), "--json", "--family", "bh").stdout)
    assert doc["family"]["method"] == "bh" and [q["id"] for q in doc["questions"]] == ["intent", "appeal", "believe"]
    for r in doc["results"]:
        assert {"question", "pvalue_adjusted", "simultaneous_ci", "decides"} <= set(r) and r["decides"] is False
    assert {(c["first"], c["second"]) for c in doc["correlations"]} == {("intent", "appeal"), ("intent", "believe"),
                                                                      ("appeal", "believe")}


def test_one_question_alone_and_mistakes_in_one_line(table):
    doc = json.loads(run("analyze", str(table), "--question", "appeal", "--json").stdout)
    assert "family" not in doc and doc["scale"] == "likert5"
    bad = run("analyze", str(table), "--question", "price", "--json", check=False)
    assert bad.returncode == 2 and json.loads(bad.stdout) == {"error": "no question 'price': the source asks intent, "
                                                                      "appeal, believe"}
