"""Several Yes/No questions per study, one message pair, analysed as one family (survey.stats.family): the size and
the power by simulation with known truth (survey.stats.planning.family: the Beta-logit model per question, persona
levels correlated c = 0.5 across questions, the paraphrase shift shared by every persona and question with share
rho). Design n = 40 personas, m = 12 paraphrase pairs, r = 3 replicates; 4 questions; alpha = q = 0.05.

Size over STUDIES null studies per rho: Holm's family-wise rejection rate, the primary question's size at alpha
alone, the family-wise rate of primary + gated secondaries, beside the 99% binomial band of alpha; BH's false
discovery rate with two true effects (delta = -1) among four. Power: each question's effect delta, the rejection
rate of one question without adjustment, after Holm over 4, after the primary's gate, and all four found.

    python bench/family.py [--studies 2000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

from survey.stats.beta_logit import make_params
from survey.stats.family import adjust
from survey.stats.planning.family import family_rates, question_pvalues

N, M, R, K, ALPHA = 40, 12, 3, 4, 0.05


def pvalues(rho: float, deltas, studies: int, seed: int) -> np.ndarray:
    return question_pvalues(make_params(rho=rho), deltas, N, M, R, studies, np.random.default_rng(seed), 0.5)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--studies", type=int, default=2000)
    studies = ap.parse_args().studies
    start = time.process_time()
    low, high = (stats.binom.ppf(q, studies, ALPHA) / studies for q in (0.005, 0.995))
    print(f"{studies} simulated studies per row; 99% binomial band of alpha = {ALPHA}: [{low:.4f}, {high:.4f}]")
    print("rho  Holm FWER  primary size  primary+gated FWER  BH FDR (2 of 4 true)")
    for rho in (0.0, 0.5):
        null = pvalues(rho, [0.0] * K, studies, 30)
        holm, gated = family_rates(null, ALPHA, "holm"), family_rates(null, ALPHA, "holm", primary=True)
        mixed = pvalues(rho, [0.0, 0.0, -1.0, -1.0], studies, 31)
        rejected = np.array([adjust(row, "bh") for row in mixed]) <= ALPHA
        fdr = float((rejected[:, :2].sum(axis=1) / np.maximum(rejected.sum(axis=1), 1)).mean())
        print(f"{rho:<4} {holm['any']:<10.4f} {gated['adjusted'][0]:<13.4f} {gated['any']:<19.4f} {fdr:.4f}")
    print("\npower per question (rho 0.3), delta = logit shift of B over A on every question")
    print("delta  unadjusted  Holm over 4  gated secondary  all 4 (Holm)  primary")
    for delta in (-0.4, -0.6, -0.8):
        p = pvalues(0.3, [delta] * K, studies, 40)
        flat, gated = family_rates(p, ALPHA, "holm"), family_rates(p, ALPHA, "holm", primary=True)
        every = float(np.all(np.array([adjust(row, "holm") for row in p]) <= ALPHA, axis=1).mean())
        print(f"{delta:<6} {np.mean(flat['raw']):<11.3f} {np.mean(flat['adjusted']):<12.3f} "
              f"{np.mean(gated['adjusted'][1:]):<16.3f} {every:<13.3f} {gated['adjusted'][0]:.3f}")
    print(f"seconds: {time.process_time() - start:.1f}")


if __name__ == "__main__":
    main()
