"""CPU time of a segment analysis against the same number of separate `analyze` calls (the baseline).

`survey.analyze(df, by="segment")` over K segments runs, per segment, the kind's comparison (its test and its
interval) plus the simultaneous interval, then the interaction test and the pooled comparison; the baseline
is K calls `survey.analyze(df[segment == s])`, one per segment, each with its test and interval. Same table,
same run, equal repeats, alternating the two; CPU time (time.process_time), median of the repeats.

Run: python bench/segment_speed.py [--segments 10] [--personas 10] [--pairs 20] [--repeats 5]. The last line
is `ratio: X` = median CPU of the segment analysis / median CPU of the K separate calls.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import survey
from survey.stats.segments.simulation import SimSegment, segment_table, simulate_segment_cells


def cpu_seconds(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--segments", type=int, default=10)
    ap.add_argument("--personas", type=int, default=30, help="personas per segment")
    ap.add_argument("--pairs", type=int, default=20, help="paraphrase pairs m")
    ap.add_argument("--replicates", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    segs = [SimSegment(f"s{k:02d}", args.personas, delta=0.3 * (k % 3 - 1)) for k in range(args.segments)]
    df = segment_table(simulate_segment_cells(segs, args.pairs, args.replicates, rho=0.3, seed=1))
    parts = [df[df["segment"] == s.name] for s in segs]

    def by_segment():
        return survey.analyze(df, "A", "B", by="segment")

    def separate():
        return [survey.analyze(part, "A", "B") for part in parts]

    by_segment(), separate()  # warm-up: imports and caches
    seg_times, sep_times = [], []
    for _ in range(args.repeats):
        seg_times.append(cpu_seconds(by_segment))
        sep_times.append(cpu_seconds(separate))
    seg, sep = statistics.median(seg_times), statistics.median(sep_times)
    load = os.getloadavg()[0]
    print(f"{args.segments} segments x {args.personas} personas, m = {args.pairs} pairs, r = {args.replicates}; "
          f"{args.repeats} repeats each, load average {load:.1f}")
    print(f"segment analysis (by='segment'):   median CPU {seg:.3f} s (min {min(seg_times):.3f}, max {max(seg_times):.3f})")
    print(f"{args.segments} separate analyze calls: median CPU {sep:.3f} s (min {min(sep_times):.3f}, "
          f"max {max(sep_times):.3f})")
    print(f"ratio: {seg / sep:.2f}")


if __name__ == "__main__":
    main()
