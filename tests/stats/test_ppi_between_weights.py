"""Weighted between-subjects PPI: unit weights change nothing, each arm is ppi_py's weighted PPI mean, and the
weighted interval covers a population effect that humans sampled unevenly would otherwise miss."""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from survey.errors import SurveyError
from survey.stats.ppi import (
    PPIArm,
    PPIOptions,
    ppi_between_arrays,
    ppi_between_effect,
    ppi_mean,
    ppi_mean_arrays,
)

REFERENCE = json.loads((Path(__file__).parents[1] / "fixtures" / "ppi_reference.json").read_text())


def _between(y_a, f_a, fu_a, y_b, f_b, fu_b, *, w_a=None, w_a_unlabeled=None, w_b=None, w_b_unlabeled=None,
             same_personas=False, arrays=False, **options):
    """The two arms (and the test's options) as ppi_between_effect / ppi_between_arrays take them."""
    a, b = PPIArm(y_a, f_a, fu_a, w_a, w_a_unlabeled), PPIArm(y_b, f_b, fu_b, w_b, w_b_unlabeled)
    if arrays:
        return ppi_between_arrays(a, b, same_personas=same_personas, **options)
    return ppi_between_effect(a, b, same_personas=same_personas, options=PPIOptions(**options))


def _arms(rng, n_a=40, n_b=55, big_n=300):
    x_a, x_b, xu = rng.normal(size=n_a), rng.normal(size=n_b), rng.normal(size=big_n)
    return (1 + x_a + rng.normal(size=n_a), 0.6 + 0.8 * x_a, 0.6 + 0.8 * xu + 0.1 * rng.normal(size=big_n),
            0.5 + x_b + rng.normal(size=n_b), 0.6 + 0.7 * x_b, 0.6 + 0.7 * xu + 0.1 * rng.normal(size=big_n))


@pytest.mark.parametrize("same_personas", [False, True])
@pytest.mark.parametrize("lam", [None, 0.0, 0.6])
def test_unit_weights_reproduce_the_unweighted_effect(same_personas, lam):
    data = _arms(np.random.default_rng(1))
    plain = _between(*data, lam=lam, same_personas=same_personas, alternative="greater")
    for scale in (1.0, 3.0):  # weights are rescaled to mean 1, so any constant is no weighting
        ones = {k: np.full(len(data[i]), scale) for k, i in
                (("w_a", 0), ("w_a_unlabeled", 2), ("w_b", 3), ("w_b_unlabeled", 2 if same_personas else 5))}
        weighted = _between(*data, lam=lam, same_personas=same_personas, alternative="greater", **ones)
        for field in ("estimate", "se", "statistic", "pvalue", "effective_n", "humans_only_se"):
            assert getattr(weighted, field) == pytest.approx(getattr(plain, field), rel=1e-12, abs=1e-12), field
        assert weighted.ci[0] == pytest.approx(plain.ci[0], rel=1e-12) and weighted.lam == pytest.approx(plain.lam)


@pytest.mark.parametrize("lam", [None, 0.0, 0.6])
def test_weighted_effect_with_separate_personas_is_two_weighted_means_in_quadrature(lam):
    rng = np.random.default_rng(2)
    y_a, f_a, fu_a, y_b, f_b, fu_b = _arms(rng)
    w = {"w_a": rng.uniform(0.3, 3, len(y_a)), "w_a_unlabeled": rng.uniform(0.3, 3, len(fu_a)),
         "w_b": rng.uniform(0.3, 3, len(y_b)), "w_b_unlabeled": rng.uniform(0.3, 3, len(fu_b))}
    r = _between(y_a, f_a, fu_a, y_b, f_b, fu_b, lam=lam, **w)
    a = ppi_mean(y_a, f_a, fu_a, lam=lam, w=w["w_a"], w_unlabeled=w["w_a_unlabeled"])
    b = ppi_mean(y_b, f_b, fu_b, lam=lam, w=w["w_b"], w_unlabeled=w["w_b_unlabeled"])
    assert r.estimate == pytest.approx(a.estimate - b.estimate, rel=1e-12, abs=1e-14)
    assert r.se == pytest.approx(np.hypot(a.se, b.se), rel=1e-12)
    assert r.humans_only_se == pytest.approx(np.hypot(a.humans_only_se, b.humans_only_se), rel=1e-12)
    assert r.lam == (a.lam, b.lam) and r.arms[0].estimate == a.estimate and r.arms[1].se == b.se
    plain = _between(y_a, f_a, fu_a, y_b, f_b, fu_b, lam=lam)
    assert abs(r.estimate - plain.estimate) > 1e-3  # the weights do change the estimate


def test_each_weighted_arm_is_ppi_py_s_weighted_mean():
    # the two weighted reference datasets (ppi_py 0.2.3) as arms A and B: each arm's estimate and interval are
    # ppi_py's, and the effect's s.e. is their two s.e.s in quadrature
    a, b = (c for c in REFERENCE["cases"] if "w" in c)
    z = sps.norm.ppf(0.975)

    def ref(case, what, lam):
        return next(np.asarray(c["value"], float) for c in case["checks"]
                    if c.get("weighted") and c["what"] == what and c["lam"] == lam)

    for lam in (None, 0.0, 0.5, 1.0):
        r = _between(a["y"], a["yhat"], a["yhat_unlabeled"], b["y"], b["yhat"], b["yhat_unlabeled"],
                               lam=lam, w_a=a["w"], w_a_unlabeled=a["w_unlabeled"], w_b=b["w"],
                               w_b_unlabeled=b["w_unlabeled"], variance="ppi_py")
        for arm, case in zip(r.arms, (a, b), strict=True):
            assert arm.estimate == pytest.approx(float(ref(case, "pointestimate", lam)), abs=1e-10)
            assert np.allclose(arm.ci, ref(case, "ci", lam), atol=1e-10, rtol=0)
        se_a, se_b = (float(np.diff(ref(c, "ci", lam))[0]) / (2 * z) for c in (a, b))
        assert r.estimate == pytest.approx(float(ref(a, "pointestimate", lam) - ref(b, "pointestimate", lam)),
                                           abs=1e-10)
        assert r.se == pytest.approx(np.hypot(se_a, se_b), abs=1e-10)


def test_shared_personas_take_one_weight_each():
    rng = np.random.default_rng(3)
    data = _arms(rng)
    wu = rng.uniform(0.3, 3, len(data[2]))
    with pytest.raises(SurveyError, match="w_b_unlabeled equal to w_a_unlabeled"):
        _between(*data, same_personas=True, w_a_unlabeled=wu)
    r = _between(*data, same_personas=True, w_a_unlabeled=wu, w_b_unlabeled=wu)
    la, lb = r.lam
    wn = wu / wu.mean()
    x = la * data[2] - lb * data[5]
    # linearised: centred at the weighted mean; divisors n - 2 (tuned lambda) and N - 1
    expected = (np.var(data[0] - la * data[1], ddof=2) / len(data[0])
                + np.var(data[3] - lb * data[4], ddof=2) / len(data[3])
                + np.var(wn * (x - np.mean(wn * x)), ddof=1) / len(data[2]))
    assert r.se == pytest.approx(np.sqrt(expected), rel=1e-12) and r.N == len(data[2])


def test_weighted_interval_covers_the_population_effect_when_humans_oversample_a_stratum():
    # a population of two strata (70% and 30%) whose effects differ (0 and 0.8: the population effect is 0.24);
    # humans and personas are sampled with inclusion probabilities 1 : 4 (the small stratum is 63% of the sample)
    # and weighted by their inverse; the model predicts each answer with a level bias of +0.25
    rng = np.random.default_rng(4)
    datasets, n, big_n = 2000, 150, 600
    share, inclusion = np.array([0.7, 0.3]), np.array([1.0, 4.0])
    in_sample = share * inclusion / (share @ inclusion)
    mu_a, mu_b = np.array([0.0, 1.0]), np.array([0.0, 0.2])
    truth = share @ (mu_a - mu_b)

    def stratum(size):
        return (rng.random((datasets, size)) < in_sample[1]).astype(int)

    def predicted(mu, s, u):
        return mu[s] + 0.25 + 0.8 * u + 0.4 * rng.standard_normal(u.shape)

    arms = []
    for mu in (mu_a, mu_b):
        s, u = stratum(n), rng.standard_normal((datasets, n))
        arms.append((mu[s] + u, predicted(mu, s, u), 1 / inclusion[s]))
    (y_a, f_a, w_a), (y_b, f_b, w_b) = arms
    s, u = stratum(big_n), rng.standard_normal((datasets, big_n))  # the same personas answered both messages
    fu_a, fu_b, wu = predicted(mu_a, s, u), predicted(mu_b, s, u), 1 / inclusion[s]
    weights = {"w_a": w_a, "w_a_unlabeled": wu, "w_b": w_b, "w_b_unlabeled": wu}
    cover = {}
    for name, kw in (("weighted", weights), ("unweighted", {})):
        est, se, _, _, df = _between(y_a, f_a, fu_a, y_b, f_b, fu_b, same_personas=True, arrays=True,
                                     with_df=True, **kw)
        cover[name] = np.mean(np.abs(est - truth) <= sps.t.ppf(0.975, df) * se)
    low, high = sps.binom.interval(0.99, datasets, 0.95)
    assert low / datasets <= cover["weighted"] <= high / datasets, cover  # measured: 0.9475 (band 0.937 to 0.962)
    assert cover["unweighted"] < low / datasets, cover  # measured: 0.0065
    one = _between(y_a[0], f_a[0], fu_a[0], y_b[0], f_b[0], fu_b[0], same_personas=True,
                             **{k: v[0] for k, v in weights.items()})
    est, se, _, _ = _between(y_a[:1], f_a[:1], fu_a[:1], y_b[:1], f_b[:1], fu_b[:1], same_personas=True,
                             arrays=True, **{k: v[:1] for k, v in weights.items()})
    assert one.estimate == pytest.approx(est[0], rel=1e-12) and one.se == pytest.approx(se[0], rel=1e-12)


def test_the_linearised_weighted_variance_covers_where_ppi_py_s_uncentred_one_undercovers():
    # humans over-represent the upper of two equally common strata 3 to 1 (weights 2 and 2/3), and that stratum
    # says Yes three times as often (0.6 vs 0.2): weights correlate with the answers. With lambda = 0 (the
    # weighted humans alone) ppi_py's uncentred Var(w y) understates the s.e.; the linearised one does not.
    # (Seeds 1-5: linearised 0.943-0.958, uncentred 0.918-0.931.)
    rng = np.random.default_rng(3)
    s, n, big_n = 3000, 1000, 2000
    p = np.array([0.2, 0.6])
    k = (rng.random((s, n)) < 0.75).astype(int)
    y = (rng.random((s, n)) < p[k]).astype(float)
    ku = (rng.random((s, big_n)) < 0.5).astype(int)
    f, fu = p[k] + 0.05 * rng.standard_normal((s, n)), p[ku] + 0.05 * rng.standard_normal((s, big_n))
    w = np.array([2.0, 2 / 3])[k]
    cover = {}
    for variance in ("linearised", "ppi_py"):
        est, se, _ = ppi_mean_arrays(y, f, fu, lam=0.0, w=w, variance=variance)
        cover[variance] = np.mean(np.abs(est - 0.4) <= 1.959964 * se)
    band = 2.576 * np.sqrt(0.95 * 0.05 / s)  # the 99% binomial band of 0.95 over 3 000 datasets
    assert abs(cover["linearised"] - 0.95) <= band, cover
    assert cover["ppi_py"] < 0.95 - band, cover
