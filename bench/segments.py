"""Segments shown by simulation (survey.stats.segments.validity): the size, power and coverage tables.

1. Size at rho = 0, 0.3, 0.6 for Yes/No, likert5 and forced choice (three segments of 20, 20 and 10 personas
   with different base rates, no effect): each per-segment sign-flip test and the interaction test, against
   their exact size on the same surveys (ties included) and its 99% binomial band; beside them the
   per-segment sign and Wilcoxon tests on personas.
2. The interaction under its wider, approximate null: two segments with different base rates and the SAME
   effect on the probability scale (delta of the second segment calibrated by simulation).
3. Power: opposite effects in two segments (pooled effect near 0): the interaction's power, and how often
   each segment's Holm-adjusted test rejects with the right sign.
4. Coverage of the weighted population effect's 95% interval (target shares 0.4 / 0.6, personas 30 / 10).

Run: python bench/segments.py [--surveys 2000]. The last line is `seconds: X` (CPU).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.special import expit

from survey.stats.multiplicity import adjust_pvalues
from survey.stats.permutation import sign_flip_pvalues
from survey.stats.segments.simulation import SimSegment, simulate_segment_cells
from survey.stats.segments.validity import binomial_band, population_coverage, rejection_rates

M, R, ALPHA = 10, 5, 0.05


def size_table(surveys: int) -> None:
    print(f"\n1. Size at alpha = {ALPHA}, m = {M} pairs, r = {R}, {surveys} null surveys a cell "
          "(rate [exact size on these surveys; 99% band])")
    segs = [SimSegment("a", 20, level=1.0), SimSegment("b", 20, level=-0.5), SimSegment("c", 10)]
    print(f"{'scale':8} {'rho':>4}  {'segment':8} {'sign-flip':>30} {'sign':>7} {'Wilcoxon':>9}")
    for scale in ("binary", "likert5", "choice"):
        for rho in (0.0, 0.3, 0.6):
            cells = simulate_segment_cells(segs, M, R, scale=scale, rho=rho, surveys=surveys, seed=2026)
            rates = rejection_rates(cells, ALPHA)
            for name, r in rates["segments"].items():
                lo, hi = binomial_band(r["sign_flip_size"], surveys)
                flag = "" if lo <= r["sign_flip"] <= hi else "  OUTSIDE"
                print(f"{scale:8} {rho:4.1f}  {name:8} {r['sign_flip']:.4f} [{r['sign_flip_size']:.4f}; "
                      f"{lo:.4f}-{hi:.4f}]{flag} {r['sign']:7.4f} {r['wilcoxon']:9.4f}")
            lo, hi = binomial_band(rates["interaction_size"], surveys)
            flag = "" if lo <= rates["interaction"] <= hi else "  OUTSIDE"
            print(f"{scale:8} {rho:4.1f}  {'interact':8} {rates['interaction']:.4f} [{rates['interaction_size']:.4f}; "
                  f"{lo:.4f}-{hi:.4f}]{flag}")


def _probability_effect(level: float, delta: float, n: int = 400_000, seed: int = 0) -> float:
    """E[P(Yes|A) - P(Yes|B)] of a Yes/No segment (mu 0.5, kappa 4, sigma 1), by simulation (common numbers);
    u + v is N(0, sigma^2) whatever rho, so the effect does not depend on rho."""
    rng = np.random.default_rng(seed)
    base = np.log(p := np.clip(rng.beta(2, 2, n), 1e-12, 1 - 1e-12)) - np.log1p(-p) + level
    shift_a, shift_b = rng.normal(0, 1, n), rng.normal(0, 1, n)  # u + v, total variance sigma^2 = 1
    return float(np.mean(expit(base + shift_a) - expit(base + delta + shift_b)))


def approximate_null(surveys: int) -> None:
    print("\n2. The interaction under equal effects on the probability scale (segments' base rates differ)")
    target = _probability_effect(1.0, 0.5)
    lo_d, hi_d = 0.0, 2.0
    for _ in range(40):  # bisection for the second segment's delta
        mid = (lo_d + hi_d) / 2
        lo_d, hi_d = (mid, hi_d) if _probability_effect(-0.5, mid) > target else (lo_d, mid)
    delta_b = (lo_d + hi_d) / 2
    print(f"segment a: level +1.0, delta 0.50; segment b: level -0.5, delta {delta_b:.3f}; both "
          f"P(Yes|A) - P(Yes|B) = {target:+.4f}")
    for rho in (0.0, 0.3, 0.6):
        segs = [SimSegment("a", 20, delta=0.5, level=1.0), SimSegment("b", 20, delta=delta_b, level=-0.5)]
        cells = simulate_segment_cells(segs, M, R, rho=rho, surveys=surveys, seed=7)
        rate = rejection_rates(cells, ALPHA)["interaction"]
        se = np.sqrt(rate * (1 - rate) / surveys)
        print(f"rho {rho:.1f}: interaction rejection rate {rate:.4f} +- {se:.4f} (nominal {ALPHA})")


def power_table(surveys: int) -> None:
    print(f"\n3. Opposite effects, two segments of 20 personas, m = {M}, r = {R}, {surveys} surveys a cell")
    print(f"{'delta':>5} {'rho':>4} {'interaction':>12} {'men right':>10} {'women right':>12} {'pooled':>7}")
    for delta in (0.25, 0.5, 1.0):
        for rho in (0.0, 0.3, 0.6):
            segs = [SimSegment("men", 20, delta=-delta, level=0.3), SimSegment("women", 20, delta=delta)]
            cells = simulate_segment_cells(segs, M, R, rho=rho, surveys=surveys, seed=5)
            d = cells.pair_differences()
            rates = rejection_rates(cells, ALPHA)
            p = np.stack([sign_flip_pvalues(d[:, k]) for k in range(2)], axis=1)
            adj = np.apply_along_axis(adjust_pvalues, 1, p)
            eff = d.mean(axis=2)
            right = [(adj[:, k] <= ALPHA) & (np.sign(eff[:, k]) == sign) for k, sign in ((0, 1), (1, -1))]
            pooled = np.mean(sign_flip_pvalues(d.mean(axis=1)) <= ALPHA)
            print(f"{delta:5.2f} {rho:4.1f} {rates['interaction']:12.3f} {right[0].mean():10.3f} "
                  f"{right[1].mean():12.3f} {pooled:7.3f}")


def coverage_table(surveys: int) -> None:
    print(f"\n4. Coverage of the target population's effect (95% interval, {surveys} surveys a cell)")
    segs = [SimSegment("a", 30, delta=-0.6, level=0.8), SimSegment("b", 10, delta=0.6)]
    for scale in ("binary", "choice"):
        for rho in (0.0, 0.3, 0.6):
            res = population_coverage(segs, [0.4, 0.6], M, 3, scale=scale, rho=rho, surveys=surveys, seed=3)
            se = np.sqrt(res["coverage"] * (1 - res["coverage"]) / surveys)
            print(f"{scale:7} rho {rho:.1f}: coverage {res['coverage']:.3f} +- {se:.3f}; true effect "
                  f"{res['truth']:+.4f} (+- {res['truth_se']:.4f}), mean estimate {res['mean_effect']:+.4f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--surveys", type=int, default=2000)
    args = ap.parse_args()
    start = time.process_time()
    size_table(args.surveys)
    approximate_null(args.surveys)
    power_table(args.surveys // 2)
    coverage_table(args.surveys // 2)
    print(f"seconds: {time.process_time() - start:.1f}")


if __name__ == "__main__":
    main()
