"""Unit tests of the sequential tests: spending, exact boundaries, betting wealth, results."""
import itertools

import numpy as np
import pytest

from survey.errors import SurveyError
from survey.stats.sequential import (
    confidence_sequence,
    group_sequential_paths,
    log_wealth,
    make_design,
    run_rule,
    sequential_test,
    spent_alpha,
)


@pytest.mark.parametrize("spending", ["obrien-fleming", "pocock", "power:2", "hsd:-4", "hsd:1"])
def test_spending_functions_rise_to_alpha(spending):
    t = np.linspace(0.01, 1, 50)
    a = spent_alpha(spending, 0.05, t)
    assert np.all(np.diff(a) >= 0) and a[-1] == pytest.approx(0.05) and a[0] >= 0


def test_obrien_fleming_spends_almost_nothing_early():
    assert spent_alpha("obrien-fleming", 0.05, 0.1) < 1e-6
    assert spent_alpha("pocock", 0.05, 0.1) > 0.005


@pytest.mark.parametrize("bad", [dict(spending="linear"), dict(spending="power:-1"), dict(alpha=1.5),
                                 dict(round_pairs=50, max_pairs=40), dict(method="bayes"), dict(futility=2)])
def test_bad_designs_are_one_line_errors(bad):
    with pytest.raises(SurveyError, match="sequential design"):
        make_design(**bad)


def test_looks_end_at_the_maximum_even_with_a_short_last_round():
    assert make_design(round_pairs=4, max_pairs=10).looks().tolist() == [4, 8, 10]


def _brute_force_crossing(d, looks, levels):
    """Crossing probability over all sign vectors, the boundaries computed by the rule."""
    g = group_sequential_paths(d[None, :], looks, 0.05, levels, exact_max_m=20)
    b = g.boundary[0] * looks
    hits = 0
    for eps in itertools.product((1, -1), repeat=len(d)):
        s = np.cumsum(np.array(eps) * d)[looks - 1]
        hits += np.any(np.abs(s) > b + 1e-9)
    return hits / 2 ** len(d), g


def test_exact_boundaries_spend_at_most_the_spending_function():
    rng = np.random.default_rng(3)
    d = rng.normal(0, 1, 12)
    looks = np.array([4, 8, 12])
    levels = spent_alpha("pocock", 0.2, looks / 12)
    prob, g = _brute_force_crossing(d, looks, levels)
    assert g.exact and g.n_paths == 2 ** 12
    assert np.all(g.spent[0] <= levels + 1e-12)
    assert prob == pytest.approx(g.spent[0, -1])  # the recorded spent alpha is the exact crossing probability
    assert prob <= 0.2


def test_observed_path_crossing_matches_its_boundary():
    d = np.full(16, 0.3) + np.random.default_rng(0).normal(0, 0.05, 16)
    res = sequential_test(d, round_pairs=4, max_pairs=16, spending="pocock", alpha=0.05)
    assert res.rejected and res.look < 4 and res.pairs == 4 * res.look
    last = res.path[-1]
    assert abs(last["statistic"]) > last["boundary"] and last["pvalue"] <= 0.05
    assert all(abs(p["statistic"]) <= p["boundary"] for p in res.path[:-1])
    assert res.to_dict()["path"][-1]["spent_alpha"] <= 0.05


def test_monte_carlo_paths_include_the_observed_one():
    d = np.random.default_rng(1).normal(0, 0.1, 30)
    g = group_sequential_paths(d[None, :], np.array([10, 20, 30]), 0.05,
                               spent_alpha("obrien-fleming", 0.05, [1 / 3, 2 / 3, 1]), flips=999, exact_max_m=14)
    assert not g.exact and g.n_paths == 1000
    assert np.all(g.spent[0] <= spent_alpha("obrien-fleming", 0.05, [1 / 3, 2 / 3, 1]) + 1e-12)


def test_a_null_path_runs_to_the_end_and_a_table_shorter_than_planned_continues():
    d = np.random.default_rng(2).normal(0, 0.1, 20)
    assert sequential_test(d, max_pairs=20, round_pairs=5).decision == "max-reached"
    assert sequential_test(d, max_pairs=40, round_pairs=5).decision == "continue"


def test_futility_stops_a_flat_path_and_never_rejects_more():
    rng = np.random.default_rng(4)
    D = rng.normal(0, 0.1, (300, 40))
    plain = run_rule(D, make_design())
    fut = run_rule(D, make_design(futility=0.2, futility_from=0.2))
    assert (fut.decision == 1).mean() > 0.5
    assert fut.rejected.sum() <= plain.rejected.sum()
    assert np.all(fut.pairs <= plain.pairs)


def test_betting_wealth_grows_on_an_effect_and_is_one_at_the_start():
    x = np.full(60, 0.2)
    lw = log_wealth(x)
    assert lw[0] == pytest.approx(0.0)  # the first bet is made before any data: zero
    assert lw[-1] > np.log(20)
    res = sequential_test(x, method="betting", max_pairs=60, round_pairs=5)
    assert res.rejected and res.pvalue <= 0.05 and res.path[-1]["wealth"] >= 20
    lo, hi = res.confidence_sequence
    assert lo <= 0.2 <= hi


def test_betting_wealth_is_a_fair_game_under_the_null():
    X = np.random.default_rng(5).choice([-0.3, 0.3], size=(4000, 30))
    assert np.exp(log_wealth(X)[:, -1]).mean() == pytest.approx(1.0, abs=0.05)


def test_confidence_sequence_covers_and_shrinks():
    x = np.clip(np.random.default_rng(6).normal(0.1, 0.2, 400), -1, 1)
    lo, hi = confidence_sequence(x, 0.05)
    assert lo[-1] <= 0.1 <= hi[-1]
    assert hi[-1] - lo[-1] < hi[20] - lo[20]
    assert np.all(np.diff(lo) >= -1e-12) and np.all(np.diff(hi) <= 1e-12)  # running intersection
