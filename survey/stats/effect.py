"""Confidence interval for the effect T = mean_j d_j by inverting the sign-flip test.

Why inversion and not a bootstrap: the interval is then exactly as valid as the test under the
same model (it respects the clustering by perturbation because its unit is the perturbation
pair), and it agrees with the test: 0 lies outside the (1 - alpha) interval exactly when the
two-sided sign-flip p-value at delta = 0 is <= alpha.

The interval is {delta : p(d - delta) > alpha}, with p the two-sided p-value of
survey.stats.permutation.sign_flip_test. Its ends are order statistics of subset means (Hartigan,
"Using subsample values as typical values", 1969). Flipping the signs of a set N of the
x_j = d_j - delta gives |S - 2 s_N| >= |S| (S = sum x, s_N = sum over N) exactly when
s_N * s_(not N) <= 0, that is when delta lies between mean_N(d) and mean_(not N)(d). The overall
mean T lies between those two, so each of the 2^(m-1) - 1 splits {N, not N} into non-empty parts
adds 2 sign vectors to the count at every delta between its two means; the empty and the full set
always count. p(delta) > alpha then needs at least q = floor(alpha 2^(m-1)) splits around delta,
and the interval is [q-th smallest, q-th largest] of the means of the non-empty proper subsets:
closed, because ties count as ">=". With q = 0 nothing can be rejected and the interval is the
``bounds``. The test counts sums within its tie tolerance as equal; subset sums within half that
tolerance of 0 are set to 0 here, so that exact ties (theta-hat are fractions of r) land the end
exactly on 0 when the test says so, and 0 lies outside the interval exactly when p <= alpha.

Computation: up to m = 20 all 2^m subset means are enumerated (about 20 MB). For 20 < m <= 30 the
ends are found by bisection on the same exact p-values, with delta = 0 used as a bracket point
(decided by the test itself), so the agreement at 0 still holds and the ends are within ``tol``.
Beyond that p comes from a fixed set of random sign vectors (seeded, so the interval is
reproducible; ``exact`` is False): the ends are then Monte Carlo approximations. Whatever m, the
interval is bracketed at delta = 0 by the two-sided test's own verdict (the exact test up to m = 40,
beyond that the Monte Carlo test with the same ``seed`` and ``n_resamples``), so 0 lies outside the
interval exactly when that test's p-value is <= alpha: for 30 < m <= 40 the ends are approximate but
the agreement with the exact test is not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from survey.errors import SurveyError
from survey.stats.permutation import count_ge, sign_flip_test, tie_tolerance

_ORDER_STATISTICS_MAX_M = 20  # 2^20 subset means: ~20 MB, a fraction of a second
_EXACT_CI_MAX_M = 30  # about 45 exact p-values per end: a few ms each up to here


@dataclass
class EffectResult:
    estimate: float
    ci: tuple[float, float]
    confidence: float
    method: str
    exact: bool = True  # False: the p-values inverted are Monte Carlo estimates
    # The sign convention: T = mean over pairs of theta(A) - theta(B), Helm & Priebe's statistic, so a
    # positive T favours A (while the Beta-logit delta is B over A: a positive delta gives a negative T).
    direction: str = "A - B"

    def to_dict(self) -> dict:
        return {"estimate": self.estimate, "ci": list(self.ci), "confidence": self.confidence,
                "method": self.method, "exact": self.exact, "direction": self.direction}


def effect_ci(d, confidence: float = 0.95, n_resamples: int = 9999, seed=0,
              bounds: tuple[float, float] = (-np.inf, np.inf), tol: float = 1e-6) -> EffectResult:
    """Estimate and (1 - alpha) interval of mean(d) by sign-flip test inversion.

    ``bounds`` clips the interval to the possible range (for differences of proportions, [-1, 1]);
    when too few perturbations exist for any delta to be rejected, the interval is the bounds.
    ``tol`` is the precision of the ends found by bisection (20 < m); the ends are exact below.
    """
    if not 0 < confidence < 1:
        raise SurveyError(f"confidence must be between 0 and 1; got {confidence}")
    d = np.asarray(d, dtype=float)
    d = d[~np.isnan(d)]
    m = len(d)
    if m == 0:
        raise SurveyError("an effect interval needs at least one paired perturbation")
    alpha = 1 - confidence
    # On the 1e-12 grid of the differences: a zero effect prints as 0, not as summation noise (1.7e-18).
    est = round(float(d.sum() / m), 12)
    if m <= _ORDER_STATISTICS_MAX_M:
        lo, hi = _subset_mean_interval(d, alpha, bounds)
        method, exact = "sign-flip inversion (exact)", True
    else:
        lo, hi, method, exact = _bisection_interval(d, alpha, bounds, n_resamples, seed, tol)
    lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    return EffectResult(est, (float(lo), float(hi)), confidence, method, exact)


# The two tails of the subset means of the last vector enumerated: (d's bytes, q smallest, q largest). A second
# interval of the same d at a lower alpha (a segment's simultaneous interval right after its own) is read from
# them instead of enumerating the 2^m subsets again; a tuple is replaced whole, so threads read a consistent one.
_LAST_TAILS: tuple = (b"", np.empty(0), np.empty(0))


def _subset_mean_interval(d: np.ndarray, alpha: float, bounds) -> tuple[float, float]:
    """[q-th smallest, q-th largest] mean of the non-empty proper subsets of d (module docstring)."""
    global _LAST_TAILS
    m = len(d)
    q = math.floor(alpha * 2 ** (m - 1))
    if q == 0:
        return bounds
    key, low, high = _LAST_TAILS
    if key == d.tobytes() and q <= len(low):  # the q-th smallest lies among the len(low) smallest, likewise above
        return float(np.partition(low, q - 1)[q - 1]), float(np.partition(high, len(high) - q)[len(high) - q])
    means = _subset_means(d)
    ends = np.partition(means, (q - 1, len(means) - q))
    _LAST_TAILS = (d.tobytes(), ends[:q].copy(), ends[len(means) - q:].copy())
    return float(ends[q - 1]), float(ends[len(means) - q])


def _subset_means(d: np.ndarray) -> np.ndarray:
    """The means of the 2^m - 2 non-empty proper subsets of d (sums within the test's tie tolerance of 0 are 0)."""
    sums, sizes = np.zeros(1), np.zeros(1, dtype=np.int8)
    for x in d:  # inclusion order: index 0 is the empty set, the last index the full set
        sums = np.concatenate((sums, sums + x))
        sizes = np.concatenate((sizes, sizes + 1))
    sums, sizes = sums[1:-1], sizes[1:-1]
    sums[np.abs(sums) <= tie_tolerance(d) / 2] = 0.0  # the test's ties at delta = 0
    return sums / sizes


def _bisection_interval(d: np.ndarray, alpha: float, bounds, n_resamples: int, seed, tol: float):
    m = len(d)
    total = d.sum()
    if m <= _EXACT_CI_MAX_M:
        method, exact = "sign-flip inversion (exact)", True

        def pvalue(delta: float) -> float:
            # sign_flip_test's two-sided count: 2 #{S >= |obs|} by the symmetry of the null
            x = d - delta
            gamma = 1e-9 * float(np.abs(x).sum())
            c = abs(float(x.sum())) - gamma
            return 1.0 if c <= 0 else min(2 * count_ge(x, c, enumerate_max_m=16), 2 ** m) / 2.0 ** m
    else:
        rng = np.random.default_rng(seed)
        signs = (rng.integers(0, 2, size=(int(n_resamples), m)) * 2 - 1).astype(float)
        s1, s2 = signs @ d, signs.sum(axis=1)
        method, exact = f"sign-flip inversion ({n_resamples} random flips)", False
        scale = float(np.abs(d).sum()) + m

        def pvalue(delta: float) -> float:
            obs = total - m * delta
            null = s1 - delta * s2
            gamma = 1e-9 * (scale + m * abs(delta))
            return (np.count_nonzero(np.abs(null) >= abs(obs) - gamma) + 1) / (n_resamples + 1.0)

    est = round(float(total / m), 12)
    spread = float(np.max(np.abs(d - est))) + 1e-12
    # The test's own two-sided verdict at 0 (exact up to m = 40, else its Monte Carlo p with the same flips
    # and seed) brackets the end that crosses 0, so that 0 is outside the interval iff p <= alpha.
    zero_accepted = sign_flip_test(d, n_resamples=n_resamples, seed=seed).pvalue > alpha

    def edge(direction: float) -> float:
        inside, outside = est, est + direction * spread * 1.000001
        if pvalue(outside) > alpha:  # nothing beyond the data is rejected: the interval is unbounded
            return bounds[1] if direction > 0 else bounds[0]
        if min(inside, outside) < 0 < max(inside, outside):
            # the test's own verdict at 0 brackets the end, so 0 is in the interval iff p > alpha
            inside, outside = (0.0, outside) if zero_accepted else (inside, 0.0)
        while abs(outside - inside) > tol:
            mid = (inside + outside) / 2
            if pvalue(mid) > alpha:
                inside = mid
            else:
                outside = mid
        return inside

    return edge(-1.0), edge(1.0), method, exact
