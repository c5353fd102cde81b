"""Confidence interval for the effect T = mean_j d_j by inverting the sign-flip test.

Why inversion and not a bootstrap: the interval is then exactly as valid as the test under the
same model (it respects the clustering by perturbation because its unit is the perturbation
pair), and it agrees with the test: 0 lies outside the (1 - alpha) interval exactly when the
two-sided sign-flip p-value at delta = 0 is <= alpha (up to bisection precision).

The interval is {delta : p(d - delta) > alpha}. Its ends are found by bisection. For m <= 30, p is
the exact two-sided p-value of survey.stats.permutation.sign_flip_test (the same count over all 2^m
sign vectors, with the same tie tolerance; meet in the middle above m = 16), so interval and test
agree exactly. Beyond that p comes from a fixed set of random sign vectors (seeded, so the interval
is reproducible); for 30 < m <= 40, where the test itself is still exact, the two can then disagree
when the p-value is within Monte Carlo error of alpha.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from survey.errors import SurveyError
from survey.stats.permutation import _count_ge

_EXACT_CI_MAX_M = 30  # about 45 exact p-values per end: a few ms each up to here


@dataclass
class EffectResult:
    estimate: float
    ci: tuple[float, float]
    confidence: float
    method: str

    def to_dict(self) -> dict:
        return {"estimate": self.estimate, "ci": list(self.ci), "confidence": self.confidence,
                "method": self.method}


def effect_ci(d, confidence: float = 0.95, n_resamples: int = 9999, seed=0,
              bounds: tuple[float, float] = (-np.inf, np.inf), tol: float = 1e-6) -> EffectResult:
    """Estimate and (1 - alpha) interval of mean(d) by sign-flip test inversion.

    ``bounds`` clips the interval to the possible range (for differences of proportions, [-1, 1]);
    when too few perturbations exist for any delta to be rejected, the interval is the bounds.
    """
    if not 0 < confidence < 1:
        raise SurveyError(f"confidence must be between 0 and 1; got {confidence}")
    d = np.asarray(d, dtype=float)
    d = d[~np.isnan(d)]
    m = len(d)
    if m == 0:
        raise SurveyError("an effect interval needs at least one paired perturbation")
    alpha = 1 - confidence
    total = d.sum()
    if m <= _EXACT_CI_MAX_M:
        method = "sign-flip inversion (exact)"

        def pvalue(delta: float) -> float:
            # sign_flip_test's two-sided count: 2 #{S >= |obs|} by the symmetry of the null
            x = d - delta
            gamma = 1e-9 * float(np.abs(x).sum())
            c = abs(float(x.sum())) - gamma
            return 1.0 if c <= 0 else min(2 * _count_ge(x, c, enumerate_max_m=16), 2 ** m) / 2.0 ** m
    else:
        rng = np.random.default_rng(seed)
        signs = (rng.integers(0, 2, size=(int(n_resamples), m)) * 2 - 1).astype(float)
        s1, s2 = signs @ d, signs.sum(axis=1)
        method = f"sign-flip inversion ({n_resamples} random flips)"
        scale = float(np.abs(d).sum()) + m

        def pvalue(delta: float) -> float:
            obs = total - m * delta
            null = s1 - delta * s2
            gamma = 1e-9 * (scale + m * abs(delta))
            return (np.count_nonzero(np.abs(null) >= abs(obs) - gamma) + 1) / (n_resamples + 1.0)

    est = float(total / m)
    spread = float(np.max(np.abs(d - est))) + 1e-12

    def edge(direction: float) -> float:
        inside, outside = est, est + direction * spread * 1.000001
        if pvalue(outside) > alpha:  # nothing beyond the data is rejected: the interval is unbounded
            return bounds[1] if direction > 0 else bounds[0]
        while abs(outside - inside) > tol:
            mid = (inside + outside) / 2
            if pvalue(mid) > alpha:
                inside = mid
            else:
                outside = mid
        return inside

    lo, hi = edge(-1.0), edge(1.0)
    lo, hi = max(lo, bounds[0]), min(hi, bounds[1])
    return EffectResult(est, (float(lo), float(hi)), confidence, method)
