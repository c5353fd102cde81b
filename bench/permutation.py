"""Exact sign-flip test vs scipy.stats.permutation_test (the baseline), on the same data, same run.

Both sides are timed alike (bench/timing.py): CPU time, the same number of repeats, the median of them.
Goals: >= 100x at m = 20 with an identical p-value; exact m = 40 in under 1 s.
The last line is the ratio at m = 20.
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats
from timing import load, median_cpu  # bench/timing.py, next to this file

from survey.stats import sign_flip_test


def scipy_exact(d):
    return stats.permutation_test((d, np.zeros_like(d)), lambda a, b, axis: np.mean(a - b, axis=axis),
                                  permutation_type="samples", n_resamples=np.inf, vectorized=True).pvalue


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="calls per side and size (the median is reported)")
    args = ap.parse_args()
    rng = np.random.default_rng(2026)
    ratio20 = None
    print(f"load average {load()} before; CPU seconds, median of {args.repeats} calls on each side")
    for m in (16, 20):
        d = rng.normal(0.05, 0.25, m)
        t_ours, ours = median_cpu(lambda d=d: sign_flip_test(d).pvalue, args.repeats)
        t_scipy, ref = median_cpu(lambda d=d: scipy_exact(d), args.repeats)
        same = ours == ref or abs(ours - ref) <= 1e-12 * ref
        ratio = t_scipy / t_ours
        print(f"m = {m}: survey {t_ours * 1e3:.2f} ms, scipy.stats.permutation_test {t_scipy * 1e3:.0f} ms, "
              f"ratio {ratio:.0f}x, p = {ours:.6g} (scipy {ref:.6g}, identical: {same})")
        if m == 20:
            ratio20 = ratio
    d40 = rng.normal(0.02, 0.25, 40)
    t40, res = median_cpu(lambda: sign_flip_test(d40), args.repeats)
    print(f"m = 40: exact ({res.method}) in {t40:.3f} s CPU, p = {res.pvalue:.6g} (goal < 1 s); load average "
          f"{load()} after")
    print(f"ratio: {ratio20:.1f}")


if __name__ == "__main__":
    main()
