"""The ordinal moment estimator: its moments against brute force and scipy, recovery of (tau, sigma, rho)
within tolerances derived from the bias table of docs/ordinal-model.md, bootstrap and clamping notes."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats
from scipy.special import expit

from survey.errors import SurveyError
from survey.kinds.ordinal.estimate import (
    data_moments,
    estimate_ordinal,
    fit_counts,
    fit_cuts,
    mean_score,
    score_covariance,
    score_variance,
)
from survey.kinds.ordinal.model import make_ordinal_params, simulate_category_counts

CUTS = np.array([[-1.5, -0.3, 0.4, 1.8]])


def test_data_moments_equal_brute_force_pair_sums_with_weights():
    rng = np.random.default_rng(0)
    counts = rng.multinomial(4, np.full(3, 1 / 3), size=(4, 3))
    counts[1, 2] = 0  # a cell with no valid answer
    counts[2, 0] = [1, 0, 0]  # and one with a single answer
    w, c = np.array([1.0, 2.0, 0.0, 1.0]), np.array([3.0, 1.0, 1.0])
    valid = counts.sum(-1)
    theta = np.where(valid > 0, counts @ np.arange(3) / np.maximum(valid, 1), np.nan)
    s, q = counts @ np.arange(3), counts @ np.arange(3) ** 2
    square = np.where(valid > 1, (s * s - q) / np.maximum(valid * (valid - 1), 1), np.nan)

    def mean_over(pairs):
        num = den = 0.0
        for weight, x in pairs:
            if np.isfinite(x):
                num, den = num + weight * x, den + weight
        return num / den

    cells = list(itertools.product(range(4), range(3)))
    m0 = mean_over((w[i] * w[k] * c[j] * c[jj], theta[i, j] * theta[k, jj])
                   for (i, j), (k, jj) in itertools.product(cells, cells) if i != k and j != jj)
    persona = mean_over((w[i] * c[j] * c[jj], theta[i, j] * theta[i, jj])
                        for i, j, jj in itertools.product(range(4), range(3), range(3)) if j != jj)
    paraphrase = mean_over((c[j] * w[i] * w[k], theta[i, j] * theta[k, j])
                           for j, i, k in itertools.product(range(3), range(4), range(4)) if i != k)
    within = mean_over((w[i] * c[j], square[i, j]) for i, j in cells)
    got = data_moments(counts, w, c)
    assert got["within"] == pytest.approx(within - m0)
    assert got["persona"] == pytest.approx(persona - m0)
    assert got["paraphrase"] == pytest.approx(paraphrase - m0)
    share_low = mean_over((w[i] * c[j], counts[i, j, 0] / valid[i, j]) for i, j in cells if valid[i, j])
    assert got["shares"][0] == pytest.approx(share_low)


def test_model_moments_against_scipy_integration():
    v = np.array([1.7])
    sd = np.sqrt(v[0])

    def m(x):
        return mean_score(np.array([x]), CUTS)[0]

    mean = integrate.quad(lambda x: m(x) * stats.norm.pdf(x, 0, sd), -15, 15)[0]
    var = integrate.quad(lambda x: (m(x) - mean) ** 2 * stats.norm.pdf(x, 0, sd), -15, 15)[0]
    assert score_variance(v, CUTS)[0] == pytest.approx(var, rel=1e-6)
    cov = 0.6
    joint = stats.multivariate_normal([0, 0], [[v[0], cov], [cov, v[0]]])
    want = integrate.dblquad(lambda y, x: (m(x) - mean) * (m(y) - mean) * joint.pdf([x, y]), -10, 10, -10, 10,
                             epsabs=1e-9)[0]
    assert score_covariance(v, CUTS, np.array([cov]))[0] == pytest.approx(want, rel=1e-4)
    assert score_covariance(v, CUTS, v)[0] == pytest.approx(var, rel=1e-6)  # covariance V: the same X
    assert score_covariance(v, CUTS, np.zeros(1))[0] == pytest.approx(0, abs=1e-12)
    # the cuts that reproduce given cumulative shares
    shares = np.array([[0.1, 0.35, 0.6, 0.9]])
    cuts = fit_cuts(v, shares)
    for k in range(4):
        got = integrate.quad(lambda x, k=k: expit(cuts[0, k] - x) * stats.norm.pdf(x, 0, sd), -15, 15)[0]
        assert got == pytest.approx(shares[0, k], abs=1e-7)  # 24-node Gauss-Hermite


# Bias of the estimator (mean of estimate - truth) and its Monte Carlo s.e., measured on 2000 surveys per
# row by scripts/ordinal_estimator_bias.py (K = 5, n = 50, r = 5, tau = 1): the table in docs/ordinal-model.md.
BIAS = {  # (m, sigma, rho): {parameter: (bias, s.e.)}
    (10, 1.0, 0.3): {"tau": (0.004, 0.003), "sigma": (0.008, 0.002), "rho": (-0.010, 0.002)},
    (25, 0.5, 0.6): {"tau": (0.003, 0.002), "sigma": (-0.001, 0.001), "rho": (0.000, 0.003)},
}


@pytest.mark.parametrize(("m", "sigma", "rho"), list(BIAS))
def test_estimator_recovers_the_parameters_within_the_measured_bias(m, sigma, rho):
    """Mean over 200 vectorised surveys within bias +- 3 Monte Carlo s.e. (this run's and the table's)."""
    params = make_ordinal_params(points=5, tau=1.0, sigma=sigma, rho=rho)
    counts, _ = simulate_category_counts(params, 50, m, 2, 5, np.random.default_rng([7, m]), size=(200,))
    fits = fit_counts(counts)
    for name, truth in (("tau", 1.0), ("sigma", sigma), ("rho", rho)):
        x = fits[name]
        assert np.isfinite(x).all()
        bias, se_table = BIAS[m, sigma, rho][name]
        tolerance = 3 * np.hypot(x.std(ddof=1) / np.sqrt(len(x)), se_table)
        assert abs(x.mean() - truth - bias) <= tolerance, (name, x.mean(), truth, bias, tolerance)
    assert np.abs(fits["cuts"].mean(0) - params.cut_points).max() < 0.05


def test_one_message_with_bootstrap_and_clamping_notes():
    params = make_ordinal_params(points=5, tau=1.0, sigma=1.0, rho=0.3)
    counts, _ = simulate_category_counts(params, 40, 12, 2, 4, np.random.default_rng(3))
    est = estimate_ordinal(counts, n_boot=100, seed=1)
    d = est.to_dict()
    assert {"tau", "sigma", "rho", "cuts", "se", "ci", "notes", "clamped"} <= set(d)
    assert len(est.cuts) == 4 and np.all(np.diff(est.cuts) > 0)
    for name in ("tau", "sigma", "rho"):
        assert 0 < d["se"][name] < 1 and d["ci"][name][0] <= getattr(est, name) + 0.2
    # the same seed gives the same standard errors
    assert estimate_ordinal(counts, n_boot=100, seed=1).se == est.se
    # no paraphrase effect at all: sigma and rho sit at the edge of the parameter space, and it says so
    flat = make_ordinal_params(points=5, tau=1.0, sigma=0.0, rho=0.0)
    counts, _ = simulate_category_counts(flat, 40, 12, 2, 4, np.random.default_rng(4))
    est = estimate_ordinal(counts, n_boot=0)
    if est.clamped:
        assert any(note.startswith("held at the edge of its range:") for note in est.notes)
    assert est.sigma < 0.35


def test_estimator_input_errors():
    with pytest.raises(SurveyError, match="r >= 2"):
        estimate_ordinal(np.eye(3, dtype=int)[np.zeros((5, 4), int)])  # one answer per cell
    with pytest.raises(SurveyError, match="shape"):
        estimate_ordinal(np.ones((5, 4), int))
    with pytest.raises(SurveyError, match="n_boot"):
        estimate_ordinal(np.full((5, 4, 3), 2), n_boot=-1)


def test_category_counts_from_a_long_table_skip_invalid_answers():
    from survey.kinds.ordinal.estimate import category_counts
    from survey.kinds.ordinal.table import simulate_table

    df = simulate_table(make_ordinal_params(points=5), 6, 3, 4, seed=2)
    df["answer"] = df["answer"].astype("Int16")
    df.loc[0, "answer"] = pd.NA
    df.loc[1, "answer"] = 9  # off the scale: invalid, never clipped
    counts = category_counts(df, "simulated", "A", 1, 5)
    assert counts.shape == (6, 3, 5) and counts.sum() == 6 * 3 * 4 - 2
    first = df.loc[(df.message == "A") & (df.persona == "P002") & (df.perturbation == "A-02"), "answer"]
    assert counts[1, 1] @ np.arange(1, 6) == first.sum()
    with pytest.raises(SurveyError, match="no answers"):
        category_counts(df, "simulated", "C", 1, 5)
