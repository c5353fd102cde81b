"""The effect interval inverts the sign-flip test exactly: checked against the test itself and against
subset means in exact rational arithmetic, on tied data (theta-hat are fractions of r)."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from survey.data.table import validate_table
from survey.stats import compare_messages, effect_ci, sign_flip_test


def tied_differences(rng, m, n=None, r=None):
    """d_j = mean_i (theta_ij^A - theta_ij^B) with theta = yes/r, as exact fractions."""
    n = n or int(rng.integers(2, 6))
    r = r or int(rng.integers(1, 4))
    shift = rng.uniform(0, 0.5)
    ya = rng.binomial(r, 0.3 + shift, size=(n, m))
    yb = rng.binomial(r, 0.3, size=(n, m))
    return [Fraction(int(s), n * r) for s in (ya - yb).sum(axis=0)]


def exact_interval(d: list[Fraction], alpha: float) -> tuple[Fraction, Fraction] | None:
    """The q-th smallest and largest mean of the non-empty proper subsets, q = floor(alpha 2^(m-1))."""
    m = len(d)
    q = math.floor(alpha * 2 ** (m - 1))
    if q == 0:
        return None
    means = sorted(sum(sub, Fraction(0)) / k for k in range(1, m) for sub in itertools.combinations(d, k))
    return means[q - 1], means[-q]


def test_reported_tied_case_is_exactly_zero_to_three_quarters():
    # 4 personas, r = 1: A's six paraphrases have 1, 1, 3, 0, 1, 2 Yes, B's none.
    d = np.array([1, 1, 3, 0, 1, 2]) / 4
    assert sign_flip_test(d).pvalue == 0.0625
    res = effect_ci(d, bounds=(-1, 1))
    assert res.ci == (0.0, 0.75)
    assert res.exact and res.to_dict()["exact"] is True


def test_reported_tied_case_through_the_table():
    yes_a = [1, 1, 3, 0, 1, 2]
    rows = []
    for j, k in enumerate(yes_a):
        for i in range(4):
            rows.append(("m", "A", f"a{j + 1}", f"p{i}", 0, int(i < k)))
            rows.append(("m", "B", f"b{j + 1}", f"p{i}", 0, 0))
    df = validate_table(pd.DataFrame(rows, columns=["model", "message", "perturbation", "persona",
                                                    "replicate", "answer"]))
    res = compare_messages(df, "m", "A", "B")
    assert res.permutation.pvalue == 0.0625
    assert res.effect.ci == (0.0, 0.75)


@pytest.mark.parametrize("confidence", [0.95, 0.9, 0.75])
def test_interval_is_the_order_statistics_of_subset_means(confidence):
    rng = np.random.default_rng(int(confidence * 100))
    alpha = 1 - confidence
    for _ in range(25):
        m = int(rng.integers(2, 11))
        d = tied_differences(rng, m)
        res = effect_ci([float(x) for x in d], confidence=confidence, bounds=(-1, 1))
        expected = exact_interval(d, alpha)
        if expected is None:
            assert res.ci == (-1.0, 1.0)
        else:
            assert res.ci == pytest.approx((float(expected[0]), float(expected[1])), abs=1e-12)


def test_interval_is_where_the_test_does_not_reject_on_a_fine_grid():
    rng = np.random.default_rng(7)
    alpha = 0.05
    for _ in range(25):
        m = int(rng.integers(6, 11))
        d = np.array([float(x) for x in tied_differences(rng, m)])
        lo, hi = effect_ci(d, bounds=(-1, 1)).ci
        for end, out in ((lo, -1e-7), (hi, 1e-7)):
            assert sign_flip_test(d - end).pvalue > alpha  # the ends belong to the interval
            assert sign_flip_test(d - (end + out)).pvalue <= alpha
        for delta in np.linspace(d.min() - 0.05, d.max() + 0.05, 301):
            if min(abs(delta - lo), abs(delta - hi)) < 1e-9:
                continue
            assert (sign_flip_test(d - delta).pvalue > alpha) == (lo <= delta <= hi), (d, delta, lo, hi)


def test_zero_outside_interval_exactly_when_test_rejects_on_tied_data():
    rng = np.random.default_rng(2026)
    disagreements, near = [], 0
    for _ in range(300):
        m = int(rng.integers(3, 13))
        d = np.round([float(x) for x in tied_differences(rng, m, r=int(rng.integers(1, 3)))], 12)
        p = sign_flip_test(d).pvalue
        res = effect_ci(d, bounds=(-1, 1))
        lo, hi = res.ci
        near += min(abs(lo), abs(hi)) < 1e-9
        if (not lo <= 0 <= hi) != (p <= 0.05):
            disagreements.append((d.tolist(), p, lo, hi))
    assert not disagreements
    assert near > 5  # the data put an end exactly on 0 often enough to test the ties


@pytest.mark.parametrize("m", [21, 24])
def test_bisection_beyond_order_statistics_still_agrees_with_the_test_at_zero(m):
    rng = np.random.default_rng(m)
    for _ in range(4):
        d = np.round([float(x) for x in tied_differences(rng, m, n=3, r=1)], 12)
        res = effect_ci(d, bounds=(-1, 1))
        assert res.exact
        lo, hi = res.ci
        assert (not lo <= 0 <= hi) == (sign_flip_test(d).pvalue <= 0.05)


def test_monte_carlo_interval_says_it_is_not_exact():
    d = np.random.default_rng(3).normal(0.1, 0.2, 35)
    res = effect_ci(d, n_resamples=999)
    assert not res.exact and res.to_dict()["exact"] is False


def _near_alpha(m: int, alpha: float, rng, **test_kw):
    """Differences whose sign-flip p-value lies close to alpha on either side (the cases where an interval
    inverted from other p-values than the test's could disagree with it)."""
    from survey.stats.permutation import sign_flip_test

    found = {"below": None, "above": None}
    for _ in range(400):
        d = np.round(rng.normal(0.0, 0.1, m), 3)
        d += rng.uniform(0.0, 0.06)
        p = sign_flip_test(d, **test_kw).pvalue
        side = "below" if p <= alpha else "above"
        if abs(p - alpha) < 0.012 and found[side] is None:
            found[side] = (d, p)
        if all(found.values()):
            break
    return [v for v in found.values() if v is not None]


@pytest.mark.parametrize("m", [31, 35, 40])
def test_zero_outside_the_interval_iff_the_exact_test_rejects_beyond_the_exact_interval(m):
    # 30 < m <= 40: the test is exact (meet in the middle), the interval's ends come from random flips; the
    # test's verdict at 0 brackets the interval, so the two never disagree (p = .04826 once came with an
    # interval holding 0).
    from survey.stats.permutation import sign_flip_test

    cases = _near_alpha(m, 0.05, np.random.default_rng(m))
    assert len(cases) == 2  # one just rejected, one just not: both sides are checked
    for d, p in cases:
        res = effect_ci(d, confidence=0.95, n_resamples=2000, seed=3)
        assert sign_flip_test(d).exact and sign_flip_test(d).pvalue == p
        lo, hi = res.ci
        assert (not lo <= 0 <= hi) == (p <= 0.05), (m, p, res.ci)


def test_zero_outside_the_interval_iff_the_monte_carlo_test_rejects_with_the_same_flips():
    from survey.stats.permutation import sign_flip_test

    m = 45
    cases = _near_alpha(m, 0.05, np.random.default_rng(7), n_resamples=2000, seed=3)
    assert cases
    for d, p in cases:
        assert not sign_flip_test(d, n_resamples=2000, seed=3).exact
        lo, hi = effect_ci(d, confidence=0.95, n_resamples=2000, seed=3).ci
        assert (not lo <= 0 <= hi) == (p <= 0.05), (p, lo, hi)
