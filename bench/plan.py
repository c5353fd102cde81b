"""Benchmark of `survey plan`'s power simulation.

Grid: the 8 default strategies x 4 parameter settings x the 10 default budgets x 1000 simulated
surveys, each with the sign-flip permutation test (exact for m <= 12, else 1000 random flips), the
sign test and the Wilcoxon test. Goal: under 60 s on 2 cores.

Baseline (same run): a straightforward loop, one simulated survey at a time (binomial counts from
survey.stats.beta_logit.simulate_counts without batching) calling scipy.stats.permutation_test (sign flips,
1000 resamples; exact when 2^m <= 1000), scipy.stats.binomtest and scipy.stats.wilcoxon. Running it
for the whole grid would take hours, so it runs ``--baseline-sims`` surveys per design on every
design of the grid and is scaled to 1000; the per-survey cost does not depend on how many run.

Usage: .venv/bin/python bench/plan.py [--simulations 1000] [--baseline-sims 5]
Both sides are timed in CPU seconds (time.process_time, every thread). Last line: ``ratio: X`` (baseline CPU
seconds scaled to the same number of surveys / vectorised CPU seconds, goal >= 50).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
from scipy import stats

from survey.stats.beta_logit import make_params, simulate_counts
from survey.stats.planning.power import DEFAULT_BUDGETS, DEFAULT_STRATEGIES, designs_for, estimate_power

# Four settings spanning a low/high perturbation s.d. and a low/high shared share
# (as in Helm & Priebe 2026, section 4.5).
SETTINGS = [dict(mu=0.5, kappa=4.0, sigma=s, rho=r, delta=0.4) for s in (0.5, 1.0) for r in (0.1, 0.5)]


def baseline(params, design, sims: int, rng) -> dict:
    rej = {"permutation": 0, "sign": 0, "wilcoxon": 0}
    for _ in range(sims):
        ya, yb = simulate_counts(params, design.n, design.m, design.m, design.r, rng)
        ta, tb = ya / design.r, yb / design.r
        d_pert = (ta - tb).mean(axis=0)
        d_pers = ta.mean(axis=1) - tb.mean(axis=1)
        p = stats.permutation_test((d_pert,), np.mean, permutation_type="samples", n_resamples=1000,
                                   vectorized=True, rng=rng).pvalue
        rej["permutation"] += p <= 0.05
        nz = d_pers[d_pers != 0]
        p = stats.binomtest(int((nz > 0).sum()), len(nz)).pvalue if len(nz) else 1.0
        rej["sign"] += p <= 0.05
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = stats.wilcoxon(d_pers).pvalue if len(nz) else 1.0
        rej["wilcoxon"] += p <= 0.05
    return rej


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--simulations", type=int, default=1000)
    ap.add_argument("--baseline-sims", type=int, default=5)
    args = ap.parse_args()
    designs = designs_for(DEFAULT_STRATEGIES, DEFAULT_BUDGETS)
    n_designs = len(designs) * len(SETTINGS)
    print(f"grid: {len(DEFAULT_STRATEGIES)} strategies x {len(SETTINGS)} settings x {len(DEFAULT_BUDGETS)} budgets "
          f"= {n_designs} designs x {args.simulations} simulations; cores visible: {os.cpu_count()}, "
          f"load average: {os.getloadavg()[0]:.2f}")

    t0 = time.perf_counter()
    cpu0 = time.process_time()
    for i, s in enumerate(SETTINGS):
        res = estimate_power(make_params(**s), designs, simulations=args.simulations, seed=i)
        at = [r for r in res if r.design.budget == 2000]
        best = max(at, key=lambda r: r.power["permutation"])
        print(f"  setting {s}: best at N=2000 is {best.design.strategy} "
              f"(n={best.design.n}, m={best.design.m}, r={best.design.r}), power {best.power['permutation']:.3f}")
    fast = time.perf_counter() - t0
    fast_cpu = time.process_time() - cpu0
    print(f"vectorised: {fast:.1f} s wall ({fast_cpu:.1f} s CPU) for the full grid (goal < 60 s)")

    rng = np.random.default_rng(0)
    t0 = time.process_time()
    for s in SETTINGS:
        params = make_params(**s)
        for d in designs:
            baseline(params, d, args.baseline_sims, rng)
    measured = time.process_time() - t0
    slow = measured * args.simulations / args.baseline_sims
    print(f"baseline: {measured:.1f} s CPU for {args.baseline_sims} simulations per design -> "
          f"{slow:.0f} s CPU estimated for {args.simulations} (scipy per survey); load average "
          f"{os.getloadavg()[0]:.2f}")
    print(f"ratio: {slow / fast_cpu:.1f}")


if __name__ == "__main__":
    main()
