"""The mixed-subjects planner: against a brute-force search, and its s.e. against simulated PPI estimates."""

import numpy as np
import pytest
from scipy import stats as sps

from survey.errors import SurveyError
from survey.stats.planning.mixed_subjects import mixed_subjects_se, plan_mixed_subjects, target_se
from survey.stats.ppi import ppi_mean_arrays


@pytest.mark.parametrize("r, cost_human, cost_persona, half_width", [
    (0.3, 5.0, 0.01, 0.25), (0.5, 5.0, 0.05, 0.2), (0.8, 1.0, 0.2, 0.3), (0.45, 2.0, 0.0, 0.25), (0.0, 1.0, 0.1, 0.3),
])
def test_plan_is_the_cheapest_mix_found_by_brute_force(r, cost_human, cost_persona, half_width):
    sigma = 1.0
    plan = plan_mixed_subjects(r=r, cost_human=cost_human, cost_persona=cost_persona, sigma=sigma,
                               half_width=half_width, max_personas=3000)
    n, big_n = np.meshgrid(np.arange(3, 130), np.arange(0, 3001), indexing="ij")
    target = target_se(n, half_width=half_width)  # per n: the t interval on n - 2 with the divisor n - 2
    feasible = mixed_subjects_se(n, big_n, sigma, r) <= target * (1 + 1e-12)
    cost = np.where(feasible, n * cost_human + big_n * cost_persona, np.inf)
    assert plan.cost == pytest.approx(cost.min())
    assert plan.se <= plan.target_se * (1 + 1e-12) and plan.half_width <= half_width * (1 + 1e-12)
    alone = np.arange(3, 200)
    assert plan.humans_only_n == alone[np.argmax(sigma / np.sqrt(alone) <= target_se(alone, half_width=half_width)
                                                 * (1 + 1e-12))]


def test_effective_humans_and_the_limit_one_over_one_minus_r_squared():
    plan = plan_mixed_subjects(r=0.5, cost_human=10, cost_persona=0.001, half_width=0.05)
    assert plan.worth_per_human == pytest.approx(1 / 0.75)
    assert plan.effective_humans == pytest.approx(1 / plan.se ** 2)
    # cheap personas: N >> n and each human counts nearly 1/(1 - r^2)
    assert plan.N > 10 * plan.n and plan.effective_humans / plan.n == pytest.approx(1 / 0.75, rel=0.03)
    assert plan.saving < 0.25 + 1e-9  # at r = 0.5 no more than r^2 of the cost can be saved
    assert "modest" in plan.note and plan.to_dict()["n"] == plan.n


def test_power_target_detects_the_effect_at_the_stated_rate():
    plan = plan_mixed_subjects(r=0.4, cost_human=3, cost_persona=0.02, effect=0.25, power=0.8)
    df = plan.n - 2
    reported_se = plan.se * np.sqrt(plan.n / df)  # the divisor n - 2 of a tuned lambda
    assert sps.t.sf(sps.t.ppf(0.975, df) - 0.25 / reported_se, df) == pytest.approx(0.8, abs=0.005)


def test_a_small_plan_has_its_power_with_the_interval_ppi_reports():
    # at about 30 humans the t quantile and the divisor n - 2 widen the interval by ~8%: planned with z, these
    # plans reached a power of 0.767 (+- 0.007) for a promised 0.8
    r, effect = 0.5, 0.45
    plan = plan_mixed_subjects(r=r, cost_human=5, cost_persona=0.01, effect=effect, power=0.8, max_personas=2000)
    assert 30 <= plan.n <= 40
    rng = np.random.default_rng(4)
    datasets = 4000
    x, xu = rng.standard_normal((datasets, plan.n)), rng.standard_normal((datasets, plan.N))
    y = effect + r * x + np.sqrt(1 - r ** 2) * rng.standard_normal((datasets, plan.n))
    est, se, _, df = ppi_mean_arrays(y, x, xu, with_df=True)
    power = np.mean(np.abs(est) / se > sps.t.ppf(0.975, df))
    assert power >= 0.785, power  # the binomial s.e. is 0.0063 at 0.8


def test_planned_se_is_what_ppi_delivers_in_simulation():
    # Gaussian answers and predictions with corr r: at the planned (n, N) the tuned PPI estimates scatter with
    # the planned s.e. and their intervals cover
    r, sigma = 0.5, 2.0
    plan = plan_mixed_subjects(r=r, sigma=sigma, cost_human=4, cost_persona=0.05, half_width=0.4)
    rng = np.random.default_rng(9)
    datasets, n, big_n = 3000, plan.n, plan.N
    x, xu = rng.standard_normal((datasets, n)), rng.standard_normal((datasets, big_n))
    y = 1.0 + sigma * (r * x + np.sqrt(1 - r ** 2) * rng.standard_normal((datasets, n)))
    est, se, _ = ppi_mean_arrays(y, x, xu)
    mc = np.std(est) / np.sqrt(2 * datasets)  # Monte Carlo s.e. of an s.d. over normal draws
    assert abs(np.std(est) - plan.se) <= 3 * mc + 0.01 * plan.se  # 1%: lambda is tuned on n humans
    covered = np.mean(np.abs(est - 1.0) <= 1.959964 * se)
    assert covered >= 0.93
    humans_only = sigma / np.sqrt(n)
    assert plan.se < 0.9 * humans_only  # and the personas did narrow it


@pytest.mark.parametrize("kwargs, message", [
    ({"r": 1.0, "cost_human": 1, "cost_persona": 1, "half_width": 0.1}, "strictly between -1 and 1"),
    ({"r": 0.3, "cost_human": 0, "cost_persona": 1, "half_width": 0.1}, "costs must be"),
    ({"r": 0.3, "cost_human": 1, "cost_persona": 1}, "exactly one target"),
    ({"r": 0.3, "cost_human": 1, "cost_persona": 1, "half_width": 0.1, "effect": 0.1}, "exactly one target"),
    ({"r": 0.3, "cost_human": 1, "cost_persona": 1, "effect": 0.0}, "non-zero"),
    ({"r": 0.3, "cost_human": 1, "cost_persona": 0.0, "half_width": 0.01, "max_personas": 0, "sigma": 1},
     None),
])
def test_bad_inputs_name_the_fix(kwargs, message):
    if message is None:  # max_personas 0 is allowed: the humans alone
        assert plan_mixed_subjects(**kwargs).N == 0
        return
    with pytest.raises(SurveyError, match=message):
        plan_mixed_subjects(**kwargs)


def test_negative_correlation_plans_the_humans_alone():
    plan = plan_mixed_subjects(r=-0.6, cost_human=1, cost_persona=0.01, half_width=0.2)
    assert plan.N == 0 and plan.n == plan.humans_only_n


def test_a_target_past_the_humans_limit_is_refused_and_one_below_it_is_planned():
    from survey.stats.planning.mixed_subjects import HUMANS_MAX

    # sigma 0.5 and half-width 1e-5 need 9.6e9 humans alone: once a 71.6 GiB MemoryError
    with pytest.raises(SurveyError, match="widen the target"):
        plan_mixed_subjects(r=0.3, sigma=0.5, cost_human=5, cost_persona=0.01, half_width=1e-5)
    hw = 1.01 * sps.norm.ppf(0.975) / np.sqrt(HUMANS_MAX)  # just inside the limit
    plan = plan_mixed_subjects(r=0.3, sigma=1.0, cost_human=5, cost_persona=0.01, half_width=hw)
    assert HUMANS_MAX * 0.97 < plan.humans_only_n <= HUMANS_MAX and plan.half_width <= hw * (1 + 1e-12)


@pytest.mark.parametrize("sigma_f", [None, 0.3])
def test_the_search_in_chunks_finds_the_one_shot_plan(monkeypatch, sigma_f):
    import survey.stats.planning.mixed_subjects as ms

    kwargs = dict(r=0.5, cost_human=5.0, cost_persona=0.05, sigma=1.0, half_width=0.2, sigma_f=sigma_f)
    whole = plan_mixed_subjects(**kwargs)  # the default chunk holds every n here
    monkeypatch.setattr(ms, "_CHUNK", 7)  # chunk edges fall inside the range, around the best n
    chunked = plan_mixed_subjects(**kwargs)
    assert (chunked.n, chunked.N, chunked.cost) == (whole.n, whole.N, whole.cost) and whole.humans_only_n > 50


@pytest.mark.parametrize("name, value", [("cost_human", np.inf), ("cost_human", np.nan), ("cost_persona", np.inf),
                                         ("sigma", np.inf), ("sigma_f", np.nan), ("r", np.nan),
                                         ("half_width", np.inf)])
def test_non_finite_inputs_are_refused_by_name(name, value):
    kwargs = {"r": 0.3, "cost_human": 1.0, "cost_persona": 0.1, "half_width": 0.1, name: value}
    with pytest.raises(SurveyError, match=f"{name} must be a finite number"):
        plan_mixed_subjects(**kwargs)


def test_a_plan_without_personas_says_so_and_keeps_alpha():
    plan = plan_mixed_subjects(r=0.0, cost_human=1, cost_persona=0.01, half_width=0.2, alpha=0.05)
    assert plan.N == 0 and "add nothing here" in plan.note and "valid statement" not in plan.note
    assert "worth at most 1 human;" in plan.note and plan.to_dict()["alpha"] == 0.05
