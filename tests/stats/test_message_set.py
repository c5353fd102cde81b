"""A study of more than two messages analysed as designed (survey.stats.message_set): each message's level once,
then every pair with the kind's own test, Holm over the k(k-1)/2 pairs (against statsmodels) and
Bonferroni-simultaneous intervals; the family-wise error under the null by simulation; two messages unchanged."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import survey
from survey.kinds.pick.table import compare_pick, simulate_pick_table
from survey.stats.comparison import compare_messages, mean_interval
from survey.stats.effect import effect_ci
from survey.stats.message_set import MessageSetAnalysis

sys.path.insert(0, str(Path(__file__).parent))
from test_across_messages import simulate_messages  # noqa: E402


@pytest.fixture(scope="module")
def pick3():
    return simulate_pick_table(12, 10, 1, ["sneakers", "boots", "sandals"], seed=2,
                               deltas={"sneakers": 0.9, "sandals": -0.4}, positions=[0.5, 0, 0])


@pytest.fixture(scope="module")
def four():
    return simulate_messages({"hat": 1.5, "cap": 0.0, "scarf": 0.0, "gloves": -1.5}, n=20, m=10, r=2, seed=1)


def test_pick3_levels_once_and_every_pair_the_kinds_own_test(pick3):
    res = survey.analyze(pick3, flips=999)
    assert isinstance(res, MessageSetAnalysis)
    (s,) = res.sets
    assert set(s.messages) == {"sneakers", "boots", "sandals"}
    assert len(s.pairs) == 3 and s.adjustment == "holm"
    for p in s.pairs:
        own = compare_pick(pick3, "sim", p.a, p.b, n_resamples=999)
        assert p.pvalue == own.pair.raw_pvalue and p.effect.estimate == own.effect.estimate
        assert p.pvalue_adjusted == pytest.approx(own.pair.pvalue)  # the kind's own Holm over the same pairs
        assert s.levels.values == own.shares  # the shares table, computed once
    raw = [p.pvalue for p in s.pairs]
    assert [p.pvalue_adjusted for p in s.pairs] == pytest.approx(multipletests(raw, method="holm")[1])
    assert s.ranking[0] == "sneakers"
    assert "position test" in s.levels.notes[0]
    json.dumps(res.to_dict(), allow_nan=False)


def test_per_message_kind_holm_simultaneous_and_levels(four):
    res = survey.analyze(four, flips=999)
    (s,) = res.sets
    assert [(p.a, p.b) for p in s.pairs] == list(itertools.combinations(["hat", "cap", "scarf", "gloves"], 2))
    raw = [p.pvalue for p in s.pairs]
    assert [p.pvalue_adjusted for p in s.pairs] == pytest.approx(multipletests(raw, method="holm")[1])
    for p in s.pairs:
        own = compare_messages(four, "x", p.a, p.b, n_resamples=999)
        assert p.pvalue == own.permutation.pvalue and p.effect.ci == own.effect.ci
        d = own.d_perturbation[~np.isnan(own.d_perturbation)]
        assert p.simultaneous_ci == effect_ci(d, confidence=1 - 0.05 / 6, bounds=(-1, 1)).ci  # Bonferroni
        assert p.simultaneous_ci[0] <= p.effect.ci[0] and p.simultaneous_ci[1] >= p.effect.ci[1]
        assert res.significant(res.result("x", p.a, p.b)) == (p.pvalue_adjusted <= 0.05)
        for msg in (p.a, p.b):
            want = mean_interval(own.theta_bar[msg], 0.95, 0, 1)
            assert s.levels.values[msg] == (want["mean"], tuple(want["ci"]))
    assert s.ranking[0] == "hat" and s.ranking[-1] == "gloves"


def test_python_repr_is_short_and_html_has_both_tables(pick3):
    res = survey.analyze(pick3, flips=99)
    text = repr(res)
    assert len(text) <= 1000 and "share chosen" in text and "Holm" in text
    assert "adjusted p ," not in text and not text.rstrip().endswith("joint CI")  # a level row had blank cells
    page = res._repr_html_()
    assert page.count("<table>") == 2 and "simultaneous" in page and " vs " in page


def test_a_named_pair_and_two_messages_are_unchanged(pick3, four):
    one = survey.analyze(pick3, "sneakers", "boots", flips=99)
    assert not isinstance(one, MessageSetAnalysis) and len(one.results) == 1
    two = four[four["message"].isin(["hat", "cap"])]
    res = survey.analyze(two, flips=99)
    assert not isinstance(res, MessageSetAnalysis) and "message_sets" not in res.to_dict()
    assert not isinstance(survey.analyze(two, every_pair=True, flips=99), MessageSetAnalysis)


def test_holm_keeps_the_family_wise_error_of_three_equal_messages():
    # pick one of 3, three equally good messages, a shared paraphrase shift (rho = 0.5) and a position bias: any
    # Holm-significant pair is a false claim. 200 simulated studies through survey.analyze, ~7 s of CPU: 9 of 200
    # Holm rejections (99% interval 0.016-0.097), 29 unadjusted (from 0.087: the missing adjustment would fail).
    reps, holm, raw = 200, 0, 0
    for s in range(reps):
        df = simulate_pick_table(10, 8, 1, ["a", "b", "c"], seed=7000 + s, rho=0.5, positions=[0.4, 0, 0])
        (ms,) = survey.analyze(df, flips=99).sets
        holm += any(p.pvalue_adjusted <= 0.05 for p in ms.pairs)
        raw += any(p.pvalue <= 0.05 for p in ms.pairs)
    assert stats.binomtest(holm, reps).proportion_ci(0.99).low <= 0.05  # family-wise error not above alpha
    assert raw > holm  # unadjusted testing of the 3 pairs inflates it ...
    assert stats.binomtest(raw, reps).proportion_ci(0.99).low > 0.05  # ... detectably: this test can fail


def test_a_sequential_replay_of_k_messages_asks_for_the_pair(four):
    from survey.errors import SurveyError

    with pytest.raises(SurveyError, match="follows one pair of messages: name the two messages"):
        survey.sequential(four, design={"method": "betting"})


def test_a_pair_the_study_declared_is_the_one_analysed(four):
    from survey.data.sources import Source

    declared = Source(four, "", "table", None, {"humans": {"path": "h.csv", "spec": {"compare": ["scarf", "hat"]}}},
                      None)
    res = survey.analyze(declared, flips=99)  # [humans] compare = ["scarf", "hat"]: that pair, as before
    assert not isinstance(res, MessageSetAnalysis) and [(r.a, r.b) for r in res.results] == [("scarf", "hat")]
    assert isinstance(survey.analyze(declared, every_pair=True, flips=99), MessageSetAnalysis)  # asked for all


def test_benjamini_hochberg_when_the_family_asks_for_it(four):
    res = survey.analyze(four, flips=999, family="bh")
    (s,) = res.sets
    raw = [p.pvalue for p in s.pairs]
    assert s.adjustment == "bh" and [p.pvalue_adjusted for p in s.pairs] == pytest.approx(
        multipletests(raw, method="fdr_bh")[1])
    chosen = [p for p in s.pairs if p.pvalue_adjusted <= 0.05]
    assert 0 < len(chosen) < 6  # some pairs selected, some not
    for p in s.pairs:
        if p.pvalue_adjusted > 0.05:
            assert p.simultaneous_ci is None  # no false-coverage-rate interval for a pair not selected
            continue
        own = compare_messages(four, "x", p.a, p.b, n_resamples=999)
        d = own.d_perturbation[~np.isnan(own.d_perturbation)]
        level = 1 - len(chosen) * 0.05 / 6  # Benjamini & Yekutieli's 1 - R alpha / m
        assert p.simultaneous_ci == effect_ci(d, confidence=level, bounds=(-1, 1)).ci
    json.dumps(res.to_dict(), allow_nan=False)
    assert "false-coverage-rate" in repr(res) or "false-coverage-rate" in res._repr_html_()


def test_rank3_borda_scores_once_and_every_pair():
    from survey.kinds.rank.simulation import simulate_rank_table

    table = simulate_rank_table(10, 8, 1, ["sneakers", "boots", "sandals"], seed=3, deltas={"sneakers": 1.0})
    (s,) = survey.analyze(table, flips=99).sets
    assert len(s.pairs) == 3 and set(s.levels.values) == {"sneakers", "boots", "sandals"}
    assert s.levels.quantity.startswith("Borda score") and "mean_rank" in s.levels.extra
