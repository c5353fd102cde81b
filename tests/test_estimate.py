"""Estimator of seeds/004 appendix C: Beta MLE against scipy, recovery within the measured bias."""

import numpy as np
import pytest
from scipy import stats

from survey.model import make_params, simulate, simulate_counts
from survey.stats import estimate, estimate_counts, fit_beta
from survey.table import validate_table


def test_beta_mle_equals_scipy_fit():
    p = stats.beta(2.0, 3.0).rvs(size=500, random_state=np.random.default_rng(1))
    a, b = fit_beta(p)
    sa, sb, _, _ = stats.beta.fit(p, floc=0, fscale=1)
    assert a == pytest.approx(sa, rel=1e-3) and b == pytest.approx(sb, rel=1e-3)


def test_recovery_within_tolerances_from_bias_table():
    """docs/estimator-bias.md, row sigma=1, rho=0.3, r=20 (n=100, m=50): mean bias ± s.d. over datasets
    is mu +0.00±0.02, kappa +1.36±0.84, sigma +0.11±0.03, rho -0.08±0.04. Tolerance: the biased
    centre ± 4 s.d. (a correct estimator lands there with probability > 0.999 per parameter)."""
    params = make_params(mu=0.5, kappa=4.0, sigma=1.0, rho=0.3)
    fails = 0
    for seed in range(5):
        yes, _ = simulate_counts(params, 100, 50, 2, 20, np.random.default_rng(seed))
        est = estimate_counts(yes, np.full_like(yes, 20))
        fails += not (abs(est.mu - 0.5) < 4 * 0.02)
        fails += not (abs(est.kappa - (4 + 1.36)) < 4 * 0.84)
        fails += not (abs(est.sigma - (1 + 0.11)) < 4 * 0.03)
        fails += not (abs(est.rho - (0.3 - 0.08)) < 4 * 0.04)
    assert fails == 0


def test_rho_is_zero_without_shared_variance_and_positive_with_it():
    for rho, check in ((0.0, lambda r: r < 0.02), (0.6, lambda r: r > 0.25)):
        yes, _ = simulate_counts(make_params(sigma=1.0, rho=rho), 100, 50, 2, 20, np.random.default_rng(3))
        assert check(estimate_counts(yes, np.full_like(yes, 20)).rho)


def test_bootstrap_se_from_table():
    df = validate_table(simulate(60, 20, 5, sigma=1.0, rho=0.3, seed=4))
    res = estimate(df, "simulated", "A", bootstrap=60, seed=1)
    assert res.n_bootstrap == 60
    assert set(res.se) == {"mu", "kappa", "a", "b", "sigma", "rho"}
    # Resampling personas and perturbations: mu's s.e. is near the spread of persona means / sqrt(n).
    assert 0.01 < res.se["mu"] < 0.08
    assert all(v > 0 for v in res.se.values())


def test_empty_cells_are_skipped_not_zero():
    yes = np.array([[1, 2, 0], [3, 0, 1], [2, 2, 2]])
    valid = np.array([[3, 3, 0], [3, 3, 3], [3, 3, 3]])
    full = estimate_counts(yes, valid)
    assert full.n_cells == 8
