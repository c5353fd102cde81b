"""Bias of the moment estimator (sigma-hat, rho-hat) of the Beta-logit model below the documented grid: n in
10, 20, 30 personas, m in 4, 6, 8, 10 paraphrases, sigma in 0.5, 1, 2, r in 2, 5, at mu = 0.5, kappa = 4,
rho = RHO (default 0.3; the note also holds the run at 0.6), with D simulated surveys per cell (default 400) and
the Monte Carlo standard error of each bias.

    python scripts/small_design_bias.py [D] [RHO]      # about 3.5 CPU minutes at D = 400

survey/stats/beta_logit_estimate.py SMALL_DESIGN_BIAS holds its result; docs/estimator-bias.md shows it.
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np

from survey.stats.beta_logit import make_params, simulate_counts
from survey.stats.beta_logit_estimate import moment_estimate


def main(datasets: int = 400, rho: float = 0.3) -> None:
    start = time.process_time()
    rng = np.random.default_rng(1)
    for n, m, sigma, r in itertools.product((10, 20, 30), (4, 6, 8, 10), (0.5, 1.0, 2.0), (2, 5)):
        params = make_params(mu=0.5, kappa=4.0, sigma=sigma, rho=rho)
        yes, _ = simulate_counts(params, n, m, 1, r, rng, size=(datasets,))
        est = np.array([[e.sigma, e.rho] for e in (moment_estimate(yes[d], np.full_like(yes[d], r))
                                                  for d in range(datasets))], float)
        est = est[np.isfinite(est).all(axis=1)]
        bias, se = est.mean(axis=0) - (sigma, rho), est.std(axis=0, ddof=1) / np.sqrt(len(est))
        print(f"{n} {m} {sigma} {r} sigma_bias {bias[0]:+.3f}±{se[0]:.3f} rho_bias {bias[1]:+.3f}±{se[1]:.3f} "
              f"finite {len(est) / datasets:.2f}", flush=True)
    print(f"seconds: {time.process_time() - start:.1f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400, float(sys.argv[2]) if len(sys.argv) > 2 else 0.3)
