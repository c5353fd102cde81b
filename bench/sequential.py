"""Sequential collection: validity at every stopping time and the queries it saves, by simulation.

Setup (the Beta-logit model of Helm & Priebe (2026), "When prompt perturbations break your A/B test: A
valid statistical test for generative surveying"): n = 50 personas, r = 5 replicates, mu 0.5, kappa 4,
sigma 1; up to 40 paraphrase pairs bought in rounds of 4.

1. Validity: delta = 0, rho in {0, 0.3, 0.6}, ``--null-runs`` surveys each: the rejection rate of the
   group-sequential sign-flip test (alpha spending, Lan & DeMets 1983) and of the betting test
   (Waudby-Smith & Ramdas, JRSS-B 2024), with and without futility, and of the mistake they prevent:
   the fixed sign-flip p-value tested after every round without correction.
2. Savings at rho 0.3: the delta where the fixed 40-pair design has 80% power (found by bisection),
   twice that delta, and delta = 0: each design's power and expected queries over the fixed design's.

Goals: power >= 0.78 and ratio <= 0.75 at the 80%-power delta; ratio <= 0.45 at twice it; ratio <= 0.6
at delta = 0 with futility.

Usage: .venv/bin/python bench/sequential.py [--null-runs 2000] [--runs 2000]
Last line: ``ratio: X``, the expected queries of the recommended rule (group-sequential, power:2 spending,
no futility) over the fixed design's at the 80%-power delta (lower is better).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from survey.stats.beta_logit import make_params
from survey.stats.sequential import make_design, run_rule
from survey.stats.sequential.simulation import (
    delta_for_power,
    naive_rejections,
    operating_characteristics,
    simulate_pair_differences,
)

N, R, PAIRS, ROUND, ALPHA = 50, 5, 40, 4, 0.05
RECOMMENDED = dict(spending="power:2")
DESIGNS = {
    "GS obrien-fleming": dict(spending="obrien-fleming"),
    "GS power:2": RECOMMENDED,
    "GS pocock": dict(spending="pocock"),
    "GS power:2 + futility 0.1 from 40%": dict(spending="power:2", futility=0.1, futility_from=0.4),
    "GS power:2 + futility 0.05 from 50%": dict(spending="power:2", futility=0.05, futility_from=0.5),
    # a maximum above the fixed design's 40 pairs buys back the power futility costs (ratios stay against 40)
    "GS power:2, max 46, futility 0.1 from 30%": dict(spending="power:2", max_pairs=46, futility=0.1,
                                                      futility_from=0.3),
    "betting agrapa": dict(method="betting"),
    "betting agrapa + futility 0.1 from 40%": dict(method="betting", futility=0.1, futility_from=0.4),
}


def validity(runs: int) -> None:
    print(f"validity: delta = 0, n = {N}, r = {R}, up to {PAIRS} pairs in rounds of {ROUND}, {runs} runs per rho; "
          f"Monte Carlo s.e. {np.sqrt(ALPHA * (1 - ALPHA) / runs):.4f}")
    print(f"{'rho':>4}  {'GS':>6}  {'GS+fut':>6}  {'bet':>6}  {'bet+fut':>7}  {'naive (uncorrected)':>19}")
    for rho in (0.0, 0.3, 0.6):
        D = simulate_pair_differences(make_params(rho=rho, delta=0.0), N, PAIRS, R, runs,
                                      np.random.default_rng(int(rho * 10) + 100))
        rates = []
        for method in ("group-sequential", "betting"):
            out = run_rule(D, make_design(method=method, round_pairs=ROUND, max_pairs=PAIRS, alpha=ALPHA,
                                          futility=0.1, futility_from=0.2), seed=1)
            rates += [(out.crossed >= 0).mean(), out.rejected.mean()]
        naive = naive_rejections(D, np.arange(ROUND, PAIRS + 1, ROUND), ALPHA, seed=2).mean()
        print(f"{rho:4.1f}  {rates[0]:6.4f}  {rates[1]:6.4f}  {rates[2]:6.4f}  {rates[3]:7.4f}  {naive:19.4f}")


def savings(runs: int) -> float:
    base = make_params(rho=0.3, delta=0.0)
    delta = delta_for_power(0.8, base, N, PAIRS, R, ALPHA, simulations=runs, seed=7)
    print(f"\nsavings at rho 0.3: the fixed design of {PAIRS} pairs ({2 * N * PAIRS * R} queries) has 80% power at "
          f"delta = {delta:.3f}; ratio = expected queries / fixed queries")
    print(f"{'design':42}  {'power@d':>7}  {'ratio@d':>7}  {'power@2d':>8}  {'ratio@2d':>8}  {'size@0':>6}  {'ratio@0':>7}")
    out = {}
    for name, kw in DESIGNS.items():
        design = make_design({"round_pairs": ROUND, "max_pairs": PAIRS, "alpha": ALPHA, **kw})
        row = []
        for i, d in enumerate((delta, 2 * delta, 0.0)):
            oc = operating_characteristics(design, base.model_copy(update={"delta": d}), N, R, runs, seed=11 + i)
            row += [oc.power, oc.expected_pairs / PAIRS]  # against the fixed design of PAIRS pairs
            if i == 0 and design.max_pairs == PAIRS:
                fixed = oc.fixed_power
        out[name] = row
        print(f"{name:42}  {row[0]:7.3f}  {row[1]:7.3f}  {row[2]:8.3f}  {row[3]:8.3f}  {row[4]:6.3f}  {row[5]:7.3f}")
    print(f"(fixed design power at delta on the same surveys: {fixed:.3f})")
    return out["GS power:2"][1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--null-runs", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=2000)
    args = ap.parse_args()
    t0 = time.process_time()
    validity(args.null_runs)
    ratio = savings(args.runs)
    print(f"\n{time.process_time() - t0:.0f} s CPU, load average {os.getloadavg()[0]:.2f}")
    print(f"ratio: {ratio:.3f}")


if __name__ == "__main__":
    main()
