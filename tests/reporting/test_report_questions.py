"""The report of a study that asks several questions: a scorecard per message pair (effect with CI, family CI,
adjusted p, the verdict in words, the primary marked as deciding), the family's rule, the correlations, each
question's own section, a summary counted per question, results.json carrying the scorecard; computed from one
analysis; in conversation flow the order effect (or, with a fixed order, why there is none)."""

import json
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

import survey

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stats"))
from test_order_effect import conversation  # noqa: E402

M = ("sneakers", "boots")


def concept(n=20, m=8) -> pd.DataFrame:
    """Yes/No intent, a likert5 appeal and a pick between the two messages, asked of the same personas."""
    parts = [survey.simulate(n, m, 2, scale=s, delta=d, seed=i, messages=M).assign(question=q)
             for q, s, d, i in [("intent", "binary", -1.5, 0), ("appeal", "likert5", -0.6, 1)]]
    pick = survey.simulate(n, m, 2, scale="pick2", messages=M, seed=3, deltas={"boots": 1.0})
    pick = pick.sort_values("message", ascending=False, kind="stable")  # sneakers first: the pair reads A vs B
    pick["persona"] = pick["persona"].map(lambda p: f"P{int(p[1:]) + 1:03d}")  # the same personas answer
    return pd.concat([*parts, pick.assign(question="choose", model="simulated")], ignore_index=True)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("questions") / "report"
    results = survey.report(concept(), out, flips=199, primary="intent")
    return results, (out / "index.html").read_text(encoding="utf-8"), out


def test_scorecard_in_words_with_the_primary_deciding(report):
    results, html, _ = report
    assert "Scorecard — simulated: sneakers vs boots" in html
    assert "primary: decides" in html and "serial" in html and "correlate" in html
    card = results["scorecard"]
    assert [r["question"] for r in card["rows"]] == ["intent", "appeal", "choose"]
    assert card["family"]["primary"] == "intent" and [r["decides"] for r in card["rows"]] == [True, False, False]
    for r in card["rows"]:
        assert r["verdict"] in ("sneakers wins", "boots wins", "no reliable difference")
        assert r["verdict"] in html and {"pvalue_adjusted", "simultaneous_ci", "ci"} <= set(r)
    assert {(c["first"], c["second"]) for c in card["correlations"]} == {("intent", "appeal"), ("intent", "choose"),
                                                                       ("appeal", "choose")}
    assert {c["n"] for c in card["correlations"]} == {8}  # a pick's paraphrase sets pair with the others' pairs
    assert all("question" in r for r in results["results"])


def test_each_question_has_its_own_section_and_the_summary_counts_per_question(report):
    results, html, out = report
    for q in ("intent", "appeal", "choose"):
        assert f"Question {q} — simulated: sneakers vs boots" in html
    assert "intent (binary, primary)" not in html or "Questions" in html
    assert results["summary"][0]["replicates"] == 2  # not 6: three questions ask each cell twice each
    assert results["summary"][0]["personas"] == 20 and "are missing" not in html
    doc = json.loads((out / "results.json").read_text())
    assert doc["scorecard"]["rows"] == results["scorecard"]["rows"]


def test_the_report_analyses_once(tmp_path, monkeypatch):
    """Each (model, question, pair) is tested once at the report's level; the family interval once more at its own."""
    table = concept(n=8, m=4)
    table = pd.concat([table, table.assign(model="toy2")], ignore_index=True)
    calls = Counter()
    kinds = {q: survey.analyze(table[table["question"] == q].drop(columns="question"), flips=9).kind
             for q in ("intent", "appeal", "choose")}
    for kind in {id(k): k for k in kinds.values()}.values():
        compare = kind.compare

        def spy(df, model, a, b, view, opts, compare=compare):
            calls[(view.scale, model, a, b, round(opts.confidence or 1 - opts.alpha, 6), opts.probabilities)] += 1
            return compare(df, model, a, b, view, opts)

        monkeypatch.setattr(kind, "compare", spy)
    survey.report(table, tmp_path / "r", flips=99)
    plain = {k: n for k, n in calls.items() if not k[-1]}
    assert {k[:4] for k in plain} == {(s, mdl, "sneakers", "boots") for s in ("binary", "likert5", "pick2")
                                      for mdl in ("simulated", "toy2")}
    assert set(plain.values()) == {1}, plain


def test_conversation_flow_reports_its_order_effect(tmp_path):
    results = survey.report(conversation(shift=-1.0, seed=2), tmp_path / "r", flips=499)
    html = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "Order effect (conversation flow)" in html and "depend on the order" in html
    effects = results["scorecard"]["order_effects"]
    assert [e["question"] for e in effects] == ["intent", "appeal", "believe"] and all(e["pvalue"] < 0.01
                                                                                         for e in effects)
    fixed = survey.report(conversation(order="fixed", seed=2), tmp_path / "f", flips=99)
    html = (tmp_path / "f" / "index.html").read_text(encoding="utf-8")
    assert "cannot be measured" in html and all(not e["varies"] for e in fixed["scorecard"]["order_effects"])


def test_one_question_reports_as_before(tmp_path):
    results = survey.report(concept(n=10, m=4).query("question == 'intent'").drop(columns="question"),
                            tmp_path / "one", flips=99)
    assert "scorecard" not in results and "question" not in results["results"][0]
    assert "Scorecard" not in (tmp_path / "one" / "index.html").read_text(encoding="utf-8")


def test_survey_report_from_the_command_line_carries_the_scorecard(tmp_path):
    import subprocess

    table = tmp_path / "questions.csv"
    survey.write_table(concept(n=10, m=4), table)
    proc = subprocess.run([sys.executable, "-m", "survey", "report", str(table), "--out", str(tmp_path / "r"),
                           "--family", "bh", "--flips", "99", "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["scorecard"]["family"]["method"] == "bh"
    assert [r["question"] for r in doc["scorecard"]["rows"]] == ["intent", "appeal", "choose"]
