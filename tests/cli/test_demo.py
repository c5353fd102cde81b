"""The main job at test size: a real survey on the embedded model, analysed, reported; rerun reuses the store."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("llama_cpp")

ROOT = Path(__file__).resolve().parents[2]


def test_demo_study_end_to_end(tmp_path):
    demo = (ROOT / "studies" / "demo.toml").read_text()
    small = (demo.replace('store = "../reports/demo/store.sqlite"', 'store = "store.sqlite"')
             .replace("count = 24", "count = 4").replace("count = 8", "count = 3").replace("replicates = 5", "replicates = 2"))
    assert small.count("count = 3") == 2 and "count = 4" in small  # the demo file's shape is what we think
    study = tmp_path / "demo-small.toml"
    study.write_text(small)
    out = tmp_path / "report"
    cmd = [sys.executable, "-m", "survey", "demo", "--study", str(study), "--out", str(out), "--json"]
    first = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert first.returncode == 0, first.stderr
    res = json.loads(first.stdout)["results"][0]
    assert res["n_personas"] == 4 and res["n_perturbations"] == {"sneakers": 3, "boots": 3}
    assert res["replicates"] == 2
    html = (out / "index.html").read_text()
    assert html.count("data:image/png;base64,") >= 3
    table = (out / "table.csv").read_text().splitlines()
    assert len(table) == 1 + 4 * 3 * 2 * 2
    assert "p_yes" in table[0]
    assert json.loads((out / "results.json").read_text())["results"][0]["tests"]["permutation"]["exact"]
    # Second run: everything is stored, nothing is sent (no "collecting" line), same results.
    again = subprocess.run(cmd[:-1], capture_output=True, text=True, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    assert "collecting" not in again.stderr and "report written to" in again.stdout
