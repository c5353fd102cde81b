"""Numeric and checkbox questions by simulation: size in the 99% binomial band of alpha = 0.05 with a shared
paraphrase shift (rho in {0, 0.3, 0.6}), and power.

The models are the kinds' own (survey.kinds.numeric.power, survey.kinds.checkbox.power), the ones the simulated
backend answers from: a cell's latent location eta_i + delta + u_j + v_ij (tau = 1, sigma = 1, u_j the share
rho every persona shares); a number low + (high - low) expit(location + e), e ~ N(0, 0.5^2); option i ticked
with probability expit(location + c_i), c_i from +1 to -1, ticks fitted to [min_choices, max_choices].

* numeric: the sign-flip test on persona x paraphrase cell means of the values, of log(1 + value) and winsorized
  at the pooled 5th/95th percentiles (numeric0to300, numeric0to300_log, numeric0to300_trimmed);
* checkbox: every option's sign-flip test, its ties broken at random with a seeded U (a share moves in steps of
  1/(n r), so the observed sum ties with many flipped sums; counting the ties as extreme made the size 0.026-0.047),
  which makes each option's size exactly alpha; and the decision, the smallest Holm-adjusted p over the options
  (family-wise size: at most alpha, Holm is conservative when the options' tests are correlated, as they are
  here through the shared location), on checkbox4 and checkbox6-0-3.

Design for size: 20 personas x 10 paraphrase pairs x r = 2 (exact sign flips, 1024 sign vectors). Power: B over A
by delta (logit units) at rho = 0.3, designs 20x10x2 and 40x20x2 (1000 random sign flips). Each cell SURVEYS
studies (default 2000). Last line: the CPU seconds the whole table took.

    python bench/numeric_checkbox.py [SURVEYS]
"""

from __future__ import annotations

import sys
import time

import numpy as np

from survey.kinds.checkbox.power import CheckboxPlan
from survey.kinds.numeric.power import NumericPlan
from survey.kinds.ordinal.direction_sim import binomial_interval
from survey.stats.multiplicity import holm_rows

ALPHA = 0.05
SIZE_DESIGN = (20, 10, 2)
POWER_DESIGNS = ((20, 10, 2), (40, 20, 2))
DELTAS = (0.25, 0.5, 1.0)


def rate(p: np.ndarray) -> float:
    return float(np.mean(p <= ALPHA))


def main() -> None:
    surveys = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    start = time.process_time()
    lo, hi = binomial_interval(ALPHA, surveys)
    n, m, r = SIZE_DESIGN
    print(f"size at alpha = {ALPHA}: {n} personas x {m} paraphrase pairs x r = {r}, {surveys} studies a cell; "
          f"99% binomial band [{lo:.4f}, {hi:.4f}]")
    print("| test | rho = 0 | rho = 0.3 | rho = 0.6 |")
    print("|---|---|---|---|")
    for seed, scale in enumerate(("numeric0to300", "numeric0to300_log", "numeric0to300_trimmed")):
        cells = [rate(NumericPlan(0.0, scale, rho=rho).pvalues(n, m, r, surveys, np.random.default_rng([seed, i]))
                      ["sign_flip"]) for i, rho in enumerate((0.0, 0.3, 0.6))]
        print(f"| {scale} (cell means) | " + " | ".join(f"{x:.4f}{'' if lo <= x <= hi else ' (outside)'}"
                                                        for x in cells) + " |")
    for seed, scale in enumerate(("checkbox4", "checkbox6-0-3"), start=10):
        per_option, fwer = [], []
        for i, rho in enumerate((0.0, 0.3, 0.6)):
            raw = CheckboxPlan(0.0, scale, rho=rho).option_pvalues(n, m, r, surveys, np.random.default_rng([seed, i]))
            per_option.append([rate(raw[:, k]) for k in range(raw.shape[1])])
            fwer.append(rate(holm_rows(raw).min(axis=1)))
        for k, cells in enumerate(zip(*per_option, strict=True), start=1):
            print(f"| {scale}, option {k} (sign-flip, ties at random) | " + " | ".join(
                f"{x:.4f}{'' if lo <= x <= hi else ' (outside)'}" for x in cells) + " |")
        print(f"| {scale}, decision (smallest Holm p) | " + " | ".join(
            f"{x:.4f}{'' if x <= hi else ' (above)'}" for x in fwer) + " |")
    print()
    print(f"power at alpha = {ALPHA}, rho = 0.3, {surveys} studies a cell (B over A by delta on the latent scale)")
    print("| scale | design | " + " | ".join(f"delta = {d}" for d in DELTAS) + " |")
    print("|---|---|" + "---|" * len(DELTAS))
    for scale, plan in (("numeric0to300", NumericPlan), ("numeric0to300_log", NumericPlan),
                        ("checkbox4", CheckboxPlan), ("checkbox6-0-3", CheckboxPlan)):
        for design in POWER_DESIGNS:
            cells = [rate(plan(d, scale).pvalues(*design, surveys, np.random.default_rng([len(scale), *design, j]))
                          ["sign_flip"]) for j, d in enumerate(DELTAS)]
            print(f"| {scale} | {'x'.join(map(str, design))} | " + " | ".join(f"{x:.3f}" for x in cells) + " |")
    print(f"seconds: {time.process_time() - start:.1f}")


if __name__ == "__main__":
    main()
