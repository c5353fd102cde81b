"""What the weighted population effect's interval covers when personas' effects differ within a cell.

The sign-flip interval flips paraphrase pairs and holds the personas fixed, so it is about these personas: their
effects weighted to the target's margins. That is the target population's effect only when each persona stands
for its cell (the same effect within a cell, as in bench/segments.py). Here two segments of 30 and 10 personas
(Yes/No, latent effects -0.6 and +0.6 on average, target shares 0.4 / 0.6, rho 0.3, m = 10 pairs, r = 5) have
persona-specific effects drawn around their segment's with s.d. SD; each of PANELS panels of personas is drawn
from the population and surveyed SURVEYS times. "These personas": the panel's weighted effect (each persona's
expected effect from 1 000 further surveys of it); "the population": the mean of that over the panels.

    python bench/segment_estimand.py [--panels 80] [--surveys 25] [--sd 0,0.5,1,2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from survey.stats.effect import effect_ci
from survey.stats.segments.simulation import SimSegment, simulate_segment_cells

SIZES, MEANS, SHARES = (30, 10), (-0.6, 0.6), (0.4, 0.6)


def coverage(sd: float, panels: int, surveys: int, seed: int = 5, truth_surveys: int = 1000) -> tuple[float, float, float]:
    """(coverage of these personas' weighted effect, of the population's, the population's effect)."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(panels):
        segs, w = [], []
        for s, (n, mean, share) in enumerate(zip(SIZES, MEANS, SHARES, strict=True)):
            for i in range(n):
                segs.append(SimSegment(f"s{s}p{i}", 1, float(mean + sd * rng.standard_normal()), 0.0))
                w.append(share / (n / sum(SIZES)))  # post-stratification weights to the target's shares
        w = np.array(w)
        cells = simulate_segment_cells(segs, 10, 5, scale="binary", rho=0.3, surveys=surveys, seed=100 + k)
        d = cells.pair_differences(weights=w)[:, 0, :]
        big = simulate_segment_cells([SimSegment(s.name, 40, s.delta, s.level) for s in segs], 1, 5, scale="binary",
                                     rho=0.3, surveys=truth_surveys, seed=10_000 + k)
        these = float(np.dot(w / w.sum(), big.pair_differences().mean(axis=(0, 2))))
        rows.append((these, [effect_ci(row, confidence=0.95, n_resamples=999, seed=0, bounds=(-1, 1)).ci
                             for row in d]))
    population = float(np.mean([t for t, _ in rows]))
    cover_these = float(np.mean([lo <= t <= hi for t, cis in rows for lo, hi in cis]))
    cover_population = float(np.mean([lo <= population <= hi for _, cis in rows for lo, hi in cis]))
    return cover_these, cover_population, population


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--panels", type=int, default=80)
    ap.add_argument("--surveys", type=int, default=25, help="surveys per panel")
    ap.add_argument("--sd", default="0,0.5,1,2", help="s.d.s of the persona-specific effects (latent scale)")
    args = ap.parse_args()
    start = time.process_time()
    print(f"{args.panels} panels x {args.surveys} surveys, 95% intervals")
    print()
    print("| persona effect s.d. | covers these personas' weighted effect | covers the population's effect |")
    print("|---|---|---|")
    for sd in (float(x) for x in args.sd.split(",")):
        these, population, _ = coverage(sd, args.panels, args.surveys)
        print(f"| {sd:g} | {these:.3f} | {population:.3f} |", flush=True)
    print()
    print(f"seconds: {time.process_time() - start:.1f}")  # CPU seconds


if __name__ == "__main__":
    main()
