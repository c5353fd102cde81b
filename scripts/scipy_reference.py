"""Reference p-values from scipy for the tests whose scipy side is slow, computed once (about a minute).

    python scripts/scipy_reference.py > tests/fixtures/scipy_reference.json

- ``sign_flip``: scipy.stats.permutation_test's exact paired p-value at m = 20 (2^20 sign flips, ~10 s
  in scipy), for tests/stats/test_permutation.py;
- ``sign_wilcoxon``: scipy.stats.binomtest and scipy.stats.wilcoxon (its own sign-flip enumeration for
  ties or zeros, ~0.2 s a call) on rows of lengths 13 and 14 with ties, zeros and NaN, every
  alternative, for tests/stats/planning/test_power.py.

The inputs are stored rounded to 6 decimals (what scipy saw), NaN as null; the p-values are scipy's, at the
version recorded in the file. Rerun after a scipy upgrade that changes these methods.
"""

import json
import sys
import warnings

import numpy as np
import scipy
from scipy import stats

ALTS = ("two-sided", "greater", "less")
LENGTHS = (13, 14)


def rows(rng, length, kind, n):
    """The rows of test_power's batched-vs-scipy test: continuous, ties and zeros, ties without zeros."""
    if kind == "continuous":
        d = rng.normal(0.3, 1, (n, length)).round(6)
    elif kind == "ties":
        d = rng.integers(-3, 4, (n, length)).astype(float)
    else:
        d = rng.choice([-2.0, -1.0, 1.0, 2.0, 3.0], (n, length))
    d[rng.random(d.shape) < 0.05] = np.nan
    return d


def sign_p(d, alt):
    nz = d[~np.isnan(d)]
    nz = nz[nz != 0]
    return 1.0 if len(nz) == 0 else float(stats.binomtest(int((nz > 0).sum()), len(nz), 0.5, alternative=alt).pvalue)


def wilcoxon_p(d, alt):
    d = d[~np.isnan(d)]
    if np.all(d == 0):
        return 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(stats.wilcoxon(d, alternative=alt).pvalue)


def main() -> None:
    rng = np.random.default_rng(20)
    d = rng.normal(0.1, 0.3, 20).round(6)
    p = stats.permutation_test((d, np.zeros_like(d)), lambda a, b, axis: np.mean(a - b, axis=axis),
                               permutation_type="samples", n_resamples=np.inf, alternative="two-sided",
                               vectorized=True).pvalue
    out = {"scipy": scipy.__version__, "sign_flip": [{"d": d.tolist(), "alternative": "two-sided", "pvalue": p}],
           "sign_wilcoxon": []}
    for length in LENGTHS:
        rng = np.random.default_rng(length)
        for kind in ("continuous", "ties", "ties-no-zero"):
            for row in rows(rng, length, kind, 4):
                out["sign_wilcoxon"].append({
                    "length": length, "kind": kind, "d": [None if np.isnan(x) else float(x) for x in row],
                    "sign": {alt: sign_p(row, alt) for alt in ALTS},
                    "wilcoxon": {alt: wilcoxon_p(row, alt) for alt in ALTS}})
    json.dump(out, sys.stdout, indent=None)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
