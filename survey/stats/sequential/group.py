"""Group-sequential sign-flip test with alpha spending.

The sign-flip test of Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid
statistical test for generative surveying", rests on one symmetry: given the personas' base rates, the
paired differences D_1, D_2, ... are independent and symmetric about 0 under H0, whatever rho. So given
their magnitudes |D_j|, the signs are independent fair coins. At look k (after m_k pairs) the boundary
c_k is chosen over random signs of the m_k pairs seen so far, such that

    P(|sum_{j<=m_k} eps_j |D_j|| > c_k, and no earlier look crossed)  <=  alpha(t_k) - (error spent before)

with alpha(t) a spending function (Lan & DeMets 1983, "Discrete sequential boundaries for clinical
trials"). Earlier boundaries depend only on magnitudes already seen, so look k is computable when it
happens, and the total error is at most alpha(1) = alpha. The error a discrete null leaves unspent at one
look is carried to the next (the cumulative form above).

Exact for every rho and every sample size: with at most ``exact_max_m`` pairs at the last look all 2^m
sign vectors are enumerated; otherwise B seeded random sign vectors are drawn and the observed signs
join them as one more path. The B + 1 paths are then exchangeable under H0 and every boundary is a
symmetric function of them, so the observed path crosses with probability at most alpha, exactly as the
Monte Carlo p-value (1 + count) / (1 + B) is valid.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from survey.stats.permutation import all_signs


@dataclass
class GroupPaths:
    """Per survey s and look k: statistic and boundary (mean scale), and the first crossing."""

    looks: np.ndarray  # (K,) pairs at each look
    statistic: np.ndarray  # (S, K) sum_j D_j / m_k, signed
    boundary: np.ndarray  # (S, K) reject when |statistic| (or its signed version) exceeds this
    spent: np.ndarray  # (S, K) error actually spent by look k (over the sign-flip null)
    crossed: np.ndarray  # (S,) index of the first look that crossed, -1 if none
    pvalue: np.ndarray  # (S, K) stagewise-ordering p-value if the survey stopped at look k
    n_paths: int
    exact: bool


def sign_paths(m: int, flips: int, exact_max_m: int, seed) -> tuple[np.ndarray, bool]:
    """(N, m) sign vectors whose row 0 is all +1 (the observed path): all 2^m, or 1 + flips draws."""
    if m <= exact_max_m:
        return np.asarray(all_signs(m)), True  # row 0 of the enumeration is all +1
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, 2, size=(int(flips), m), dtype=np.int8) * 2 - 1
    return np.vstack([np.ones((1, m)), draws.astype(float)]), False


def group_sequential_paths(D, looks, alpha: float, spending_levels, alternative: str = "two-sided",
                           flips: int = 4999, exact_max_m: int = 14, seed=0, chunk: int = 128) -> GroupPaths:
    """Boundaries and crossings of the group-sequential sign-flip test for S surveys at once.

    ``D``: (S, M) paired differences in collection order (NaN, a pair without answers, counts as 0:
    it carries no evidence under any sign). ``looks``: increasing pair counts, the last <= M.
    ``spending_levels``: cumulative alpha at each look (survey.stats.sequential.design.spent_alpha).
    The same sign vectors serve every survey (they are independent of the data).
    """
    D = np.nan_to_num(np.atleast_2d(np.asarray(D, dtype=float)))
    looks = np.asarray(looks, dtype=int)
    levels = np.asarray(spending_levels, dtype=float)
    S, K = D.shape[0], len(looks)
    signs, exact = sign_paths(int(looks[-1]), flips, exact_max_m, seed)
    N = len(signs)
    allowed_total = np.floor(levels * N + 1e-9).astype(np.int64)  # paths that may have crossed by look k
    stat = np.empty((S, K))
    bound = np.empty((S, K))
    spent = np.empty((S, K))
    pval = np.empty((S, K))
    crossed = np.full(S, -1)
    sign_of = {"two-sided": 1.0, "greater": 1.0, "less": -1.0}[alternative]
    for start in range(0, S, chunk):
        # Paths sum eps_j D_j: eps uniform times sign(D_j) is still uniform, so the sign-flip null is the
        # same as over |D_j|, and row 0 (all +1) is the observed path.
        a = D[start:start + chunk, :looks[-1]]
        c = len(a)
        sums = np.zeros((c, N))
        alive = np.ones((c, N), dtype=bool)
        done = np.zeros(c, dtype=np.int64)  # paths that crossed at earlier looks
        tol = 1e-9 * np.abs(a).sum(axis=1, keepdims=True) + 1e-300
        prev = 0
        for k, m in enumerate(looks):
            sums += a[:, prev:m] @ signs[:, prev:m].T
            prev = m
            val = np.abs(sums) if alternative == "two-sided" else sign_of * sums
            ranked = np.sort(np.where(alive, val, -np.inf), axis=1)[:, ::-1]  # largest first
            allowed = np.clip(allowed_total[k] - done, 0, N - 1)
            thr = ranked[np.arange(c), allowed]  # the (allowed+1)-th largest alive path: not rejected
            new = alive & (val > thr[:, None] + tol)
            obs = val[:, 0]
            # stagewise ordering: earlier crossings, then alive paths at least as extreme as observed
            pval[start:start + c, k] = (done + (alive & (val >= obs[:, None] - tol)).sum(axis=1)) / N
            done += new.sum(axis=1)
            first = new[:, 0] & (crossed[start:start + c] < 0)
            crossed[start:start + c][first] = k
            alive &= ~new
            stat[start:start + c, k] = sums[:, 0] / m
            bound[start:start + c, k] = thr / m
            spent[start:start + c, k] = done / N
    return GroupPaths(looks, stat, bound, spent, crossed, np.minimum(pval, 1.0), N, exact)
