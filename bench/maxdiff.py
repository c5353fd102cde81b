"""Best-worst scaling by simulation: size and power of the pairwise test over paraphrase sets.

The simulator of survey.kinds.maxdiff.simulation (shared paraphrase effects rho, a position shift beta per position
for naming best and worst): 40 personas x 12 paraphrase sets x r = 3 per block, v = 4 messages in subsets of
s = 3 (the four blocks of a cyclic design on a random message order per set: all four triples), sigma = 1.

* size (messages 1 vs 2): delta = (0, 0, 2, -1), the other two far from them, with beta = (1.5, 0, -0.5);
* power: delta = (0.4, 0, 0, 0) (the right sign: message 1 scores higher).

Each cell: SURVEYS simulated surveys (default 2000); ± one Monte Carlo standard error; the 99% binomial
interval of a size-0.05 test is printed. Last line: the CPU seconds the whole table took (load average printed before it).

    python bench/maxdiff.py [SURVEYS]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

from survey.kinds.maxdiff.simulation import rejection_rates
from survey.kinds.ordinal.direction_sim import binomial_interval

N, M, R, V, S = 40, 12, 3, 4, 3


def mc(p: float, s: int) -> str:
    return f"{p:.4f} ± {np.sqrt(p * (1 - p) / s):.4f}"


def main() -> None:
    surveys = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    start = time.process_time()
    lo, hi = binomial_interval(0.05, surveys)
    print(f"best-worst, {V} messages in subsets of {S}: {N} personas x {M} sets x r = {R}; {surveys} surveys per cell; "
          f"99% binomial interval of a size-0.05 test: [{lo:.4f}, {hi:.4f}]")
    print("| rho | pairwise size | pairwise power, right sign (wrong sign) |")
    print("|---|---|---|")
    for i, rho in enumerate((0.0, 0.3, 0.6)):
        size = rejection_rates(surveys, N, M, R, V, S, rho=rho, deltas=[0, 0, 2.0, -1.0], positions=[1.5, 0, -0.5],
                               seed=10 + i)
        power = rejection_rates(surveys, N, M, R, V, S, rho=rho, deltas=[0.4, 0, 0, 0], seed=20 + i)
        flag = "" if lo <= size["pair"] <= hi else " (outside)"
        print(f"| {rho} | {mc(size['pair'], surveys)}{flag} | {mc(power['pair_greater'], surveys)} "
              f"({power['pair_less']:.4f}) |")
    print(f"load average {os.getloadavg()[0]:.2f} at the end; CPU seconds of the whole table")
    print(f"seconds: {time.process_time() - start:.1f}")


if __name__ == "__main__":
    main()
