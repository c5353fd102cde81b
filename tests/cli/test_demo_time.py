"""bench/demo_time.py, which the README's likert-demo figure comes from, runs a shipped study from an empty
folder, reports CPU and wall seconds with the load average, and ends with `seconds: X`; the README states
that measured figure, not the old "about 1½ minutes" (a new user's run took 134 s of CPU)."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_demo_timing_script_measures_a_shipped_study(tmp_path):
    # the simulated study: the same command line path as the likert demo, in seconds, without the model
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, ROOT / "bench" / "demo_time.py", "--study", "sim", "--repeat", "1"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert re.fullmatch(r"run 1 \(sim\): [\d.]+ s CPU, [\d.]+ s wall; load average before .+, after .+", lines[1])
    assert re.fullmatch(r"seconds: \d+\.\d", lines[-1]) and float(lines[-1].split()[1]) > 0
    assert list(tmp_path.iterdir()) == []  # each run worked in its own temporary folder


def test_the_readme_states_the_measured_likert_demo_time():
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    start = text.index("Rating scales too: `survey demo --study likert`")
    claim = text[start:start + 800]
    assert "1½" not in claim and "bench/demo_time.py" in claim and "s of CPU" in claim
    assert "| `bench/demo_time.py` |" in (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
