"""Balanced scales by simulation: size and power of the A/B test and of the direction test.

The ordinal model with shared paraphrase effects (rho) and a direction bias b (survey.kinds.ordinal.direction_sim):
20 personas x 12 paraphrase pairs x r = 2 (one replicate per direction), likert5, sigma = 1.

* size of the A/B test: delta = 0 under a strong direction bias (b = 0.8);
* size of the direction test: b = 0 under a message effect (delta = 1.2);
* power: A/B at delta = 0.6 (B higher: the right sign is A - B < 0), direction at b = 0.15 (forward higher).

Each cell: SURVEYS simulated surveys; the Monte Carlo error of a rate p is sqrt(p (1 - p) / SURVEYS); the 99%
binomial interval of a size-0.05 test is printed beside. Last line: the CPU seconds the whole table took (load average printed before it).

    python bench/balanced_scales.py [SURVEYS]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from survey.kinds.ordinal.direction_sim import binomial_interval, rejection_rates
from survey.kinds.ordinal.model import make_ordinal_params

N, M, R = 20, 12, 2


def cell(rho: float, delta: float, bias: float, surveys: int, seed: int) -> dict:
    return rejection_rates(make_ordinal_params(points=5, sigma=1.0, rho=rho, delta=delta), N, M, R, bias=bias,
                           surveys=surveys, seed=seed)


def mc(p: float, s: int) -> str:
    return f"{p:.4f} ± {np.sqrt(p * (1 - p) / s):.4f}"


def main() -> None:
    surveys = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    start = time.process_time()
    lo, hi = binomial_interval(0.05, surveys)
    print(f"{N} personas x {M} pairs x r = {R} (one replicate per direction), likert5, sigma 1, {surveys} surveys "
          f"per cell; 99% binomial interval of 0.05: [{lo:.4f}, {hi:.4f}]")
    print(f"{'rho':>4}  {'A/B size (b=0.8)':>18}  {'direction size (delta=1.2)':>26}  "
          f"{'A/B power, A-B<0 (delta=0.6)':>28}  {'direction power, fwd>rev (b=0.15)':>33}")
    for k, rho in enumerate((0.0, 0.3, 0.6)):
        ab_null = cell(rho, 0.0, 0.8, surveys, 100 + k)["ab"]
        dir_null = cell(rho, 1.2, 0.0, surveys, 200 + k)["direction"]
        ab_alt = cell(rho, 0.6, 0.0, surveys, 300 + k)["ab"]
        dir_alt = cell(rho, 0.0, 0.15, surveys, 400 + k)["direction"]
        ab_power = f"{mc(ab_alt['negative'], surveys)} (wrong sign {ab_alt['positive']:.4f})"
        dir_power = f"{mc(dir_alt['positive'], surveys)} (wrong sign {dir_alt['negative']:.4f})"
        print(f"{rho:>4}  {mc(ab_null['rate'], surveys):>18}  {mc(dir_null['rate'], surveys):>26}  "
              f"{ab_power:>28}  {dir_power:>33}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end; CPU seconds of the whole table")
    print(f"seconds: {time.process_time() - start:.1f}")


if __name__ == "__main__":
    main()
