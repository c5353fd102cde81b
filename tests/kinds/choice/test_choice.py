"""Forced choice: the preference and position-bias sign-flip tests, checked by hand and on simulated surveys
whose truth is known (null rejection rates within a 99% Clopper-Pearson interval, power, direction)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from survey.errors import SurveyError
from survey.kinds.choice.model import choice_probabilities, simulate_choice_counts
from survey.kinds.choice.statistics import (
    choice_pvalues,
    choice_statistics,
    choice_test,
    persona_preferences,
)
from survey.stats.batched import sign_pvalues, wilcoxon_pvalues

S = 2000  # simulated surveys per condition
N, M, R = 50, 10, 5
ALPHA = 0.05


def attainable_size(m: int, alpha: float = ALPHA) -> float:
    """The exact two-sided sign-flip test's p-values are multiples of 2/2^m: its real size at alpha."""
    return 2 * np.floor(alpha * 2 ** m / 2) / 2 ** m


def rate_interval(rejections: np.ndarray) -> tuple[float, float, float]:
    k, s = int(rejections.sum()), len(rejections)
    ci = stats.binomtest(k, s).proportion_ci(0.99, method="exact")
    return k / s, ci.low, ci.high


@pytest.mark.parametrize("rho", [0.3, 0.6])
def test_null_preference_test_holds_its_size_under_position_bias_and_shared_shifts(rho):
    rng = np.random.default_rng(12 + int(10 * rho))
    counts = simulate_choice_counts(N, M, R, rng, delta=0.0, sigma=1.0, rho=rho, position=0.7, tau=0.5, size=(S,))
    p_pref, p_pos = choice_pvalues(*counts.arrays())
    rate, low, high = rate_interval(p_pref <= ALPHA)
    size = attainable_size(M)  # 50/1024 = 0.0488
    assert low <= size <= high, f"rate {rate} over {S} surveys; attainable size {size}"
    assert low <= ALPHA  # not above the nominal level
    # the model picks the first-shown option far more often: the position test sees it every time
    assert (p_pos <= ALPHA).mean() >= 0.99
    # ... while the per-persona tests, which assume independent personas, reject far too often
    d_pers = persona_preferences(*counts.arrays())
    assert (wilcoxon_pvalues(d_pers) <= ALPHA).mean() > 0.3
    assert (sign_pvalues(d_pers) <= ALPHA).mean() > 0.3


def test_null_position_test_holds_its_size_without_position_bias():
    rng = np.random.default_rng(5)
    counts = simulate_choice_counts(N, M, R, rng, delta=0.8, sigma=1.0, rho=0.3, position=0.5, size=(S,))
    _, p_pos = choice_pvalues(*counts.arrays())
    rate, low, high = rate_interval(p_pos <= ALPHA)
    assert low <= attainable_size(M) <= high, f"rate {rate} over {S} surveys"


@pytest.mark.parametrize("delta", [0.6, -0.6])
def test_preference_test_has_power_and_the_effect_has_the_right_sign(delta):
    rng = np.random.default_rng(7)
    counts = simulate_choice_counts(N, M, R, rng, delta=delta, sigma=1.0, rho=0.3, position=0.7, size=(1000,))
    p_pref, _ = choice_pvalues(*counts.arrays())
    d, _ = choice_statistics(*counts.arrays())
    assert (p_pref <= ALPHA).mean() > 0.4
    # delta is B over A (survey.stats.beta_logit's convention): positive delta, fewer choose A
    share_a = d.mean(axis=1) + 0.5
    assert np.sign(np.median(share_a) - 0.5) == -np.sign(delta)
    assert (np.sign(share_a - 0.5) == -np.sign(delta)).mean() > 0.9
    one = choice_test(*(x[0] for x in counts.arrays()))
    assert np.sign(one.preference.share - 0.5) == -np.sign(delta) == np.sign(one.preference.difference)


def test_one_sided_alternative_greater_means_a_is_preferred():
    rng = np.random.default_rng(3)
    counts = simulate_choice_counts(N, M, R, rng, delta=-1.0, sigma=0.5, rho=0.3, position=0.6)
    greater = choice_test(*counts.arrays(), alternative="greater")
    less = choice_test(*counts.arrays(), alternative="less")
    assert greater.pvalue < 0.01 < 0.99 < less.pvalue


# --- a survey small enough to compute by hand -----------------------------------------------------------

# 2 personas x 3 pairs, 4 replies per (persona, pair, order)
FIRST_AB = np.array([[3, 4, 2], [2, 3, 4]])  # chose A (shown first)
FIRST_BA = np.array([[1, 2, 0], [2, 1, 1]])  # chose B (shown first)
VALID = np.full((2, 3), 4)


def test_statistics_match_a_hand_computation():
    res = choice_test(FIRST_AB, VALID, FIRST_BA, VALID, pairs=["p1", "p2", "p3"])
    # share choosing A per pair: AB order (3+2)/8, (4+3)/8, (2+4)/8; BA order chose A = 4 - first
    ab = np.array([5, 7, 6]) / 8
    ba = np.array([(3 + 2), (2 + 3), (4 + 3)]) / 8
    d = (ab + ba) / 2 - 0.5
    pos = (ab - ba) / 2
    np.testing.assert_allclose(res.d_pair, d)
    np.testing.assert_allclose(res.position_pair, pos)
    assert res.preference.share == pytest.approx(d.mean() + 0.5)
    assert res.preference.difference == pytest.approx(2 * d.mean())
    assert res.position_bias.share == pytest.approx(pos.mean() + 0.5)
    # share choosing first, counted directly: (first_ab + first_ba) / all replies
    assert res.position_bias.share == pytest.approx((FIRST_AB.sum() + FIRST_BA.sum()) / (2 * VALID.sum()))
    # per persona: mean over pairs and orders of (share choosing A - 1/2)
    c = (FIRST_AB / 4 + (4 - FIRST_BA) / 4) / 2 - 0.5
    np.testing.assert_allclose(res.d_persona, c.mean(axis=1))
    assert (res.n_personas, res.n_pairs, res.pairs, res.pairs_left_out) == (2, 3, ["p1", "p2", "p3"], [])
    assert res.statistic == res.preference.statistic and res.pvalue == res.preference.pvalue


def brute_force_pvalue(k: np.ndarray) -> float:
    """Two-sided sign-flip p-value of integers k_j by listing all 2^m sign vectors: exact, no rounding."""
    obs = abs(int(k.sum()))
    return float(np.mean([abs(int(np.dot(eps, k))) >= obs for eps in itertools.product((1, -1), repeat=len(k))]))


def test_pvalues_match_brute_force_enumeration_of_all_sign_vectors():
    rng = np.random.default_rng(11)
    n, m, r = 6, 7, 3
    counts = simulate_choice_counts(n, m, r, rng, delta=0.7, sigma=1.0, rho=0.5, position=0.65, size=(40,))
    p_pref, p_pos = choice_pvalues(*counts.arrays())
    # every reply is valid: D_j and P_j are integers over 2 n r, so ties are exact
    chose_a_ab = counts.first_ab.sum(axis=1)
    chose_a_ba = (r - counts.first_ba).sum(axis=1)
    k_pref = chose_a_ab + chose_a_ba - n * r  # 2 n r D_j
    k_pos = chose_a_ab - chose_a_ba  # 2 n r P_j
    d, pos = choice_statistics(*counts.arrays())
    np.testing.assert_allclose(d, k_pref / (2 * n * r), atol=1e-12)
    np.testing.assert_allclose(pos, k_pos / (2 * n * r), atol=1e-12)
    for s in range(40):
        assert p_pref[s] == pytest.approx(brute_force_pvalue(k_pref[s]))
        assert p_pos[s] == pytest.approx(brute_force_pvalue(k_pos[s]))
    assert len(np.unique(p_pref)) > 5  # the check covers many p-values, not one
    one = choice_test(*(x[0] for x in counts.arrays()))
    assert one.pvalue == pytest.approx(p_pref[0]) and one.position_bias.pvalue == pytest.approx(p_pos[0])
    assert one.preference.exact and one.preference.method == "enumeration"


def test_interval_agrees_with_the_test_and_lies_within_shares():
    rng = np.random.default_rng(2)
    counts = simulate_choice_counts(N, M, R, rng, delta=0.3, sigma=1.0, rho=0.3, position=0.7, size=(60,))
    for s in range(60):
        res = choice_test(*(x[s] for x in counts.arrays()))
        for t in (res.preference, res.position_bias):
            lo, hi = t.ci
            assert 0 <= lo <= t.share <= hi <= 1
            assert (t.pvalue <= ALPHA) == (not lo <= 0.5 <= hi)
            assert t.difference_ci == pytest.approx((2 * lo - 1, 2 * hi - 1))


# --- missing replies ----------------------------------------------------------------------------------

def test_cells_without_valid_replies_are_left_out_and_a_pair_missing_an_order_is_reported():
    valid_ab, valid_ba = VALID.copy(), VALID.copy()
    first_ab, first_ba = FIRST_AB.copy(), FIRST_BA.copy()
    valid_ab[0, 0] = first_ab[0, 0] = 0  # persona 1 has no valid reply to pair 1 in order AB
    valid_ba[:, 2] = first_ba[:, 2] = 0  # nobody answered pair 3 with B first
    res = choice_test(first_ab, valid_ab, first_ba, valid_ba, pairs=["p1", "p2", "p3"], invalid=5)
    assert res.pairs == ["p1", "p2"] and res.pairs_left_out == ["p3"] and res.n_pairs == 2
    assert res.empty_cells == 3 and res.invalid == 5
    # pair 1: the AB mean uses persona 2 only; each order still weighs one half
    assert res.d_pair[0] == pytest.approx((2 / 4 + 5 / 8) / 2 - 0.5)
    assert np.isnan(res.d_pair[2]) and np.isnan(res.position_pair[2])
    assert any("cannot reject" in n for n in res.notes)  # two pairs are too few for any test
    # the batched path enters a left-out pair as 0: the same exact p-value as dropping it
    p_pref, p_pos = choice_pvalues(first_ab[None], valid_ab[None], first_ba[None], valid_ba[None])
    assert p_pref[0] == pytest.approx(res.pvalue) and p_pos[0] == pytest.approx(res.position_bias.pvalue)


def test_random_invalid_replies_keep_the_null_size():
    rng = np.random.default_rng(9)
    counts = simulate_choice_counts(N, M, 2, rng, delta=0.0, sigma=1.0, rho=0.6, position=0.7, invalid=0.4,
                                    size=(S,))
    assert (counts.valid_ab == 0).any()  # some cells are empty
    p_pref, _ = choice_pvalues(*counts.arrays())
    rate, low, high = rate_interval(p_pref <= ALPHA)
    assert low <= attainable_size(M) <= high, f"rate {rate} over {S} surveys"


def test_no_pair_with_both_orders_or_bad_counts_are_user_errors():
    empty = np.zeros((2, 3))
    with pytest.raises(SurveyError, match="no pair of 'A' and 'B' has valid replies in both orders"):
        choice_test(FIRST_AB, VALID, empty, empty)
    with pytest.raises(SurveyError, match="one shape"):
        choice_test(FIRST_AB, VALID, FIRST_BA, VALID[:, :2])
    with pytest.raises(SurveyError, match="at most the valid counts"):
        choice_test(FIRST_AB + 3, VALID, FIRST_BA, VALID)
    with pytest.raises(SurveyError, match="pair labels"):
        choice_test(FIRST_AB, VALID, FIRST_BA, VALID, pairs=["only one"])
    with pytest.raises(SurveyError, match="alpha must be a level between 0 and 1"):
        choice_test(FIRST_AB, VALID, FIRST_BA, VALID, alpha=5)
    with pytest.raises(SurveyError, match="confidence must be a level"):
        choice_test(FIRST_AB, VALID, FIRST_BA, VALID, confidence=95)


# --- notes and warnings -------------------------------------------------------------------------------

def test_notes_say_what_validity_rests_on_and_warn_about_position_bias():
    rng = np.random.default_rng(4)
    strong = choice_test(*simulate_choice_counts(N, M, R, rng, sigma=0.5, position=0.9).arrays())
    assert "exchangeable" in strong.note and "cancels the position bias" in strong.note
    assert strong.position_bias.share > 0.7
    assert "reads position, not content" in strong.warning
    assert "reads position" in strong.to_dict()["warning"]
    second = choice_test(*simulate_choice_counts(N, M, R, rng, sigma=0.5, position=0.1).arrays())
    assert "second-shown" in second.warning
    mild = choice_test(*simulate_choice_counts(N, M, R, rng, sigma=0.5, position=0.6).arrays())
    assert mild.position_bias.pvalue <= ALPHA and "averaging both orders cancels it" in mild.warning
    none = choice_test(*simulate_choice_counts(N, M, R, rng, sigma=0.5, position=0.5).arrays())
    assert none.position_bias.pvalue > ALPHA and none.warning is None
    persona = none.to_dict()["persona_tests"]
    assert set(persona) == {"sign", "wilcoxon"} and all("INVALID" in t["note"] for t in persona.values())


def test_to_dict_carries_both_tests_and_the_counts():
    out = choice_test(FIRST_AB, VALID, FIRST_BA, VALID, a="sneakers", b="boots").to_dict()
    assert {"preference", "position_bias", "n_personas", "n_pairs", "invalid", "pairs_left_out",
            "notes", "warning"} <= set(out)
    assert out["preference"]["what"] == "share choosing sneakers − share choosing boots, both orders averaged"
    assert {"statistic", "pvalue", "share", "ci", "difference", "difference_ci"} <= set(out["preference"])


# --- the simulation model ------------------------------------------------------------------------------

def test_model_position_is_the_share_choosing_first_at_no_preference():
    rng = np.random.default_rng(0)
    p_ab, p_ba = choice_probabilities(4, 3, rng, sigma=0.0, position=0.7)
    np.testing.assert_allclose(p_ab, 0.7) and np.testing.assert_allclose(p_ba, 0.7)
    # with a preference for B (delta > 0) A first is chosen less often, B first more often
    p_ab, p_ba = choice_probabilities(4, 3, rng, sigma=0.0, position=0.5, delta=1.0)
    np.testing.assert_allclose(p_ab, 1 / (1 + np.e)) and np.testing.assert_allclose(p_ba, np.e / (1 + np.e))
    # shared shifts: with rho = 1 every persona sees the same utilities (no persona pull: tau = 0)
    p_ab, _ = choice_probabilities(5, 3, rng, sigma=1.0, rho=1.0, size=(2,))
    assert p_ab.shape == (2, 5, 3) and np.allclose(p_ab, p_ab[:, :1, :])
    with pytest.raises(SurveyError, match="0 < position < 1"):
        choice_probabilities(4, 3, rng, position=1.0)
