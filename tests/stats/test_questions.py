"""survey.analyze on a source that asks several questions: each (model, question, pair) its kind's own test, the
family adjusted over questions x pairs (Holm, BH, a primary question's gate), family intervals by the kind's own
interval method, the per-pair correlation between questions, the scorecard; one question reads as before."""

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import survey
from survey.errors import SurveyError
from survey.stats.questions import QuestionResult

QUESTIONS = [("intent", "binary", -1.2, 0), ("appeal", "likert5", -0.6, 1), ("believe", "binary", 0.0, 2)]


def several(questions=QUESTIONS, n=30, m=12) -> pd.DataFrame:
    parts = []
    for q, scale, delta, seed in questions:
        df = survey.simulate(n, m, 2, scale=scale, delta=delta, seed=seed, messages=("sneakers", "boots"))
        parts.append(df.assign(question=q))
    return pd.concat(parts, ignore_index=True)


def test_each_question_its_own_test_and_holm_over_the_family():
    table = several()
    res = survey.analyze(table)
    assert [r.question for r in res.results] == ["intent", "appeal", "believe"]
    for r in res.results:
        alone = survey.analyze(table[table["question"] == r.question].drop(columns="question"))
        assert r.pvalue == alone["simulated"].decision.pvalue and r.effect.ci == alone["simulated"].effect.ci
        assert isinstance(r, QuestionResult) and r.decides is False and r.role == "family"
    holm = multipletests([r.pvalue for r in res.results], method="holm")[1]
    np.testing.assert_allclose([r.pvalue_adjusted for r in res.results], holm)
    assert [res.significant(r) for r in res.results] == [p <= 0.05 for p in holm]


def test_family_intervals_are_the_kinds_interval_at_one_minus_alpha_over_m():
    table = several()
    res = survey.analyze(table, alpha=0.05)
    for r in res.results:
        wide = survey.analyze(table, question=r.question, confidence=1 - 0.05 / 3)["simulated"]
        assert r.simultaneous_ci == wide.effect.ci and r.simultaneous_level == pytest.approx(1 - 0.05 / 3)
        lo, hi = r.simultaneous_ci
        assert lo <= r.effect.ci[0] and r.effect.ci[1] <= hi


def test_primary_decides_at_alpha_and_gates_the_secondary_family():
    res = survey.analyze(several(), primary="intent", family="bh")
    first, *rest = res.results
    assert first.decides and first.role == "primary" and first.pvalue_adjusted == first.pvalue
    bh = multipletests([r.pvalue for r in rest], method="fdr_bh")[1]
    np.testing.assert_allclose([r.pvalue_adjusted for r in rest], np.maximum(bh, first.pvalue))
    assert all(r.role == "secondary" and not r.decides for r in rest)
    doc = res.to_dict()
    assert doc["family"]["method"] == "bh" and doc["family"]["primary"] == "intent"
    assert {"question", "pvalue_adjusted", "simultaneous_ci", "decides"} <= set(doc["results"][0])


def test_primary_naming_no_question_is_one_clear_error():
    with pytest.raises(SurveyError, match="no question 'price'"):
        survey.analyze(several(), primary="price")
    with pytest.raises(SurveyError, match="no question 'price'; the source asks q"):
        survey.analyze(several([("q", "binary", 0.0, 0)]).drop(columns="question"), primary="price")


def test_scorecard_in_words():
    res = survey.analyze(several(), primary="intent")
    card = res.scorecard()
    assert list(card.index.names) == ["model", "messages", "question"]
    assert card.loc[("simulated", "sneakers vs boots", "intent"), "verdict"] in ("sneakers wins", "boots wins")
    assert set(card["verdict"]) <= {"sneakers wins", "boots wins", "no reliable difference"}
    assert "<table" in card._repr_html_() and len(repr(res)) <= 1000


def test_correlation_of_two_questions_carrying_one_signal_is_one():
    table = several([("intent", "binary", -1.0, 0)])
    twin = pd.concat([table.assign(question="intent"), table.assign(question="intent-again")], ignore_index=True)
    res = survey.analyze(twin)
    (c,) = res.correlations
    assert (c.first, c.second, c.n) == ("intent", "intent-again", 12) and c.r == pytest.approx(1.0)
    assert "largely the same signal" in c.sentence()


def test_one_question_source_reads_exactly_as_before():
    table = several([("q", "binary", -0.5, 0)])
    before = survey.analyze(table.drop(columns="question")).to_dict()
    assert survey.analyze(table).to_dict() == before


def test_segments_work_per_question():
    table = several()
    personas = {p: {"age": "young" if i % 2 else "old"} for i, p in enumerate(sorted(set(table["persona"])))}
    res = survey.analyze(table, by="age", personas=personas)
    assert all(r.segments is not None and {s.segment for s in r.segments.segments} == {"young", "old"}
               for r in res.results)


def test_what_reads_one_question_names_it_or_is_refused():
    table = several()
    with pytest.raises(SurveyError, match="estimate reads one question at a time; the source asks intent, appeal"):
        survey.estimate(table, "sneakers")
    assert survey.estimate(table, "sneakers", question="intent", bootstrap=0)["simulated"].params
    with pytest.raises(SurveyError, match="a sequential replay reads one question"):
        survey.sequential(table, "sneakers", "boots")
    res = survey.analyze(table, primary="appeal")
    assert res.result("simulated", "sneakers", "boots").question == "appeal"
    assert res.result("simulated", "sneakers", "boots", "believe").question == "believe"


def test_a_stopping_rule_decides_the_primary_question_only():
    from survey.data.completeness import table_completeness
    from survey.data.sources import Source

    table = several([("intent", "binary", 0.0, 0), ("appeal", "binary", -1.5, 1)])
    completeness = table_completeness(table)
    completeness.sequential = {"simulated": {"a": "sneakers", "b": "boots", "method": "betting", "decision": "reject",
                                             "pvalue": 0.01, "statistic": 0.1, "look": 2, "pairs": 8, "max_pairs": 12}}
    res = survey.analyze(Source.of(table, completeness), primary="intent")
    first, second = res.results
    assert first.sequential is not None and first.significant and first.pvalue_adjusted == 0.01
    assert second.sequential is None and second.pvalue_adjusted == second.pvalue  # the gate is open
    completeness.sequential["simulated"]["decision"] = "futility"
    closed = survey.analyze(Source.of(table, completeness), primary="intent")
    assert not closed.results[0].significant and closed.results[1].pvalue_adjusted == 1.0
    assert closed.gates == {"simulated": False}


def test_bh_gives_false_coverage_rate_intervals_to_the_selected_only():
    res = survey.analyze(several(), family="bh")
    selected = [r for r in res.results if r.significant]
    assert selected and len(selected) < len(res.results)
    for r in res.results:
        if r.significant:
            assert r.simultaneous_level == pytest.approx(1 - len(selected) * 0.05 / 3)
        else:
            assert r.simultaneous_ci is None and r.simultaneous_level is None


def test_every_question_compares_a_pair_the_same_way_round():
    """A pick question's rows list the message shown first; with boots first in its rows the pair read "boots vs
    sneakers" beside the other questions' "sneakers vs boots" (two scorecards for one pair)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reporting"))
    from test_report_questions import concept

    df = concept()
    choose = df["question"] == "choose"
    df = pd.concat([df[~choose], df[choose].sort_values("message", kind="stable")], ignore_index=True)  # boots first
    res = survey.analyze(df, flips=199)
    assert {(r.a, r.b) for r in res.results} == {("sneakers", "boots")}
