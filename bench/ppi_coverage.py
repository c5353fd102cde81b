"""Coverage and width of prediction-powered intervals for people, with simulated humans and models of known truth
(survey.stats.ppi_simulation): five models (unbiased, biased in level, attenuated, reversed effect,
uninformative), the human mean of A and the within-subjects human effect A - B. Per setting: coverage of the
95% PPI++ interval, of the humans-only interval and of an interval from the personas alone (each +- its Monte
Carlo s.e.), and the width of the PPI interval relative to the humans-only one: as reported (mean s.e. ratio),
as achieved (ratio of the estimates' s.d.s) and in theory (Broska, Howes & van Loon: sqrt(1 - r^2 N/(n + N)),
at the best lambda in [0, 1]). Then, per number of humans n (per arm), the coverage of the mean, the within- and
the between-subjects effect, unweighted and weighted (humans over-representing half the population three to
one), lowest to highest over the five models: survey's default interval (small-sample divisors, t quantile)
beside the reference arithmetic of ppi_py (divisors n and N, normal quantile) and the humans alone. Prints
markdown tables (docs/humans.md).

    python bench/ppi_coverage.py [--datasets 10000] [--humans 100] [--personas 1000]
                                 [--sizes 30,50,75,100,200] [--small-datasets 4000] [--small-personas 300]
"""

from __future__ import annotations

import argparse
import os
import time

from survey.stats.ppi_simulation import SETTINGS, TARGETS, coverage, small_sample_coverage


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=int, default=10000, help="datasets per setting (default 10000)")
    ap.add_argument("--humans", type=int, default=100, help="humans n per dataset (default 100)")
    ap.add_argument("--personas", type=int, default=1000, help="personas N per dataset (default 1000)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--sizes", default="30,50,75,100,200", help="numbers of humans (per arm) for the small-n table")
    ap.add_argument("--small-datasets", type=int, default=4000, help="datasets per model and size (default 4000)")
    ap.add_argument("--small-personas", type=int, default=300, help="personas N in the small-n table (default 300)")
    args = ap.parse_args()
    t0 = time.process_time()
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
    small_table([int(x) for x in args.sizes.split(",")], args.small_datasets, args.small_personas, args.seed)
    print()
    print(f"load average {os.getloadavg()[0]:.2f} at the end; CPU seconds of the whole table")
    print(f"seconds: {time.process_time() - t0:.1f}")  # the bench convention: CPU seconds last


def small_table(sizes, datasets, big_n, seed) -> None:
    """Coverage by number of humans: lowest-highest over the five models, per target and weighting."""
    print(f"{datasets} datasets per model and size, N = {big_n} personas, 95% intervals (Monte Carlo s.e. "
          f"{(0.95 * 0.05 / datasets) ** 0.5:.4f}); lowest-highest over the five models")
    print()
    print("| n | target | weighted | survey | ppi_py arithmetic | humans alone |")
    print("|---|---|---|---|---|---|")
    for n in sizes:
        runs = {v: [small_sample_coverage(s, n, big_n, datasets, seed=seed + i, variance=v)
                    for i, s in enumerate(SETTINGS)] for v in ("linearised", "ppi_py")}
        for weighted in (False, True):
            for target in TARGETS:
                spans = [_span([r[(target, weighted)][what] for r in runs[variance]])
                         for variance, what in (("linearised", "ppi"), ("ppi_py", "ppi"), ("linearised", "humans"))]
                print(f"| {n} | {target} | {'yes' if weighted else 'no'} | {' | '.join(spans)} |", flush=True)


def _span(values) -> str:
    return f"{min(values):.3f}-{max(values):.3f}"


if __name__ == "__main__":
    main()
