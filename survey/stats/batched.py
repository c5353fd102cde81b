"""The sign and Wilcoxon tests on a whole batch of surveys at once: row s of D is (D_1..D_n) of survey s.

They reproduce survey.stats.classic (scipy.stats.binomtest and scipy.stats.wilcoxon with its
defaults) row by row, without a Python loop over rows, which is what makes power simulation and
sub-sampling studies fast. NaN entries are dropped, as classic does before calling scipy.

Wilcoxon method choice, as scipy 1.17's ``method="auto"`` on a row of length L (NaN dropped):
  * L <= 50, no zeros and no ties: exact null distribution of the signed-rank statistic W+;
  * zeros or ties and L <= 13: scipy runs a permutation test that enumerates all 2^L sign flips,
    which is exact; we enumerate the same flips (of the non-zero entries: flipping a zero changes
    nothing, so the proportions are identical);
  * otherwise the normal approximation with the tie correction and no continuity correction.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import special, stats

from survey.stats.permutation import check_alternative

EXACT_MAX_N = 50  # scipy: exact W+ distribution up to this length when there are no ties
PERMUTATION_MAX_N = 13  # scipy: 2^13 < 9999 resamples, so its permutation test is exact


def _as_batch(D) -> np.ndarray:
    D = np.asarray(D, dtype=float)
    return D[None, :] if D.ndim == 1 else D


def sign_pvalues(D, alternative: str = "two-sided") -> np.ndarray:
    """Sign-test p-values per row (ties D = 0 dropped): scipy.stats.binomtest(k, n_nonzero, 0.5)."""
    check_alternative(alternative)
    D = _as_batch(D)
    valid = ~np.isnan(D)
    k = np.count_nonzero(valid & (D > 0), axis=1)
    n = np.count_nonzero(valid & (D != 0), axis=1)
    less = stats.binom.cdf(k, n, 0.5)
    greater = stats.binom.sf(k - 1, n, 0.5)
    if alternative == "less":
        p = less
    elif alternative == "greater":
        p = greater
    else:
        # binomtest's two-sided p sums the outcomes no likelier than k; at p = 0.5 the law is
        # symmetric, so that is twice the smaller tail (and exactly 1 at k = n/2).
        p = np.minimum(1.0, 2.0 * np.minimum(less, greater))
    return np.where(n == 0, 1.0, p)


@cache
def _signed_rank_cdf(n: int) -> np.ndarray:
    """P(W+ <= w) for w = 0..n(n+1)/2 when there are no ties: counts of subsets of {1..n} by sum."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for k in range(1, n + 1):  # include rank k or not; float64 is exact up to 2^53 > 2^50
        counts[k:] = counts[k:] + counts[:-k].copy()
    return np.cumsum(counts) / 2.0 ** n


def _exact_p(w: np.ndarray, n: int, alternative: str) -> np.ndarray:
    cdf = _signed_rank_cdf(n)
    lo = np.ceil(w).astype(int)
    hi = np.floor(w).astype(int)
    p_less = cdf[lo]
    p_greater = 1.0 - np.where(hi > 0, cdf[np.maximum(hi - 1, 0)], 0.0)
    if alternative == "less":
        return p_less
    if alternative == "greater":
        return p_greater
    return np.clip(2.0 * np.minimum(p_less, p_greater), 0.0, 1.0)


def _flip_p(ranks: np.ndarray, w: np.ndarray, alternative: str) -> np.ndarray:
    """Exact sign-flip p-values of W+ for rows whose non-zero ranks fill the first k columns."""
    k = ranks.shape[1]
    plus = ((np.arange(2 ** k)[:, None] >> np.arange(k)) & 1).astype(float)  # (2^k, k)
    null = ranks @ plus.T  # W+ under every flip; sums of half-integers, so exact in float
    p_less = (null <= w[:, None]).mean(axis=1)
    p_greater = (null >= w[:, None]).mean(axis=1)
    if alternative == "less":
        return p_less
    if alternative == "greater":
        return p_greater
    return np.clip(2.0 * np.minimum(p_less, p_greater), 0.0, 1.0)


def wilcoxon_pvalues(D, alternative: str = "two-sided") -> np.ndarray:
    """Wilcoxon signed-rank p-values per row, as scipy.stats.wilcoxon (zeros dropped) row by row."""
    check_alternative(alternative)
    D = _as_batch(D)
    S = D.shape[0]
    valid = ~np.isnan(D)
    nz = valid & (D != 0)
    length = valid.sum(axis=1)  # what scipy sees after classic drops NaN
    count = nz.sum(axis=1)
    # Rank |D| among the non-zero entries only: the rest sort after them as +inf.
    a = np.where(nz, np.abs(D), np.inf)
    r_avg = stats.rankdata(a, method="average", axis=1)
    r_min = stats.rankdata(a, method="min", axis=1)
    tie_size = 2.0 * (r_avg - r_min) + 1.0  # max - min + 1 = size of the tie group
    tie_sum = np.where(nz, tie_size ** 2 - 1.0, 0.0).sum(axis=1)  # = sum over groups of t^3 - t
    w = np.where(nz & (D > 0), r_avg, 0.0).sum(axis=1)
    has_zero = count < length

    p = np.ones(S)
    exact = (length <= EXACT_MAX_N) & ~has_zero & (tie_sum == 0) & (count > 0)
    flips = (length <= PERMUTATION_MAX_N) & ~exact & (count > 0)
    approx = ~exact & ~flips & (count > 0)
    for n in np.unique(count[exact]):
        rows = exact & (count == n)
        p[rows] = _exact_p(w[rows], int(n), alternative)
    if flips.any():
        rows = np.flatnonzero(flips)
        # Left-align each row's non-zero ranks (zeros contribute nothing to W+ under any flip).
        ranks = np.where(nz[rows], r_avg[rows], 0.0)
        order = np.argsort(~nz[rows], axis=1, kind="stable")
        ranks = np.take_along_axis(ranks, order, axis=1)
        for k in np.unique(count[rows]):
            sel = count[rows] == k
            p[rows[sel]] = _flip_p(ranks[sel, :k], w[rows[sel]], alternative)
    if approx.any():
        n = count[approx].astype(float)
        mean = n * (n + 1) / 4
        se = np.sqrt((n * (n + 1) * (2 * n + 1) - tie_sum[approx] / 2) / 24)
        z = (w[approx] - mean) / se
        if alternative == "less":
            p[approx] = special.ndtr(z)
        elif alternative == "greater":
            p[approx] = special.ndtr(-z)
        else:
            p[approx] = 2 * special.ndtr(-np.abs(z))
    return p
