"""Coverage of the humans-alone intervals at the smallest sizes (20 and 30 humans per arm), with known truth.

* Yes/No answers (a checkbox option ticked or not): the human effect A − B of survey.stats.humans (PPI with
  lambda = 0, a t interval), between subjects (two independent arms) and within (each human answers both, their
  answers correlated through a latent normal, correlation 0.5), at 95% and at the Bonferroni level of four options
  (1 − 0.05/4), beside Newcombe's hybrid score interval for a difference of proportions (Newcombe, "Interval
  estimation for the difference between independent proportions: comparison of eleven methods", Statistics in
  Medicine 1998, method 10), which never has zero width. "zero s.e." is the share of datasets in which every
  human of both arms gave the same answer pattern, where the t interval has zero width. "noted" is the share of
  datasets where fewer than RARE_ANSWER (5) humans gave a message's rarer answer, which survey's results say in a
  note; beside it the t interval's coverage within the noted datasets and within the others.
* Rankings: the humans' weighted mean rank (survey.kinds.rank.humans.weighted_mean_ci, cut to [1, k]) and the
  paired Borda difference, Thurstone rankings (utilities plus N(0, 1) noise), truth by 400 000 draws.

Each cell: REPS datasets (default 1000); ± one Monte Carlo s.e. is about 0.007 at 0.95. Last line: CPU seconds.

    python bench/small_human_coverage.py [REPS]
"""

from __future__ import annotations

import itertools
import sys
import time

import numpy as np
from scipy import stats

from survey.kinds.rank.humans import clipped_to, weighted_mean_ci
from survey.stats.humans.compare import RARE_ANSWER
from survey.stats.ppi import PPIArm, PPIOptions, ppi_between_effect, ppi_paired_effect


def wilson(x: int, n: int, z: float) -> tuple[float, float]:
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def newcombe(ya: np.ndarray, yb: np.ndarray, confidence: float) -> tuple[float, float]:
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    pa, pb = ya.mean(), yb.mean()
    la, ua = wilson(int(ya.sum()), len(ya), z)
    lb, ub = wilson(int(yb.sum()), len(yb), z)
    d = pa - pb
    return d - np.hypot(pa - la, ub - pb), d + np.hypot(ua - pa, pb - lb)


def binary_cell(rng, reps: int, n: int, pa: float, pb: float, design: str, confidence: float) -> tuple:
    alpha, hit_t, hit_n, zero = round(1 - confidence, 12), 0, 0, 0
    by_note = {True: [0, 0], False: [0, 0]}  # noted? -> [hits, datasets]
    qa, qb = stats.norm.ppf(pa), stats.norm.ppf(pb)
    for _ in range(reps):
        z1 = rng.normal(size=n)
        z2 = 0.5 * z1 + np.sqrt(0.75) * rng.normal(size=n) if design == "within" else rng.normal(size=n)
        ya, yb, o = (z1 < qa) * 1.0, (z2 < qb) * 1.0, np.zeros(n)
        opts = PPIOptions(alpha=alpha, lam=0.0)
        r = (ppi_paired_effect(ya, yb, o, o, o, o, options=opts) if design == "within" else
             ppi_between_effect(PPIArm(ya, o, o), PPIArm(yb, o, o), options=opts))
        hit = r.ci[0] <= pa - pb <= r.ci[1]
        hit_t += hit
        noted = min(min(y.sum(), n - y.sum()) for y in (ya, yb)) < RARE_ANSWER
        by_note[noted][0] += hit
        by_note[noted][1] += 1
        zero += r.se == 0
        lo, hi = newcombe(ya, yb, confidence)  # the independent-arms interval (for within: a reference only)
        hit_n += lo <= pa - pb <= hi
    within = {k: (h / m if m else float("nan")) for k, (h, m) in by_note.items()}
    return hit_t / reps, hit_n / reps, zero / reps, by_note[True][1] / reps, within[True], within[False]


def rank_cell(rng, reps: int, n: int, util: np.ndarray, weighted: bool) -> tuple:
    k = len(util)
    truth = ((-(util + rng.normal(size=(400_000, k)))).argsort(1).argsort(1) + 1).mean(axis=0)
    hit, hit_pair = np.zeros(k), {}
    for _ in range(reps):
        ranks = (-(util + rng.normal(size=(n, k)))).argsort(1).argsort(1) + 1
        w = rng.lognormal(0, 0.7, n) if weighted else np.ones(n)
        for m in range(k):
            _, (lo, hi) = clipped_to(weighted_mean_ci(ranks[:, m], w), 1, k)
            hit[m] += lo <= truth[m] <= hi
        for a, b in itertools.combinations(range(k), 2):
            _, (lo, hi) = weighted_mean_ci(ranks[:, b] - ranks[:, a], w)
            hit_pair[(a, b)] = hit_pair.get((a, b), 0) + (lo <= truth[b] - truth[a] <= hi)
    return hit / reps, min(hit_pair.values()) / reps, max(hit_pair.values()) / reps


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    start, rng = time.process_time(), np.random.default_rng(2026)
    print(f"Yes/No human effect A - B, {reps} datasets a cell: coverage of the t interval (survey) | Newcombe | "
          "share with zero s.e. | share noted (fewer than 5 of a message's rarer answer) | t coverage noted | not noted")
    print("| design | humans per arm | p_A | p_B | level | t interval | Newcombe | zero s.e. | noted | t noted | "
          "t not noted |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for design in ("between", "within"):
        for n in (20, 30):
            for pa, pb, conf in ((0.5, 0.5, 0.95), (0.3, 0.2, 0.95), (0.1, 0.1, 0.95), (0.95, 0.95, 0.95),
                                 (0.1, 0.05, 0.95), (0.15, 0.05, 0.95), (0.05, 0.02, 0.95), (0.05, 0.02, 1 - 0.05 / 4)):
                t, nc, z, noted, t_noted, t_rest = binary_cell(rng, reps, n, pa, pb, design, conf)
                print(f"| {design} | {n} | {pa} | {pb} | {conf:.4g} | {t:.3f} | {nc:.3f} | {z:.3f} | {noted:.2f} | "
                      f"{t_noted:.3f} | {t_rest:.3f} |", flush=True)
    print("\nRankings: coverage of the humans' mean rank (t interval cut to [1, k]) per message, and of the paired "
          "Borda differences (lowest, highest)")
    print("| k | humans | utilities | weighted | mean rank per message | pairs |")
    print("|---|---|---|---|---|---|")
    for k, n, util, weighted in ((3, 20, [0, 0.3, 1], False), (4, 20, [0, 0.2, 0.4, 2], False),
                                 (7, 20, [0, 0.5, 1, 1.5, 2, 2.5, 3], False), (4, 30, [0, 0.2, 0.4, 2], True),
                                 (5, 20, [0, 0, 0, 0, 3], False)):
        per, lo, hi = rank_cell(rng, reps, n, np.asarray(util, dtype=float), weighted)
        print(f"| {k} | {n} | {util} | {weighted} | {', '.join(f'{x:.3f}' for x in per)} | {lo:.3f}-{hi:.3f} |",
              flush=True)
    print(f"seconds: {time.process_time() - start:.1f}")


if __name__ == "__main__":
    main()
