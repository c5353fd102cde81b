"""Coverage and width of prediction-powered intervals for people, with simulated humans and models of known truth
(survey.stats.ppi_simulation): five models (unbiased, biased in level, attenuated, reversed effect,
uninformative), the human mean of A and the within-subjects human effect A - B. Per setting: coverage of the
95% PPI++ interval, of the humans-only interval and of an interval from the personas alone (each +- its Monte
Carlo s.e.), and the width of the PPI interval relative to the humans-only one: as reported (mean s.e. ratio),
as achieved (ratio of the estimates' s.d.s) and in theory (Broska, Howes & van Loon: sqrt(1 - r^2 N/(n + N)),
at the best lambda in [0, 1]). Prints a markdown table (docs/humans.md).

    python bench/ppi_coverage.py [--datasets 10000] [--humans 100] [--personas 1000]
"""

from __future__ import annotations

import argparse
import time

from survey.stats.ppi_simulation import SETTINGS, coverage


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=int, default=10000, help="datasets per setting (default 10000)")
    ap.add_argument("--humans", type=int, default=100, help="humans n per dataset (default 100)")
    ap.add_argument("--personas", type=int, default=1000, help="personas N per dataset (default 1000)")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    t0 = time.time()
    print(f"{args.datasets} datasets per setting, n = {args.humans} humans, N = {args.personas} personas, "
          f"95% intervals (coverage +- Monte Carlo s.e.)")
    print()
    print("| model | target | r | mean lambda | PPI coverage | humans-only | personas-only | "
          "width ratio reported | achieved | theory |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for i, setting in enumerate(SETTINGS):
        rows = coverage(setting, datasets=args.datasets, n=args.humans, big_n=args.personas, seed=args.seed + i)
        for target, row in rows.items():
            cov = {k: f"{row[k]:.3f} +- {row[k + '_mc']:.3f}" for k in ("ppi", "humans", "personas")}
            print(f"| {setting} | {target} | {row['r']:+.2f} | {row['lam_mean']:.2f} | {cov['ppi']} | "
                  f"{cov['humans']} | {cov['personas']} | {row['width_ratio']:.4f} +- {row['width_ratio_mc']:.4f} | "
                  f"{row['sd_ratio']:.3f} +- {row['sd_ratio_mc']:.3f} | {row['width_ratio_theory']:.4f} |")
    print()
    print(f"seconds: {time.time() - t0:.1f}")  # the bench convention: the last line is the wall time


if __name__ == "__main__":
    main()
