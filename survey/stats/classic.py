"""Per-persona tests on D_i = mean_j theta_ij^A - mean_j theta_ij^B: the sign and Wilcoxon tests.

Both assume the D_i are independent across personas. A perturbation shift shared by every
persona (rho > 0) breaks that, so both are oversized in real surveys; they are kept for
comparison with the literature and to show that failure (Helm & Priebe 2026).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from survey.errors import SurveyError
from survey.stats.permutation import check_alternative


@dataclass
class TestResult:
    statistic: float
    pvalue: float
    n: int  # observations used (non-zero differences for the sign test)
    alternative: str
    name: str

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "pvalue": self.pvalue, "n": self.n,
                "alternative": self.alternative}


def _clean(d) -> np.ndarray:
    d = np.asarray(d, dtype=float)
    return d[~np.isnan(d)]


def sign_test(d, alternative: str = "two-sided") -> TestResult:
    """Binomial test on the number of positive D_i, ties (D_i = 0) dropped.

    statistic = number of positive differences; equals scipy.stats.binomtest(k, n, 0.5).
    """
    check_alternative(alternative)
    d = _clean(d)
    nz = d[d != 0]
    if len(nz) == 0:
        return TestResult(0.0, 1.0, 0, alternative, "sign")
    k = int((nz > 0).sum())
    p = stats.binomtest(k, len(nz), 0.5, alternative=alternative).pvalue
    return TestResult(float(k), float(p), len(nz), alternative, "sign")


def wilcoxon_test(d, alternative: str = "two-sided") -> TestResult:
    """Wilcoxon signed-rank test on the D_i: scipy.stats.wilcoxon with its defaults (zeros dropped)."""
    check_alternative(alternative)
    d = _clean(d)
    if len(d) == 0:
        raise SurveyError("the Wilcoxon test needs at least one persona difference")
    if np.all(d == 0):
        return TestResult(0.0, 1.0, 0, alternative, "wilcoxon")
    res = stats.wilcoxon(d, alternative=alternative)
    return TestResult(float(res.statistic), float(res.pvalue), int((d != 0).sum()), alternative,
                      "wilcoxon")
