"""survey.stats.beta_logit: the hierarchical Beta-logit model of Helm & Priebe (2026), checked against
its definition."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit, logit

from survey.stats.beta_logit import draw_probabilities, make_params, simulate, simulate_counts


def test_persona_base_rates_are_beta_a_b_and_delta_shifts_b_only():
    # sigma = 0: no perturbation shift, so every cell of persona i is p_i and B is p_i shifted by delta
    params = make_params(mu=0.2, kappa=5.0, sigma=0.0, delta=0.7)  # Beta(1, 4): mean 0.2
    pa, pb = draw_probabilities(params, 3000, 3, 2, np.random.default_rng(0))
    assert pa.shape == (3000, 3) and pb.shape == (3000, 2)
    assert np.all(pa == pa[:, :1])
    assert stats.kstest(pa[:, 0], stats.beta(1.0, 4.0).cdf).pvalue > 0.01
    np.testing.assert_allclose(pb, expit(logit(np.clip(pa[:, :2], 1e-12, 1 - 1e-12)) + 0.7), rtol=1e-9)


def test_shared_and_persona_specific_variance_on_the_logit_scale():
    # kappa huge: p_i ~ mu for everyone, so logit p_ij - logit mu = u_j + v_ij
    n, m, sigma, rho = 40, 400, 1.2, 0.3
    params = make_params(mu=0.5, kappa=1e7, sigma=sigma, rho=rho)
    pa, _ = draw_probabilities(params, n, m, 2, np.random.default_rng(1))
    z = logit(pa)
    col = z.mean(axis=0)  # u_j + mean_i v_ij
    assert np.var(col, ddof=1) == pytest.approx(rho * sigma**2 + (1 - rho) * sigma**2 / n, rel=0.2)
    assert np.var(z - col, ddof=1) == pytest.approx((1 - rho) * sigma**2 * (n - 1) / n, rel=0.05)


def test_counts_and_table_follow_the_cell_probabilities():
    params = make_params(mu=0.3, kappa=4.0, sigma=1.0, rho=0.5)
    ya, yb = simulate_counts(params, 6, 5, 4, 7, np.random.default_rng(2), size=(200,))
    assert ya.shape == (200, 6, 5) and yb.shape == (200, 6, 4) and ya.max() <= 7 and ya.min() >= 0
    assert ya.mean() / 7 == pytest.approx(0.3, abs=0.03)  # E p_ij is near mu (logit noise is symmetric)
    df = simulate(30, 6, 5, mu=0.3, seed=3, m_b=4)
    assert len(df) == 30 * (6 + 4) * 5
    assert df.groupby("message")["perturbation"].nunique().to_dict() == {"A": 6, "B": 4}
    # answers are Bernoulli(p_yes): the mean answer matches the mean true probability
    se = np.sqrt((df["p_yes"] * (1 - df["p_yes"])).sum()) / len(df)
    assert abs(df["answer"].astype(float).mean() - df["p_yes"].mean()) < 4 * se
