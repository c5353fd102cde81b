"""The command line's floor: CPU seconds of `survey --help`, a command's --help and two user errors, against
`python -c pass` (the interpreter's own start) measured in the same run.

Also printed, for scale: importing what every command used to import eagerly (survey.stats, pandas and the
Study facade), which was the floor before the commands imported their statistics lazily.
Each case is run ``--repeat`` times in a fresh interpreter; the median child CPU (user + system) is shown.
The last line is the median CPU seconds of `survey --help`.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cpu_of(argv: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    py = sys.executable
    survey = [py, "-m", "survey"]
    cases = {
        "python -c pass (baseline)": [py, "-c", "pass"],
        "survey --help": [*survey, "--help"],
        "survey analyze --help": [*survey, "analyze", "--help"],
        "survey run --help": [*survey, "run", "--help"],
        "survey analyze --bogus (bad flag)": [*survey, "analyze", "--bogus"],
        "survey analyze missing.csv (missing file)": [*survey, "analyze", "/nonexistent/missing.csv"],
        "import survey.stats, pandas, Study (the old floor)":
            [py, "-c", "import survey.stats, pandas, survey.api.study"],
    }
    medians = {}
    for name, argv in cases.items():
        times = [cpu_of(argv) for _ in range(args.repeat)]
        medians[name] = statistics.median(times)
        print(f"{name:52s} median {medians[name]:.3f} s CPU (min {min(times):.3f}, max {max(times):.3f})")
    base = medians["python -c pass (baseline)"]
    print(f"survey --help above the interpreter's start: {medians['survey --help'] - base:.3f} s; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"seconds: {medians['survey --help']:.3f}")


if __name__ == "__main__":
    main()
