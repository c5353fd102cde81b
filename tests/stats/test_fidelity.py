"""Fidelity of levels, effects and dispersion: against scipy/statsmodels, and by simulation with known truth."""

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon
from scipy.stats import wasserstein_distance
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.proportion import proportion_confint
from statsmodels.tools import add_constant

from survey.errors import SurveyError
from survey.stats.effect_fidelity import benchmark_fidelity, dispersion_ratio, effect_fidelity
from survey.stats.fidelity import jsd, level_fidelity, wasserstein_ordinal

POINTS = [1, 2, 3, 4, 5]
HUMAN_P = np.array([0.10, 0.15, 0.25, 0.30, 0.20])
SKEWED_P = np.array([0.02, 0.08, 0.20, 0.45, 0.25])


def test_distances_equal_scipy():
    rng = np.random.default_rng(0)
    for k in (2, 3, 5, 7, 11):
        for _ in range(20):
            h, p = rng.dirichlet(np.ones(k)), rng.dirichlet(np.ones(k) * 0.5)
            h[rng.integers(k)] = 0.0  # empty points count too
            assert jsd(h, p) == pytest.approx(jensenshannon(h, p, base=2) ** 2, abs=1e-12)
            at = np.linspace(0, 1, k)
            assert wasserstein_ordinal(h * 7, p) == pytest.approx(
                wasserstein_distance(at, at, h / h.sum(), p), abs=1e-12)
    rows_h, rows_p = rng.dirichlet(np.ones(4), 6), rng.dirichlet(np.ones(4), 6)
    assert np.allclose(jsd(rows_h, rows_p), [jsd(a, b) for a, b in zip(rows_h, rows_p, strict=True)])
    assert jsd([1, 0], [0, 1]) == pytest.approx(1.0) and wasserstein_ordinal([1, 0, 0], [0, 0, 1]) == 1.0


def _answers(rng, shares, size):
    return rng.choice(POINTS, size=size, p=shares)


def test_level_fidelity_reports_distances_floor_and_baselines():
    rng = np.random.default_rng(1)
    humans, personas = _answers(rng, HUMAN_P, 300), _answers(rng, SKEWED_P, 1000)
    r = level_fidelity(humans, personas, POINTS, human_overall=[30, 40, 80, 90, 60], n_boot=500)
    h = np.bincount(humans, minlength=6)[1:]
    assert r.jsd == pytest.approx(jsd(h, np.bincount(personas, minlength=6)[1:]))
    d = r.distances["jsd"]
    assert d["ci"][0] <= r.jsd <= d["ci"][1]
    assert d["baselines"]["uniform"] == pytest.approx(jsd(h, np.ones(5)))
    assert d["baselines"]["humans over all messages"] == pytest.approx(jsd(h, [30, 40, 80, 90, 60]))
    assert r.jsd > 3 * d["noise_floor"]  # a skewed model stands out from sampling noise
    assert set(r.to_dict()["distances"]) == {"jsd", "wasserstein"}
    assert "noise floor" in repr(r)
    unordered = level_fidelity(["a", "b", "b"], ["b", "c", "c"], ["a", "b", "c"], ordered=False, n_boot=50)
    assert unordered.wasserstein is None and unordered.jsd > 0


def test_noise_floor_is_the_distance_a_second_human_sample_would_score():
    # personas from the humans' own population (m = n): E[JSD] ~ (K-1)/(2 ln 2) (1/n + 1/m) / 2 to first order,
    # half the floor's two halves of n/2; the Wasserstein distance scales with the square root: 1/sqrt(2)
    rng = np.random.default_rng(2)
    values, floors = {"jsd": [], "wasserstein": []}, {"jsd": [], "wasserstein": []}
    for _ in range(150):
        r = level_fidelity(_answers(rng, HUMAN_P, 400), _answers(rng, HUMAN_P, 400), POINTS, n_boot=10,
                           seed=int(rng.integers(1 << 30)))
        for name in values:
            values[name].append(r.distances[name]["value"])
            floors[name].append(r.distances[name]["noise_floor"])
    assert np.mean(values["jsd"]) / np.mean(floors["jsd"]) == pytest.approx(0.5, rel=0.12)  # measured 0.48
    assert np.mean(values["wasserstein"]) / np.mean(floors["wasserstein"]) == pytest.approx(2 ** -0.5, rel=0.08)  # 0.66
    # so the result must not call the floor a score no model can beat, and says what a faithful model scores
    assert "cannot be expected" not in r.note and "about half of it in JSD" in r.note


def test_noise_floor_of_a_million_humans_is_drawn_from_their_counts():
    # a halving drawn from the answer counts (multivariate hypergeometric) has the law of a random half of the
    # rows: the floors agree, without a (splits x humans) array
    import survey.stats.fidelity as fidelity

    rng = np.random.default_rng(4)
    humans, personas = _answers(rng, HUMAN_P, 40_000), _answers(rng, HUMAN_P, 2_000)
    by_counts = level_fidelity(humans, personas, POINTS, n_boot=10).distances["jsd"]["noise_floor"]
    assert len(humans) > fidelity.FLOOR_BY_COUNTS
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fidelity, "FLOOR_BY_COUNTS", 10 ** 9)
        by_rows = level_fidelity(humans, personas, POINTS, n_boot=10).distances["jsd"]["noise_floor"]
    # 200 splits: each floor's Monte Carlo s.d. is about 5% of it
    assert by_counts == pytest.approx(by_rows, rel=0.2)
    big = np.repeat(POINTS, 200_000)  # a million humans in a second
    assert level_fidelity(big, personas, POINTS, n_boot=10).n_humans == 1_000_000


def test_bootstrap_interval_covers_the_true_distance_away_from_zero():
    rng = np.random.default_rng(3)
    truth = {"jsd": jsd(HUMAN_P, SKEWED_P), "wasserstein": wasserstein_ordinal(HUMAN_P, SKEWED_P)}
    hits = {"jsd": 0, "wasserstein": 0}
    runs = 300
    for _ in range(runs):
        r = level_fidelity(_answers(rng, HUMAN_P, 500), _answers(rng, SKEWED_P, 2000), POINTS, n_boot=400,
                           seed=int(rng.integers(1 << 30)))
        for name in hits:
            lo, hi = r.distances[name]["ci"]
            hits[name] += lo <= truth[name] <= hi
    # a plug-in distance is biased upward by O(1/n), so the percentile interval may undercover a little;
    # over 300 datasets, 0.90 is 2.5 Monte Carlo s.e. below 0.95
    assert hits["jsd"] / runs >= 0.90 and hits["wasserstein"] / runs >= 0.90


def test_grouped_personas_widen_the_interval():
    rng = np.random.default_rng(4)
    humans = _answers(rng, HUMAN_P, 300)
    personas = np.repeat(_answers(rng, SKEWED_P, 50), 10)  # 50 personas x 10 paraphrases answering alike
    groups = np.repeat(np.arange(50), 10)
    plain = level_fidelity(humans, personas, POINTS, n_boot=1000)
    grouped = level_fidelity(humans, personas, POINTS, persona_groups=groups, n_boot=1000)
    width = lambda r: np.diff(r.distances["jsd"]["ci"])[0]  # noqa: E731
    assert grouped.n_persona_groups == 50 and width(grouped) > 1.5 * width(plain)
    probs = level_fidelity(humans, np.tile(SKEWED_P, (20, 1)), POINTS, n_boot=200)  # answer distributions
    assert probs.persona == pytest.approx(SKEWED_P.tolist())


def test_effect_fidelity_difference_and_its_null_rejection_rate():
    r = effect_fidelity(0.10, (0.02, 0.18), 0.25, (0.15, 0.35))
    z = 1.959964
    assert r.difference == pytest.approx(-0.15)
    assert r.se == pytest.approx(np.hypot(0.08 / z, 0.10 / z), rel=1e-6)
    assert r.sign_agrees is True and "approximation" in r.note
    assert effect_fidelity(0.1, 0.04, -0.2, (-0.3, -0.1)).sign_agrees is False
    # both sides estimate the same effect with normal noise: H0 true, rejection rate within the binomial band
    rng = np.random.default_rng(5)
    pvalues = []
    for h, p in zip(rng.normal(0.1, 0.05, 2000), rng.normal(0.1, 0.08, 2000), strict=True):
        pvalues.append(effect_fidelity(h, 0.05, p, (p - z * 0.08, p + z * 0.08)).pvalue)
    rate = np.mean(np.array(pvalues) <= 0.05)
    assert 0.05 - 3 * 0.0049 <= rate <= 0.05 + 3 * 0.0049


def test_benchmark_fidelity_equals_statsmodels_and_scipy():
    rng = np.random.default_rng(6)
    persona = rng.normal(0, 0.1, 25)
    human = 0.5 * persona + rng.normal(0, 0.04, 25)
    human[3] = 0.0  # an experiment with no human effect does not count in the sign agreement
    r = benchmark_fidelity(human, persona, confidence=0.9)
    signed = human != 0
    agree = int((np.sign(human[signed]) == np.sign(persona[signed])).sum())
    assert r.n_signed == 24 and r.sign_agreement == pytest.approx(agree / 24)
    assert r.sign_agreement_ci == pytest.approx(proportion_confint(agree, 24, alpha=0.1, method="wilson"))
    fit = OLS(human, add_constant(persona)).fit()
    assert r.slope == pytest.approx(fit.params[1]) and r.slope_ci == pytest.approx(tuple(fit.conf_int(0.1)[1]))
    rho = np.corrcoef(human, persona)[0, 1]
    half = 1.644854 / np.sqrt(25 - 3)
    assert r.correlation == pytest.approx(rho)
    assert r.correlation_ci == pytest.approx((np.tanh(np.arctanh(rho) - half), np.tanh(np.arctanh(rho) + half)),
                                             rel=1e-5)
    assert r.slope_ci[0] < 0.5 < r.slope_ci[1] and r.to_dict()["n_experiments"] == 25


def test_dispersion_ratio_finds_too_uniform_personas():
    rng = np.random.default_rng(7)
    personas, humans = rng.normal(3, 0.5, 400), rng.normal(3, 1.0, 300)
    r = dispersion_ratio(personas, humans)
    assert r.ratio == pytest.approx(np.var(personas, ddof=1) / np.var(humans, ddof=1))
    assert r.ci[1] < 1 and r.ci[0] < 0.25 < r.ci[1]
    hits = 0
    for _ in range(200):  # equal spreads: the interval covers 1 (percentile bootstrap, normal data)
        hits += (lambda c: c.ci[0] <= 1 <= c.ci[1])(dispersion_ratio(rng.normal(size=200), rng.normal(size=200),
                                                                     n_boot=400, seed=int(rng.integers(1 << 30))))
    assert hits / 200 >= 0.9


def test_dispersion_ratio_of_rare_human_answers_has_no_upper_bound(recwarn):
    # 2 Yes of 73 humans: about (71/73)^73 = 13% of the resamples hold no Yes, a variance of 0
    humans = np.r_[np.ones(2), np.zeros(71)]
    personas = np.random.default_rng(3).uniform(0.1, 0.2, 40)
    r = dispersion_ratio(personas, humans, n_boot=1000)
    assert r.ci[1] == np.inf and 0 < r.ci[0] < r.ratio and "no upper bound" in r.note
    assert 0.09 < float(r.note.split("in ")[1].split("%")[0]) / 100 < 0.17
    assert r.to_dict()["ci"][1] is None and not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    assert "no upper bound" not in dispersion_ratio(personas, np.r_[np.ones(30), np.zeros(43)]).note


@pytest.mark.parametrize("call, message", [
    (lambda: level_fidelity([1, 2, 9], [1, 2], POINTS), "not points of the scale"),
    (lambda: level_fidelity([1], [1, 2], POINTS), "two human answers"),
    (lambda: level_fidelity([1, 2], [1, 2], POINTS, persona_groups=[0]), "one label per persona"),
    (lambda: level_fidelity([1, 2], np.ones((3, 4)), POINTS), "one column per scale point"),
    (lambda: jsd([0, 0], [1, 1]), "at least one answer"),
    (lambda: effect_fidelity(0.1, (0.2, 0.1), 0.1, (0, 1)), "lower <= upper"),
    (lambda: benchmark_fidelity([1, 2, 3], [1, 2, 3]), "at least 4 experiments"),
    (lambda: benchmark_fidelity([1, 1, 1, 1], [1, 2, 3, 4]), "do not vary"),
    (lambda: dispersion_ratio([1, 2], [3, 3]), "variance is 0"),
])
def test_bad_inputs_name_the_fix(call, message):
    with pytest.raises(SurveyError, match=message):
        call()


def test_results_show_briefly_and_serialise_to_strict_json():
    import json

    from survey.common.display import REPR_WIDTH
    from survey.stats import plan_mixed_subjects

    rng = np.random.default_rng(8)
    results = [level_fidelity(_answers(rng, HUMAN_P, 50), _answers(rng, SKEWED_P, 80), POINTS, n_boot=50),
               effect_fidelity(0.1, 0.05, 0.3, (0.1, np.inf)),  # an unbounded persona interval
               benchmark_fidelity(rng.normal(size=6), rng.normal(size=6)),
               dispersion_ratio(rng.normal(size=20), rng.normal(size=20), n_boot=50),
               plan_mixed_subjects(r=0.3, cost_human=1, cost_persona=0.01, half_width=0.2)]
    for r in results:
        assert 20 < len(repr(r)) <= REPR_WIDTH and "<table>" in r._repr_html_()
        json.dumps(r.to_dict(), allow_nan=False)
    assert "unbounded" in results[1].note and results[1].to_dict()["ci"] == [None, None]


def test_dispersion_bootstrap_of_a_million_humans_is_drawn_from_their_counts():
    # resampling 30 000 human scores as counts of their distinct values gives the interval resampling rows does
    import survey.stats.effect_fidelity as ef

    rng = np.random.default_rng(6)
    personas, humans = rng.normal(3, 0.3, 40), rng.choice(POINTS, 30_000, p=HUMAN_P).astype(float)
    by_counts = dispersion_ratio(personas, humans, n_boot=2000).ci
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(ef, "BOOT_BY_COUNTS", 10 ** 9)
        by_rows = dispersion_ratio(personas, humans, n_boot=2000).ci
    assert by_counts == pytest.approx(by_rows, rel=0.05)
    million = dispersion_ratio(personas, np.repeat([1.0, 5.0], 500_000), n_boot=1000)  # no (1000 x 1e6) array
    assert million.n_humans == 1_000_000 and 0 < million.ci[0] < million.ratio < million.ci[1]
