"""Validity of the A/B tests on rating-scale answers: null surveys from the ordinal model (K = 5,
delta = 0, n = 50, m = 10, r = 5), 1500 per rho, tested on mean scores and on the top-2-box share.

The sign-flip test of Helm & Priebe (2026), "When prompt perturbations break your A/B test", keeps its
size for every rho; the sign and Wilcoxon tests over personas are oversized once paraphrases shift
every persona alike (rho > 0) and valid at rho = 0. The measured rates are in docs/ordinal-model.md.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from survey.kinds.ordinal.model import make_ordinal_params, score_sums, simulate_category_counts
from survey.stats.ab_tests import batched_pvalues
from survey.stats.permutation import sign_flip_pvalues

N, M, R, DATASETS, ALPHA = 50, 10, 5, 1500, 0.05
# With m = 10 pairs the exact two-sided sign-flip p-value moves in steps of 2/2^10: it rejects at most
# 25 of the 512 sign-vector pairs, so its size is 50/1024 = 0.0488 when the data have no ties.
ATTAINABLE = 2 * np.floor(ALPHA * 2**M / 2) / 2**M


def clopper_pearson(rejections: int, draws: int, level: float = 0.99):
    ci = stats.binomtest(int(rejections), draws).proportion_ci(level, method="exact")
    return ci.low, ci.high


@pytest.fixture(scope="module", params=[0.0, 0.3, 0.6], ids=lambda rho: f"rho={rho}")
def null_surveys(request):
    params = make_ordinal_params(points=5, tau=1.0, sigma=1.0, rho=request.param, delta=0.0)
    rng = np.random.default_rng([12, int(request.param * 10)])
    counts_a, counts_b = simulate_category_counts(params, N, M, M, R, rng, size=(DATASETS,))
    return request.param, params, counts_a, counts_b


def rates(samples: dict, tests) -> dict:
    pv = batched_pvalues(samples, tests, exact_max_m=M, seed=0)
    return {t: int((pv[t] <= ALPHA).sum()) for t in tests}


def test_attainable_size_of_the_exact_sign_flip_test():
    d = np.random.default_rng(0).normal(size=(4000, M))  # continuous: no ties
    assert np.mean(sign_flip_pvalues(d, exact_max_m=M) <= ALPHA) == pytest.approx(ATTAINABLE, abs=0.012)
    assert ATTAINABLE == pytest.approx(0.0488, abs=1e-4)


def test_mean_score_tests_on_null_data(null_surveys):
    rho, params, ca, cb = null_surveys
    # theta_ij = score sum / r; the tests are scale-invariant, so sums stand in for the means
    diff = (score_sums(params, ca) - score_sums(params, cb)).astype(float)  # (S, n, m)
    samples = {"pairs": (diff.sum(axis=1),), "personas": (diff.sum(axis=2),)}
    counts = rates(samples, ("sign_flip", "sign", "wilcoxon"))
    print(f"\nrho={rho}: rejections of {DATASETS} at alpha={ALPHA}: {counts}")
    lo, hi = clopper_pearson(counts["sign_flip"], DATASETS)
    assert lo <= ALPHA, f"sign-flip oversized at rho={rho}: {counts['sign_flip'] / DATASETS:.3f}"
    assert hi >= ATTAINABLE / 2, "sign-flip far below its attainable size: the simulation or test is broken"
    for test in ("sign", "wilcoxon"):
        lo, hi = clopper_pearson(counts[test], DATASETS)
        if rho == 0:
            assert lo <= ALPHA, f"{test} oversized at rho=0: {counts[test] / DATASETS:.3f}"
        else:
            ci_alpha = clopper_pearson(round(ALPHA * DATASETS), DATASETS)
            assert counts[test] / DATASETS > ci_alpha[1], f"{test} not oversized at rho={rho}"


def test_top_two_box_sign_flip_keeps_its_size(null_surveys):
    rho, _, ca, cb = null_surveys
    top2 = ca[..., -2:].sum(-1) - cb[..., -2:].sum(-1)  # per cell: r x (share of the two highest points)
    counts = rates({"pairs": (top2.sum(axis=1).astype(float),)}, ("sign_flip",))
    print(f"\nrho={rho}: top-2-box sign-flip rejections {counts['sign_flip']} of {DATASETS}")
    lo, hi = clopper_pearson(counts["sign_flip"], DATASETS)
    assert lo <= ALPHA and hi >= ATTAINABLE / 2


def test_sign_flip_detects_a_shift_on_the_rating_scale():
    """The same pipeline has power: delta = 1 on the latent scale at rho = 0.3 rejects most surveys."""
    params = make_ordinal_params(points=5, tau=1.0, sigma=1.0, rho=0.3, delta=1.0)
    ca, cb = simulate_category_counts(params, N, M, M, R, np.random.default_rng(5), size=(300,))
    diff = (score_sums(params, ca) - score_sums(params, cb)).astype(float)
    pv = batched_pvalues({"pairs": (diff.sum(axis=1),)}, ("sign_flip",), exact_max_m=M)["sign_flip"]
    assert np.mean(pv <= ALPHA) > 0.5
