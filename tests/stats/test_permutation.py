"""The sign-flip and unpaired permutation tests against scipy.stats.permutation_test and brute force."""

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from survey.stats import sign_flip_pvalues, sign_flip_test, unpaired_permutation_test
from survey.stats.permutation import count_ge, subset_sums

SCIPY_REFERENCE = json.loads((Path(__file__).parents[1] / "fixtures" / "scipy_reference.json").read_text())


def scipy_paired(d, alternative):
    # Paired 'samples' permutation of (x, y) swaps x_i and y_i, i.e. flips the sign of d_i.
    x, y = d, np.zeros_like(d)
    res = stats.permutation_test((x, y), lambda a, b, axis: np.mean(a - b, axis=axis),
                                 permutation_type="samples", n_resamples=np.inf,
                                 alternative=alternative, vectorized=True)
    return res.pvalue


CASES = [(m, alt) for m in (3, 7, 12, 16) for alt in ("two-sided", "greater", "less")]


@pytest.mark.parametrize("m, alternative", CASES)
def test_exact_equals_scipy(m, alternative):
    rng = np.random.default_rng(m)
    d = rng.normal(0.1, 0.3, m)
    ours = sign_flip_test(d, alternative=alternative)
    assert ours.exact and ours.n_resamples == 2 ** m
    assert ours.pvalue == pytest.approx(scipy_paired(d, alternative), rel=1e-12, abs=0)


def test_exact_equals_scipy_at_the_top_of_full_enumeration():
    # m = 20 (2^20 flips): scipy needs ~10 s, so its p-value was computed once (scripts/scipy_reference.py)
    for case in SCIPY_REFERENCE["sign_flip"]:
        d = np.array(case["d"])
        ours = sign_flip_test(d, alternative=case["alternative"])
        assert ours.exact and ours.n_resamples == 2 ** len(d) == 2 ** 20
        assert ours.pvalue == pytest.approx(case["pvalue"], rel=1e-12, abs=0)


def test_ties_from_fractions_are_counted_as_ties():
    # theta-hats are fractions of r: many exactly equal |d_j|; 0.1+0.2 != 0.3 in floating point.
    d = np.array([0.1, 0.2, 0.3, -0.3, 0.1, 0.2])
    brute = [abs(np.dot(e, d)) >= abs(d.sum()) - 1e-12 for e in itertools.product((1, -1), repeat=6)]
    assert sign_flip_test(d).pvalue == pytest.approx(np.mean(brute))
    assert sign_flip_test(np.zeros(5)).pvalue == 1.0


@pytest.mark.parametrize("m", [23, 24])
def test_meet_in_the_middle_equals_enumeration(m):
    rng = np.random.default_rng(100 + m)
    d = rng.normal(0.05, 0.2, m)
    # The same tolerance as the test: the all-plus vector's sum, added in another order, may fall
    # a few ulps below sum(d).
    s_obs = abs(d.sum()) - 1e-9 * np.abs(d).sum()
    full = int(np.count_nonzero(subset_sums(d) >= s_obs))
    assert count_ge(d, s_obs) == full
    res = sign_flip_test(d)
    assert res.method == "meet-in-the-middle" and res.exact
    assert res.pvalue == pytest.approx(min(1.0, 2 * full / 2 ** m), rel=1e-12)


def test_m40_exact_agrees_with_large_monte_carlo():
    rng = np.random.default_rng(40)
    d = rng.normal(0.03, 0.2, 40)
    exact = sign_flip_test(d)
    assert exact.exact and exact.method == "meet-in-the-middle"
    mc = sign_flip_test(d, method="monte-carlo", n_resamples=400_000, seed=1)
    se = math.sqrt(exact.pvalue * (1 - exact.pvalue) / 400_000)
    assert abs(mc.pvalue - exact.pvalue) < 5 * se + 1e-5


def test_monte_carlo_beyond_exact_range_is_seeded_and_valid_form():
    d = np.random.default_rng(0).normal(0, 1, 50)
    r1 = sign_flip_test(d, n_resamples=999, seed=3)
    r2 = sign_flip_test(d, n_resamples=999, seed=3)
    assert not r1.exact and r1.pvalue == r2.pvalue
    assert r1.pvalue >= 1 / 1000  # (1 + count) / (1 + B) is never 0


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_batched_pvalues_match_single(alternative):
    rng = np.random.default_rng(5)
    D = rng.normal(0.05, 0.3, (40, 9))
    batched = sign_flip_pvalues(D, alternative)
    single = [sign_flip_test(row, alternative).pvalue for row in D]
    assert np.allclose(batched, single, rtol=1e-12)


def test_monte_carlo_pvalues_count_the_observed_statistic():
    # All d_j > 0 and m = 50: only the all-plus flip (probability 2^-50) reaches the observed sum,
    # so no random flip does and p = (1 + 0) / (1 + B) exactly; it is never 0 and never count / B.
    d = np.linspace(0.1, 0.5, 50)
    B = 999
    assert sign_flip_test(d, n_resamples=B, seed=1).pvalue == 1 / (B + 1)
    assert sign_flip_test(-d, alternative="less", n_resamples=B, seed=1).pvalue == 1 / (B + 1)
    assert np.all(sign_flip_pvalues(np.stack([d, -d]), n_resamples=B, exact_max_m=12, seed=1) == 1 / (B + 1))
    # every flip of all-zero differences ties with the observed 0: p = (1 + B) / (1 + B)
    assert sign_flip_test(np.zeros(50), n_resamples=B, seed=1).pvalue == 1.0
    assert sign_flip_pvalues(np.zeros((1, 50)), n_resamples=B, seed=1)[0] == 1.0
    # unpaired: C(50, 25) relabelings; only the observed one puts all large values in x
    res = unpaired_permutation_test(d[25:], d[:25], n_resamples=B, seed=1)
    assert not res.exact and res.pvalue == 1 / (B + 1)


def test_batched_monte_carlo_agrees_with_exact():
    rng = np.random.default_rng(6)
    D = rng.normal(0.1, 0.3, (30, 14))
    exact = sign_flip_pvalues(D, exact_max_m=14)
    mc = sign_flip_pvalues(D, n_resamples=20_000, exact_max_m=13, seed=2)
    se = np.sqrt(exact * (1 - exact) / 20_000)
    assert np.all(np.abs(mc - exact) <= 5 * se + 1e-4)


@pytest.mark.parametrize("na, nb", [(5, 5), (6, 4), (8, 11)])
def test_unpaired_one_sided_equals_scipy_and_two_sided_brute_force(na, nb):
    rng = np.random.default_rng(na * 31 + nb)
    x, y = rng.normal(0.3, 0.2, na), rng.normal(0.2, 0.2, nb)
    res = stats.permutation_test((x, y), lambda a, b, axis: np.mean(a, axis=axis) - np.mean(b, axis=axis),
                                 permutation_type="independent", n_resamples=np.inf,
                                 alternative="greater", vectorized=True)
    assert unpaired_permutation_test(x, y, alternative="greater").pvalue == pytest.approx(res.pvalue)
    pooled, t = np.concatenate([x, y]), x.mean() - y.mean()
    hits = [abs(pooled[list(c)].mean() - np.delete(pooled, list(c)).mean()) >= abs(t) - 1e-12
            for c in itertools.combinations(range(na + nb), na)]
    assert unpaired_permutation_test(x, y).pvalue == pytest.approx(np.mean(hits))


def test_unpaired_monte_carlo_when_too_many_relabelings():
    rng = np.random.default_rng(9)
    x, y = rng.normal(0, 1, 25), rng.normal(0, 1, 25)
    res = unpaired_permutation_test(x, y, n_resamples=1999, seed=2)
    assert not res.exact and 0 < res.pvalue <= 1


def test_bad_alternative_is_user_error():
    from survey.errors import SurveyError
    with pytest.raises(SurveyError, match="alternative"):
        sign_flip_test([1.0, 2.0], alternative="bigger")
    # an exact test far beyond the automatic range is refused before it allocates 2^(m/2) sums
    with pytest.raises(SurveyError, match="monte-carlo"):
        sign_flip_test(np.ones(51), method="exact")


def test_a_zero_effect_is_reported_as_zero_not_summation_noise():
    # 0.1 + 0.2 - 0.3 + 0.1 - 0.1 is 1.1e-17 in floating point; the report printed such noise as "1.73e-18".
    from survey.stats import effect_ci

    d = np.array([0.1, 0.2, -0.3, 0.1, -0.1])
    assert d.sum() / len(d) != 0
    assert sign_flip_test(d).statistic == 0.0
    assert effect_ci(d).estimate == 0.0
