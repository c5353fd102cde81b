"""Null rejection rates of the A/B tests on rating-scale answers from the ordinal model (survey.kinds.ordinal.model):
K = 5, delta = 0, tau = sigma = 1, n = 50, m = 10, r = 5, at rho = 0, 0.3, 0.6; tests on the mean score per
cell (sign flips over paraphrase pairs, sign and Wilcoxon over personas) and the sign-flip test on the
top-2-box share. Prints a markdown table with 99% Clopper-Pearson intervals (docs/ordinal-model.md).

    python bench/ordinal_validity.py [--datasets 10000]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from scipy import stats

from survey.kinds.ordinal.model import make_ordinal_params, score_sums, simulate_category_counts
from survey.stats.ab_tests import batched_pvalues

N, M, R, ALPHA = 50, 10, 5, 0.05


def rate(pvalues) -> str:
    k, s = int((pvalues <= ALPHA).sum()), len(pvalues)
    ci = stats.binomtest(k, s).proportion_ci(0.99, method="exact")
    return f"{k / s:.3f} [{ci.low:.3f}, {ci.high:.3f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    t0 = time.process_time()
    print(f"Null rejection rate at alpha = {ALPHA} [99% Clopper-Pearson], {args.datasets} surveys per row; "
          f"the exact sign-flip test's attainable size at m = {M} is {50 / 1024:.4f}\n")
    print("| rho | sign-flip (mean score) | sign | Wilcoxon | sign-flip (top-2-box) |\n|---|---|---|---|---|")
    for rho in (0.0, 0.3, 0.6):
        params = make_ordinal_params(points=5, tau=1.0, sigma=1.0, rho=rho)
        ca, cb = simulate_category_counts(params, N, M, M, R, np.random.default_rng([args.seed, int(rho * 10)]),
                                          size=(args.datasets,))
        diff = (score_sums(params, ca) - score_sums(params, cb)).astype(float)
        top2 = (ca[..., -2:].sum(-1) - cb[..., -2:].sum(-1)).astype(float)
        pv = batched_pvalues({"pairs": (diff.sum(1),), "personas": (diff.sum(2),)}, ("sign_flip", "sign", "wilcoxon"),
                             exact_max_m=M)
        top = batched_pvalues({"pairs": (top2.sum(1),)}, ("sign_flip",), exact_max_m=M)["sign_flip"]
        print(f"| {rho:g} | {rate(pv['sign_flip'])} | {rate(pv['sign'])} | {rate(pv['wilcoxon'])} | {rate(top)} |")
    print()
    print(f"load average {os.getloadavg()[0]:.2f} at the end; CPU seconds of the whole table")
    print(f"seconds: {time.process_time() - t0:.1f}")  # the bench convention: CPU seconds last


if __name__ == "__main__":
    main()
