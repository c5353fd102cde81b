"""Ranking the k messages shown together by simulation: size and power of the pairwise Borda tests and of the
position-bias test.

Plackett–Luce rankings from survey.kinds.rank.simulation (shared paraphrase effects rho, a position bias beta per
position, a persona pull tau towards the first position): 40 personas x 12 paraphrase sets x r = 3 per
arrangement, k = 3 messages, sigma = 1, each set asked in the 3 rows of a cyclic Latin square on a random message
order (survey.study.design.latin_rows).

* size of the pairwise test (messages 1 vs 2, unadjusted): delta = (0, 0, 1.5), a third message far better, under
  a position bias beta = (0.8, 0, -0.3) and tau = 0.5;
* family-wise error of Holm over the 3 pairs: no message differs, under the same position bias (at most alpha);
* size of the position test: beta = 0, tau = 0, under message effects delta = (0.5, 0, -0.5);
* power: pairwise at delta = (0.4, 0, 0) (the right sign: message 1 ranked higher), position at beta = (0.1, 0, 0).

Each cell: SURVEYS simulated surveys (default 2000); ± one Monte Carlo standard error sqrt(p (1 - p) / SURVEYS);
the 99% binomial interval of a size-0.05 test is printed. Pairwise p-values enumerate the 2^12 sign vectors; the
position test's use 499 random permutations of the arrangements within each set. Last line: the CPU seconds the
whole table took (load average printed before it).

    python bench/rank.py [SURVEYS]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from survey.kinds.ordinal.direction_sim import binomial_interval
from survey.kinds.rank.simulation import rejection_rates

N, M, R, K = 40, 12, 3, 3
BIAS = dict(positions=[0.8, 0.0, -0.3], tau=0.5)
NULL_PAIR = dict(deltas=[0.0, 0.0, 1.5], **BIAS)
NULL_ALL = dict(deltas=[0.0, 0.0, 0.0], **BIAS)
NULL_POSITION = dict(deltas=[0.5, 0.0, -0.5])
POWER_PAIR = dict(deltas=[0.4, 0.0, 0.0])
POWER_POSITION = dict(positions=[0.1, 0.0, 0.0])


def mc(p: float, s: int) -> str:
    return f"{p:.4f} ± {np.sqrt(p * (1 - p) / s):.4f}"


def main() -> None:
    surveys = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    start = time.process_time()
    lo, hi = binomial_interval(0.05, surveys)
    print(f"ranking of {K}: {N} personas x {M} sets x r = {R}, sigma = 1; {surveys} surveys per cell; "
          f"99% binomial interval of a size-0.05 test: [{lo:.4f}, {hi:.4f}]")
    print("| rho | pairwise size | Holm family-wise error | position size | pairwise power (right / wrong sign) "
          "| position power |")
    print("|---|---|---|---|---|---|")
    for i, rho in enumerate((0.0, 0.3, 0.6)):
        kw = dict(rho=rho, sigma=1.0, n_resamples=499)
        size_pair = rejection_rates(surveys, N, M, R, K, seed=10 + i, **NULL_PAIR, **kw)
        size_all = rejection_rates(surveys, N, M, R, K, seed=50 + i, **NULL_ALL, **kw)
        size_pos = rejection_rates(surveys, N, M, R, K, seed=20 + i, **NULL_POSITION, **kw)
        power_pair = rejection_rates(surveys, N, M, R, K, seed=30 + i, **POWER_PAIR, **kw)
        power_pos = rejection_rates(surveys, N, M, R, K, seed=40 + i, **POWER_POSITION, **kw)
        flags = ["" if lo <= x <= hi else " (outside)" for x in (size_pair["pair"], size_pos["position"])]
        fwer = "" if size_all["holm_any"] <= hi else " (above)"
        print(f"| {rho} | {mc(size_pair['pair'], surveys)}{flags[0]} | {mc(size_all['holm_any'], surveys)}{fwer} | "
              f"{mc(size_pos['position'], surveys)}{flags[1]} | "
              f"{mc(power_pair['pair_greater'], surveys)} / {power_pair['pair_less']:.4f} | "
              f"{mc(power_pos['position'], surveys)} |")
    print(f"load average {os.getloadavg()[0]:.2f} at the end; CPU seconds of the whole table")
    print(f"seconds: {time.process_time() - start:.1f}")


if __name__ == "__main__":
    main()
