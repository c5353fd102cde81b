"""The ordinal model of rating-scale answers: parameters, probabilities, simulated counts and tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats
from scipy.special import expit

from survey.errors import SurveyError
from survey.kinds.ordinal.model import (
    category_probabilities,
    default_cuts,
    expected_score,
    make_ordinal_params,
    simulate_category_counts,
    simulate_score_sums,
)
from survey.kinds.ordinal.table import scale_params, simulate_table, simulation_view
from survey.stats import beta_logit
from survey.stats.simulation import simulate


@pytest.mark.parametrize(("values", "field"), [
    ({"points": 1}, "points"), ({"rho": 1.5}, "rho"), ({"tau": -1}, "tau"), ({"sigma": float("nan")}, "sigma"),
    ({"points": 5, "cuts": [0.0, 1.0]}, "cuts"), ({"points": 3, "cuts": [1.0, 0.5]}, "cuts"),
    ({"points": 3, "cuts": [0.0, float("inf")]}, "cuts"), ({"kappa": 3}, "kappa"),
])
def test_invalid_parameters_name_the_field(values, field):
    with pytest.raises(SurveyError, match=field):
        make_ordinal_params(**values)


def test_default_cuts_give_a_uniform_scale_at_latent_zero_and_probabilities_sum_to_one():
    p = make_ordinal_params(points=7)
    assert category_probabilities(p, 0.0) == pytest.approx(np.full(7, 1 / 7))
    assert default_cuts(2) == [0.0]
    lam = np.random.default_rng(0).normal(0, 3, size=(4, 6))
    probs = category_probabilities(p, lam)
    assert probs.shape == (4, 6, 7) and (probs >= 0).all()
    assert probs.sum(-1) == pytest.approx(np.ones((4, 6)))
    # P(Y = s_k) = expit(c_k - lambda) - expit(c_{k-1} - lambda), written out for one cell
    c = p.cut_points
    want = np.diff(np.r_[0, expit(c - lam[1, 2]), 1])
    assert probs[1, 2] == pytest.approx(want)
    assert expected_score(p, lam[1, 2]) == pytest.approx(probs[1, 2] @ np.arange(1, 8))


def test_shares_of_simulated_answers_match_the_models_marginal_probabilities():
    """n = m = r = 1 per survey: the surveys are independent draws from the marginal distribution
    P(Y = s_k) = E category_probability(X), X ~ N(0, tau^2 + sigma^2), integrated by scipy."""
    p = make_ordinal_params(points=5, tau=0.8, sigma=1.2, rho=0.4, cuts=(-2.0, -0.5, 0.3, 1.5))
    counts, counts_b = simulate_category_counts(p, 1, 1, 1, 1, np.random.default_rng(1), size=(40_000,))
    sd = np.hypot(p.tau, p.sigma)

    def marginal(shift):
        return np.array([integrate.quad(lambda x, k=k: category_probabilities(p, x + shift)[k]
                                        * stats.norm.pdf(x, 0, sd), -12, 12)[0] for k in range(5)])
    for observed, shift in ((counts, 0.0), (counts_b, p.delta)):
        obs = observed.reshape(-1, 5).sum(0)
        assert stats.chisquare(obs, marginal(shift) * obs.sum()).pvalue > 0.001


def test_delta_shifts_message_b_up_and_score_sums_are_counts_times_scores():
    p = make_ordinal_params(points=5, tau=0.5, sigma=0.5, rho=0.3, delta=1.0, low=0)
    sa, sb = simulate_score_sums(p, 20, 8, 6, 4, np.random.default_rng(2), size=(30,))
    assert sa.shape == (30, 20, 8) and sb.shape == (30, 20, 6)
    assert sa.min() >= 0 and sb.max() <= 4 * 4
    assert sb.mean() / 4 > sa.mean() / 4 + 0.5  # B over A, on the 0..4 scale


def test_simulate_table_layout_and_expected_scores():
    p = make_ordinal_params(points=5, tau=1.0, sigma=0.5, rho=0.3, delta=-0.5)
    df = simulate_table(p, 12, 4, 400, seed=3, m_b=3)
    assert list(df.columns) == ["model", "message", "perturbation", "persona", "replicate", "answer", "scale",
                                "expected"]
    assert str(df["answer"].dtype) == "Int16" and set(df["answer"].unique()) <= set(range(1, 6))
    assert (df["scale"] == "likert5").all()
    assert df.groupby("message")["perturbation"].nunique().to_dict() == {"A": 4, "B": 3}
    assert df["persona"].nunique() == 12 and df["replicate"].max() == 399
    assert sorted(df.loc[df.message == "B", "perturbation"].unique()) == ["B-01", "B-02", "B-03"]
    cells = df.groupby(["message", "perturbation", "persona"])
    mean, expected = cells["answer"].mean().astype(float), cells["expected"].first()
    # 400 replicates per cell: the cell's mean score is within 4 standard errors of its expected score
    assert (np.abs(mean - expected) < 4 * 1.5 / np.sqrt(400)).all()
    # the same seed gives the same table
    pd.testing.assert_frame_equal(df, simulate_table(p, 12, 4, 400, seed=3, m_b=3))


def test_scale_names():
    assert (simulation_view("likert5").low, simulation_view("likert5").high) == (1, 5)
    assert (simulation_view("likert0-4").low, simulation_view("likert0-4").high) == (0, 4)
    assert (simulation_view("rating0-10").low, simulation_view("rating0-10").high) == (0, 10)
    assert not simulation_view("binary").ordered
    assert scale_params("rating0-10").scale == "rating0-10"
    assert make_ordinal_params(points=11, low=0).scale == "likert0-10"
    assert make_ordinal_params(points=7).scale == "likert7"
    for bad in ("likert", "likert1", "rating5-1", "choice", "text", "stars5"):
        with pytest.raises(SurveyError, match="binary, likertK"):
            simulation_view(bad)


def test_simulate_any_scale_keeps_binary_tables_unchanged():
    pd.testing.assert_frame_equal(simulate(10, 4, 3, seed=7, rho=0.5),
                                  beta_logit.simulate(10, 4, 3, seed=7, rho=0.5))
    df = simulate(10, 4, 3, seed=7, scale="rating0-10", tau=0.5)
    assert (df["scale"] == "rating0-10").all() and df["answer"].between(0, 10).all()
    with pytest.raises(SurveyError, match="mu and kappa"):
        simulate(10, 4, 3, scale="likert5", mu=0.3)
    with pytest.raises(SurveyError, match="tau and cuts"):
        simulate(10, 4, 3, tau=1.0)
    with pytest.raises(SurveyError, match="cuts"):
        simulate(10, 4, 3, scale="likert5", cuts=[0.0, 1.0])
