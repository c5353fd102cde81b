"""DBPA statistics (survey.stats.dbpa.permutation*): known answers, scipy/statsmodels/sklearn references, and
simulations with known ground truth (fixed seeds)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.spatial.distance import cdist, jensenshannon

from survey.errors import SurveyError
from survey.stats.dbpa.family import (
    adjust_pvalues,
    compare_messages_dbpa,
    dbpa_family,
    per_persona_dbpa,
    roc_from_pvalues,
)
from survey.stats.dbpa.omega import OMEGAS, OmegaEngine
from survey.stats.dbpa.permutation import (
    cosine_similarity_matrix,
    dbpa_test,
    dbpa_units,
    energy_distance,
    histograms,
    similarity_sets,
)


def _clouds(rng, k, d=12, shift=0.0, kk=None):
    x = rng.normal(size=(k, d))
    y = rng.normal(size=(kk or k, d))
    y[:, 0] += shift
    return x, y


def _p0_p1(x, y):
    S = cosine_similarity_matrix(np.vstack([x, y]))
    return similarity_sets(S, np.r_[np.ones(len(x), bool), np.zeros(len(y), bool)])


# --- P0, P1 and the discrepancies on the observed labels ------------------------------------------

def test_p0_p1_are_the_spec_sets():
    rng = np.random.default_rng(0)
    x, y = _clouds(rng, 5, kk=4)
    p0, p1 = _p0_p1(x, y)
    cos = 1 - cdist(x, y, "cosine")
    within = 1 - cdist(x, x, "cosine")
    assert len(p0) == 5 * 4 // 2 and len(p1) == 5 * 4
    np.testing.assert_allclose(np.sort(p1), np.sort(cos.ravel()))
    np.testing.assert_allclose(np.sort(p0), np.sort(within[np.triu_indices(5, 1)]))


def test_js_distance_equals_scipy_jensenshannon_on_the_same_histograms():
    rng = np.random.default_rng(1)
    for k, shift in [(8, 0.0), (20, 0.7), (13, 2.0)]:
        x, y = _clouds(rng, k, shift=shift, kk=k + 3)
        res = dbpa_test(x, y, omega=["js", "js-distance"], n_resamples=20, seed=0)
        p0, p1 = _p0_p1(x, y)
        lo, hi = min(p0.min(), p1.min()), max(p0.max(), p1.max())
        h0 = np.histogram(p0, bins=30, range=(lo, hi))[0]
        h1 = np.histogram(p1, bins=30, range=(lo, hi))[0]
        assert res["js-distance"].statistic == pytest.approx(jensenshannon(h0, h1), abs=1e-12)
        assert res["js"].statistic == pytest.approx(jensenshannon(h0, h1) ** 2, abs=1e-12)
        assert res["js"].js_distance == pytest.approx(res["js-distance"].statistic)
        # divergence and distance are monotone: same p-value from the same relabelings
        assert res["js"].pvalue == res["js-distance"].pvalue


def test_js_with_fixed_and_all_pairs_ranges_and_other_bins():
    rng = np.random.default_rng(2)
    x, y = _clouds(rng, 12, shift=1.0)
    p0, p1 = _p0_p1(x, y)
    r = dbpa_test(x, y, omega="js-distance", bins=7, hist_range=(-0.5, 0.5), n_resamples=10, seed=0)
    h0, h1, _ = histograms(p0, p1, bins=7, hist_range=(-0.5, 0.5))
    assert r.statistic == pytest.approx(jensenshannon(h0, h1), abs=1e-12)
    S = cosine_similarity_matrix(np.vstack([x, y]))
    off = S[~np.eye(len(S), dtype=bool)]
    r = dbpa_test(x, y, omega="js-distance", hist_range="all-pairs", n_resamples=10, seed=0)
    h0 = np.histogram(p0, bins=30, range=(off.min(), off.max()))[0]
    h1 = np.histogram(p1, bins=30, range=(off.min(), off.max()))[0]
    assert r.statistic == pytest.approx(jensenshannon(h0, h1), abs=1e-12)


@pytest.mark.parametrize("metric", ["cosine", "l1", "l2"])
def test_energy_distance_matches_direct_formula(metric):
    rng = np.random.default_rng(3)
    x, y = _clouds(rng, 9, shift=0.8, kk=6)
    d = {"cosine": lambda a, b: 1 - a @ b / np.linalg.norm(a) / np.linalg.norm(b),
         "l1": lambda a, b: np.abs(a - b).sum(), "l2": lambda a, b: np.linalg.norm(a - b)}[metric]
    n, m = len(x), len(y)
    direct = (2 / (n * m) * sum(d(a, b) for a in x for b in y)
              - 1 / n**2 * sum(d(a, b) for a in x for b in x)
              - 1 / m**2 * sum(d(a, b) for a in y for b in y))
    res = dbpa_test(x, y, omega=f"energy-{metric}", n_resamples=10, seed=0)
    assert res.statistic == pytest.approx(direct, rel=1e-9)
    assert energy_distance(x, y, metric) == pytest.approx(direct, rel=1e-9)


def test_energy_in_one_dimension_is_scipys_squared():
    rng = np.random.default_rng(4)
    u, v = rng.normal(size=7), rng.normal(size=5) + 1
    e = dbpa_test(u[:, None], v[:, None], omega="energy-l1", n_resamples=5, seed=0).statistic
    assert e == pytest.approx(stats.energy_distance(u, v) ** 2, rel=1e-9)


def test_wasserstein_ks_and_mean_difference_match_scipy():
    rng = np.random.default_rng(5)
    x, y = _clouds(rng, 11, shift=0.5, kk=9)
    x[3] = x[2]  # identical outputs create tied similarities
    res = dbpa_test(x, y, omega=["wasserstein", "ks", "mean-diff"], n_resamples=10, seed=0)
    p0, p1 = _p0_p1(x, y)
    assert res["wasserstein"].statistic == pytest.approx(stats.wasserstein_distance(p0, p1), abs=1e-12)
    assert res["ks"].statistic == pytest.approx(stats.ks_2samp(p0, p1).statistic, abs=1e-12)
    assert res["mean-diff"].statistic == pytest.approx(p0.mean() - p1.mean(), abs=1e-12)


@pytest.mark.parametrize("n_units,size", [(8, 3), (5, 16)])
def test_engine_matches_direct_recomputation_for_every_relabeling(n_units, size):
    """The vectorised null: each row equals omega recomputed from scratch on that relabeling.
    8 units of 3 outputs use the per-pair histogram path, 5 units of 16 the unit-block path."""
    rng = np.random.default_rng(6)
    emb = rng.normal(size=(n_units * size, 6))
    emb[5] = emb[4]  # ties
    units = np.repeat(np.arange(n_units), size)
    S = cosine_similarity_matrix(emb)
    A = np.zeros((12, n_units))
    for r in range(12):
        A[r, rng.choice(n_units, size=int(rng.integers(1, n_units)), replace=False)] = 1
    eng = OmegaEngine(S, units, n_units, emb)
    vals = eng.evaluate(A, list(OMEGAS))
    for r in range(len(A)):
        in_x = A[r][units] > 0
        p0, p1 = similarity_sets(S, in_x)
        h0, h1, _ = histograms(p0, p1)
        assert vals["js-distance"][r] == pytest.approx(jensenshannon(h0, h1), abs=1e-12)
        assert vals["wasserstein"][r] == pytest.approx(stats.wasserstein_distance(p0, p1), abs=1e-12)
        assert vals["ks"][r] == pytest.approx(stats.ks_2samp(p0, p1).statistic, abs=1e-12)
        assert vals["mean-diff"][r] == pytest.approx(p0.mean() - p1.mean(), abs=1e-12)
        assert vals["energy-l2"][r] == pytest.approx(energy_distance(emb[in_x], emb[~in_x], "l2"), rel=1e-9)


def test_histogram_counts_equal_numpy_histogram_at_bin_edges():
    """Similarities sitting exactly on edges (and at the max) land where np.histogram puts them."""
    grid = np.linspace(-1, 1, 31)
    emb = np.stack([np.cos(np.arccos(grid[::3])), np.sin(np.arccos(grid[::3]))], axis=1)  # 2-d unit vectors
    rng = np.random.default_rng(7)
    S = cosine_similarity_matrix(emb)
    N = len(emb)
    eng = OmegaEngine(S, np.arange(N), N, emb, bins=10)
    A = np.zeros((20, N))
    for r in range(20):
        A[r, rng.choice(N, 5, replace=False)] = 1
    c0, c1 = eng.hist_counts(A)
    for r in range(20):
        p0, p1 = similarity_sets(S, A[r] > 0)
        h0, h1, _ = histograms(p0, p1, bins=10)
        np.testing.assert_array_equal(c0[r], h0)
        np.testing.assert_array_equal(c1[r], h1)


# --- the permutation test --------------------------------------------------------------------------

def test_pvalues_are_uniform_under_the_null():
    """Identical distributions: KS test of 300 p-values against U(0, 1), for two omegas."""
    rng = np.random.default_rng(8)
    pv = {"js": [], "energy-cosine": []}
    for _ in range(300):
        x, y = _clouds(rng, 10, d=5)
        res = dbpa_test(x, y, omega=list(pv), n_resamples=199, seed=rng)
        for o in pv:
            pv[o].append(res[o].pvalue)
    for o, p in pv.items():
        assert stats.kstest(p, "uniform").pvalue > 0.01, o
        assert 0.02 < np.mean(np.array(p) <= 0.05) < 0.09, o


def test_relabeling_outputs_holds_alpha_where_permuting_scores_does_not():
    """DBPA's permutation step: exchangeability holds for outputs, not similarity scores. Outputs here are iid
    (H0 true) but differ in how typical they are (noise scale varies per output), so similarities
    that share an output are correlated. Relabeling outputs stays within the 99% binomial interval
    of alpha; pooling and splitting the scores (computed here as the counterfactual) rejects far
    more often, so a score permutation inside dbpa_test would fail the first assertion."""
    rng = np.random.default_rng(22)
    runs, k, B = 1000, 20, 99
    rej_outputs = rej_scores = 0
    for _ in range(runs):
        z = np.zeros((2 * k, 6))
        z[:, 0] = 1.0
        z += rng.normal(size=z.shape) * np.exp(rng.normal(size=(2 * k, 1)))
        rej_outputs += dbpa_test(z[:k], z[k:], omega="mean-diff", n_resamples=B, seed=rng).pvalue <= 0.05
        p0, p1 = _p0_p1(z[:k], z[k:])
        pool = np.concatenate([p0, p1])
        perm = rng.permuted(np.tile(pool, (B, 1)), axis=1)
        null = perm[:, :len(p0)].mean(axis=1) - perm[:, len(p0):].mean(axis=1)
        rej_scores += (1 + np.sum(null >= p0.mean() - p1.mean())) / (B + 1) <= 0.05
    lo, hi = stats.binom.ppf([0.005, 0.995], runs, 0.05) / runs
    assert lo <= rej_outputs / runs <= hi, rej_outputs
    assert rej_scores / runs > 0.12, rej_scores


def test_undefined_omega_on_a_relabeling_counts_as_exceeding():
    from survey.stats.dbpa.permutation import _pvalue

    # NaN (a fixed histogram range left a set empty) must never make p smaller
    assert _pvalue(0.5, np.array([np.nan, 0.1, 0.6, 0.2]), exact=True) == 2 / 4
    assert _pvalue(0.5, np.array([np.nan, 0.1, 0.6, 0.2]), exact=False) == 3 / 5


def test_clearly_shifted_embeddings_give_small_pvalues():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(20, 16)) * 0.3
    y = rng.normal(size=(20, 16)) * 0.3
    x[:, 0] += 2.0
    y[:, 1] += 2.0
    res = dbpa_test(x, y, omega=list(OMEGAS), n_resamples=500, seed=0)
    for o, r in res.items():
        assert r.pvalue == pytest.approx(1 / 501), o
        assert r.statistic > np.max(r.null_distribution), o
        assert len(r.null_distribution) == 500


def test_result_object_and_reproducibility():
    rng = np.random.default_rng(10)
    x, y = _clouds(rng, 8, shift=0.3)
    r1 = dbpa_test(x, y, n_resamples=50, seed=42)
    r2 = dbpa_test(x, y, n_resamples=50, seed=42)
    np.testing.assert_array_equal(r1.null_distribution, r2.null_distribution)
    d = r1.to_dict()
    assert {"statistic", "pvalue", "omega", "n_resamples", "null", "js_distance"} <= set(d)
    assert d["omega"] == "js" and d["bins"] == 30 and d["hist_range"] == "pooled"
    assert 1 / 51 <= r1.pvalue <= 1


def test_small_designs_are_enumerated_exactly():
    rng = np.random.default_rng(11)
    x, y = _clouds(rng, 3, kk=3)
    r = dbpa_test(x, y, omega="mean-diff", n_resamples=1000, seed=0)
    assert r.exact and r.n_resamples == 20  # C(6, 3)
    # the observed labeling is one of the 20, so p >= 1/20
    assert r.pvalue >= 1 / 20


def test_input_errors_are_survey_errors():
    rng = np.random.default_rng(12)
    x, y = _clouds(rng, 4)
    with pytest.raises(SurveyError, match="omega"):
        dbpa_test(x, y, omega="cosine")
    with pytest.raises(SurveyError, match="dimension"):
        dbpa_test(x, y[:, :3])
    with pytest.raises(SurveyError, match="at least 2"):
        dbpa_test(x[:1], y)
    with pytest.raises(SurveyError, match="NaN"):
        dbpa_test(np.full((3, 2), np.nan), y)
    with pytest.raises(SurveyError, match="hist_range"):
        dbpa_test(x, y, hist_range=(1, 0))
    with pytest.raises(SurveyError, match="both sides"):
        dbpa_units(np.vstack([x, y]), np.r_[[True] * 4, [False] * 4], [0, 0, 1, 1, 1, 2, 2, 3])


# --- units: why the message comparison must move whole perturbations ------------------------------

def _survey_null(rng, m=6, n=5, d=8, tau=1.0, sigma=1.0):
    """Outputs of two messages with the SAME law: embedding = center + shared perturbation shift
    (one per perturbation, common to all its n personas) + persona noise."""
    center = rng.normal(size=d) * 2
    shifts = rng.normal(size=(2 * m, d)) * tau
    emb = center + np.repeat(shifts, n, axis=0) + rng.normal(size=(2 * m * n, d)) * sigma
    is_a = np.repeat(np.arange(2 * m) < m, n)
    pert = np.repeat([f"p{j % m}" for j in range(2 * m)], n)
    return emb, is_a, pert


def test_unit_level_permutation_holds_alpha_and_output_level_does_not():
    """The simulation behind docs/dbpa.md: 200 null surveys (m = 6 perturbations per message,
    n = 5 personas, shared shift sd = noise sd). Output-level relabeling ignores that outputs of one
    perturbation share its shift and rejects far too often; relabeling whole perturbations
    (exact: C(12, 6) = 924 relabelings) stays within the binomial 99% interval of alpha = 0.05."""
    rng = np.random.default_rng(13)
    rej = {("output", "js"): 0, ("output", "energy-cosine"): 0,
           ("perturbation", "js"): 0, ("perturbation", "energy-cosine"): 0}
    runs = 200
    for _ in range(runs):
        emb, is_a, pert = _survey_null(rng)
        for unit in ("output", "perturbation"):
            res = compare_messages_dbpa(emb, is_a, pert, omega=["js", "energy-cosine"], unit=unit,
                                        n_resamples=999 if unit == "perturbation" else 299, seed=rng)
            for o, r in res.items():
                rej[(unit, o)] += r.pvalue <= 0.05
    lo, hi = stats.binom.ppf([0.005, 0.995], runs, 0.05) / runs
    for o in ("js", "energy-cosine"):
        assert lo <= rej[("perturbation", o)] / runs <= hi, (o, rej)
        assert rej[("output", o)] / runs > 0.25, (o, rej)


def test_swap_scheme_is_the_sign_flip_analogue():
    rng = np.random.default_rng(14)
    emb, is_a, pert = _survey_null(rng, m=5, n=3)
    r = compare_messages_dbpa(emb, is_a, pert, omega="mean-diff", scheme="swap", n_resamples=10_000, seed=0)
    assert r.exact and r.n_resamples == 2**5 and r.scheme == "swap" and r.unit == "perturbation"
    emb[is_a] += np.eye(emb.shape[1])[0] * 6  # message A clearly different
    r = compare_messages_dbpa(emb, is_a, pert, omega="mean-diff", scheme="swap", n_resamples=10_000, seed=0)
    assert r.pvalue == pytest.approx(1 / 32)  # the smallest exact p with 5 pairs


def test_per_persona_dbpa_adjusts_across_personas():
    rng = np.random.default_rng(15)
    m, n, r = 4, 3, 2
    persona = np.tile(np.repeat([f"s{i}" for i in range(n)], r), 2 * m)
    is_a = np.repeat(np.arange(2 * m) < m, n * r)
    pert = np.repeat([f"p{j % m}" for j in range(2 * m)], n * r)
    emb = rng.normal(size=(len(is_a), 6))
    emb[is_a & (persona == "s1"), 0] += 8  # only persona s1 reacts differently to A
    fam = per_persona_dbpa(emb, is_a, pert, persona, omega="energy-cosine", n_resamples=999, seed=0)
    assert fam.names == ["s0", "s1", "s2"]
    # exact over C(8, 4) = 70 relabelings; energy is symmetric in X and Y, so the complement of the
    # observed labels ties with it and the smallest p is 2/70
    assert fam.results[1].pvalue == pytest.approx(2 / 70)
    np.testing.assert_allclose(fam.adjusted, adjust_pvalues([x.pvalue for x in fam.results], "holm"))
    assert fam.to_dict()["tests"][1]["name"] == "s1"


# --- families ----------------------------------------------------------------------------------------

def test_roc_auc_matches_sklearn_and_rates_at_alpha():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(17)
    for _ in range(20):
        pc = np.round(rng.uniform(size=rng.integers(1, 12)), 2)
        pt = np.round(rng.uniform(size=rng.integers(1, 12)) ** 3, 2)  # rounding creates ties
        roc = roc_from_pvalues(pc, pt, alpha=0.05)
        labels = np.r_[np.zeros(len(pc)), np.ones(len(pt))]
        assert roc.auc == pytest.approx(roc_auc_score(labels, -np.r_[pc, pt]), abs=1e-12)
        assert roc.fpr_at_alpha == np.mean(pc < 0.05) and roc.tpr_at_alpha == np.mean(pt < 0.05)
        assert roc.fpr[0] == roc.tpr[0] == 0 and roc.fpr[-1] == roc.tpr[-1] == 1
        # each vertex is (FPR(a), TPR(a)) at its threshold a, "change detected" when p < a
        for a, f, t in zip(roc.thresholds, roc.fpr, roc.tpr, strict=True):
            assert (f, t) == (np.mean(pc < a), np.mean(pt < a))


def test_family_control_and_target_perturbations():
    rng = np.random.default_rng(18)
    base = rng.normal(size=(15, 8))
    others, roles = {}, {}
    for i in range(3):
        others[f"control{i}"] = rng.normal(size=(15, 8))
        roles[f"control{i}"] = "control"
        t = rng.normal(size=(15, 8))
        t[:, 0] += 4
        others[f"target{i}"] = t
        roles[f"target{i}"] = "target"
    fam = dbpa_family(base, others, omega="energy-cosine", correction="bh", n_resamples=299, seed=1, roles=roles)
    assert fam.roc is not None and fam.roc.auc == pytest.approx(1.0)
    assert fam.rejected[[n.startswith("target") for n in fam.names]].all()
    d = fam.to_dict()
    assert d["roc"]["auc"] == pytest.approx(1.0) and {t["role"] for t in d["tests"]} == {"control", "target"}
    with pytest.raises(SurveyError, match="roles"):
        dbpa_family(base, others, roles={"control0": "maybe"}, n_resamples=9)


def test_identical_outputs_and_an_empty_fixed_range():
    same = np.ones((5, 4))
    res = dbpa_test(same, same, omega=list(OMEGAS), n_resamples=50, seed=0)
    for o, r in res.items():
        assert r.statistic == pytest.approx(0.0, abs=1e-12) and r.pvalue == 1.0, o
    rng = np.random.default_rng(19)
    with pytest.raises(SurveyError, match="widen it"):
        dbpa_test(rng.normal(size=(5, 4)), rng.normal(size=(5, 4)), hist_range=(5, 6), n_resamples=10)


def test_alignment_with_a_reference_model():
    from survey.stats.dbpa.family import dbpa_alignment

    rng = np.random.default_rng(20)
    ref = rng.normal(size=(12, 6))
    aligned = rng.normal(size=(12, 6))
    off = rng.normal(size=(12, 6))
    off[:, 0] += 5
    res = dbpa_alignment(ref, {"aligned": aligned, "off": off}, omega="energy-l2", n_resamples=499, seed=3)
    assert res.names == ["aligned", "off"]
    assert res.results[0].pvalue > 0.05 and res.results[1].pvalue == pytest.approx(1 / 500)
