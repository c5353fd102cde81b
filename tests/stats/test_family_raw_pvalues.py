"""A ranking (or any shown-set kind) already Holm-adjusts its pairs among themselves; in a study of several
questions the family adjusts over questions x pairs, so it must start from each pair's own (raw) p-value, not
adjust the adjusted one again (Holm of Holm: valid but needlessly conservative, and the scorecard's "p" would
not be the pair's own test)."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import survey
from survey.stats.family import correlation_interval
from survey.stats.questions import QuestionCorrelation


def test_family_starts_from_each_ranked_pairs_own_pvalue():
    rank = survey.simulate(20, 10, 1, scale="rank3", deltas=[1.5, 0.0, 0.0], seed=3, messages=["A", "B", "C"])
    yes_no = survey.simulate(20, 10, 1, scale="binary", seed=4, messages=("A", "B"), model="sim")  # one model
    res = survey.analyze(pd.concat([rank.assign(question="rank"), yes_no.assign(question="yn")], ignore_index=True),
                         every_pair=True)
    ranked = [r for r in res.results if r.question == "rank"]
    assert len(ranked) == 3
    raw = [r.result.pair.raw_pvalue for r in ranked]
    assert any(r.result.pair.pvalue > p for r, p in zip(ranked, raw, strict=True))  # Holm within moved something
    assert [r.pvalue for r in ranked] == raw
    holm = multipletests([r.pvalue for r in res.results], method="holm")[1]
    np.testing.assert_allclose([r.pvalue_adjusted for r in res.results], holm)
    assert res.to_dict()["results"][0]["pvalue_adjusted"] == res.results[0].pvalue_adjusted


def test_correlation_joins_a_ranking_with_a_yes_no_question_and_either_message_order():
    rank = survey.simulate(10, 8, 1, scale="rank3", seed=5, messages=["A", "B", "C"])
    yes_no = survey.simulate(10, 8, 1, scale="binary", seed=6, messages=("A", "B"), model="sim")
    flipped = yes_no.iloc[::-1]  # B's rows first: that question compares B vs A
    res = survey.analyze(pd.concat([yes_no.assign(question="yn"), flipped.assign(question="yn-again"),
                                    rank.assign(question="rank")], ignore_index=True), every_pair=True)
    pairs = {(c.first, c.second): c for c in res.correlations if {c.a, c.b} == {"A", "B"}}
    assert set(pairs) == {("yn", "yn-again"), ("yn", "rank"), ("yn-again", "rank")}
    assert pairs[("yn", "yn-again")].r == pytest.approx(1.0) and pairs[("yn", "yn-again")].n == 8
    assert pairs[("yn", "rank")].n == 8 and pairs[("yn", "rank")].r is not None
    assert pairs[("yn", "rank")].r == pytest.approx(pairs[("yn-again", "rank")].r)


def test_correlation_sentence_follows_its_interval_not_r_alone():
    c = QuestionCorrelation("m", "A", "B", "intent", "appeal", 0.75, 10, correlation_interval(0.75, 10))
    x, y = np.arange(10.0), np.array([0, 2, 1, 4, 3, 7, 5, 4, 9, 6.0])
    expected = stats.pearsonr(x, y).confidence_interval(0.95)
    got = correlation_interval(float(stats.pearsonr(x, y).statistic), 10)
    np.testing.assert_allclose(got, (expected.low, expected.high))
    lo, hi = c.ci
    assert 0 < lo < 0.3 and 0.9 < hi < 0.95  # 10 pairs: r = 0.75 is consistent with 0.3 as with 0.9
    assert "largely the same signal" not in c.sentence() and "95% CI" in c.sentence()
    assert c.to_dict()["ci"] == [lo, hi]
