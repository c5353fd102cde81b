"""survey.stats.family: Holm and Benjamini-Hochberg equal statsmodels' multipletests; the family's decisions
with and without a primary question (serial gatekeeping) and its interval levels."""

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from survey.errors import SurveyError
from survey.stats.family import adjust, decide_family, effect_correlation, interval_levels


@pytest.mark.parametrize("method,theirs", [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjust_equals_statsmodels_on_random_vectors_with_ties_and_ones(method, theirs):
    rng = np.random.default_rng(30)
    for _ in range(60):  # statsmodels takes ~40 ms a Holm call: 60 vectors of 1-14 p-values still hit ties and ones
        m = int(rng.integers(1, 15))
        p = rng.uniform(size=m) ** 2
        p[rng.uniform(size=m) < 0.25] = 1.0
        if m > 2:
            p[2] = p[0]  # a tie
        np.testing.assert_allclose(adjust(p, method), multipletests(p, method=theirs)[1], rtol=0, atol=1e-12)


def test_unknown_method_is_one_clear_error():
    with pytest.raises(SurveyError, match="holm, bh"):
        adjust([0.1], "bonferroni-ish")


def test_without_primary_one_family_over_everything():
    p = [0.01, 0.02, 0.03, 0.5]
    d = decide_family(p, [False] * 4, alpha=0.05, method="holm")
    np.testing.assert_allclose(d.pvalue_adjusted, multipletests(p, method="holm")[1])
    assert d.significant == (True, False, False, False) and d.gate_open is None
    assert d.levels == (1 - 0.05 / 4,) * 4 and not any(d.decides)


def test_primary_at_alpha_unadjusted_and_gates_the_secondary_family():
    d = decide_family([0.04, 0.001, 0.02, 0.5], [True, False, False, False], alpha=0.05)
    assert d.pvalue_adjusted[0] == 0.04 and d.significant[0] and d.decides == (True, False, False, False)
    holm = multipletests([0.001, 0.02, 0.5], method="holm")[1]
    np.testing.assert_allclose(d.pvalue_adjusted[1:], np.maximum(holm, 0.04))
    assert d.levels[0] == 0.95 and d.levels[1] == pytest.approx(1 - 0.05 / 3)
    closed = decide_family([0.2, 0.001, 0.002], [True, False, False])
    assert closed.gate_open is False and closed.significant == (False, False, False)
    assert closed.pvalue_adjusted[1:] == (0.2, 0.2)  # a secondary is never more significant than the gate


def test_bh_intervals_are_fcr_levels_for_the_selected_only():
    adjusted = multipletests([0.001, 0.01, 0.2, 0.9], method="fdr_bh")[1]
    assert interval_levels(adjusted, 0.05, "bh") == [1 - 2 * 0.05 / 4, 1 - 2 * 0.05 / 4, None, None]


def test_effect_correlation_over_shared_cells():
    x = {"p1": 0.1, "p2": 0.2, "p3": 0.3, "p4": 0.5}
    y = {"p1": 0.2, "p2": 0.4, "p3": 0.6, "p9": 9.0}
    assert effect_correlation(x, y) == (pytest.approx(1.0), 3)
    assert effect_correlation(x, {"p1": 1.0}) == (None, 1)


def test_a_closed_gate_gives_the_untested_secondaries_no_family_interval():
    shut = decide_family([0.30, 0.001, 0.002], [True, False, False], 0.05, "holm")
    assert shut.gate_open is False and shut.significant == (False, False, False)
    assert shut.levels == (0.95, None, None)  # intervals excluding 0 would contradict "no reliable difference"
    open_ = decide_family([0.01, 0.001, 0.002], [True, False, False], 0.05, "holm")
    assert open_.gate_open is True and open_.levels == (0.95, 0.975, 0.975)
