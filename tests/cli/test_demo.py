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
    # four personas cannot fill the demo's age groups and gender margins: its [segments] and [target] are
    # dropped here (tests/cli/test_cli_segments.py checks them on the full demo study)
    demo = demo[:demo.index("[segments]")] + demo[demo.index("[[messages]]"):]
    small = (demo.replace('store = "reports/demo/store.sqlite"', 'store = "store.sqlite"')
             .replace("count = 24", "count = 4").replace("count = 8", "count = 3").replace("replicates = 5", "replicates = 2"))
    assert small.count("count = 3") == 2 and "count = 4" in small  # the demo file's shape is what we think
    assert 'store = "store.sqlite"' in small
    study = tmp_path / "demo-small.toml"
    study.write_text(small)
    out = tmp_path / "report"
    cmd = [sys.executable, "-m", "survey", "demo", "--study", str(study), "--out", str(out), "--json"]
    first = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert first.returncode == 0, first.stderr
    results = json.loads(first.stdout)["results"]
    assert sorted(r["model"] for r in results) == ["gemma3-270m", "smollm2-135m"]  # two embedded models
    for res in results:
        assert res["n_personas"] == 4 and res["n_perturbations"] == {"sneakers": 3, "boots": 3}
        assert res["replicates"] == 2
    html = (out / "index.html").read_text()
    assert html.count("data:image/png;base64,") >= 4
    table = (out / "table.csv").read_text().splitlines()
    assert len(table) == 1 + 2 * 4 * 3 * 2 * 2
    assert "p_yes" in table[0]
    saved = json.loads((out / "results.json").read_text())
    assert saved["results"][0]["tests"]["permutation"]["exact"]
    # The across-model section: each model's effect and p-value, direction, heterogeneity, Cohen's kappa.
    across = saved["across_models"]
    assert {m["model"] for m in across["models"]["models"]} == {"gemma3-270m", "smollm2-135m"}
    assert all("sign_flip" in m["pvalues"] and "estimate" in m["effect"] for m in across["models"]["models"])
    assert across["models"]["heterogeneity"]["n_models"] == 2 and "conflict" in across["models"]["direction"]
    pair = across["agreement"]["pairs"][0]
    assert pair["n_cells"] == 4 * 6 and -1 <= pair["kappa"] <= 1
    for text in ("Across models: sneakers vs boots", "Heterogeneity test", "Cohen"):
        assert text in html
    # Second run: everything is stored, nothing is sent (no "collecting" line), same results.
    again = subprocess.run(cmd[:-1], capture_output=True, text=True, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    assert "collecting" not in again.stderr and "report written to" in again.stdout
    assert "across models:" in again.stdout and "Cohen's κ" in again.stdout


def test_demo_says_what_its_results_rest_on(tmp_path, capsys):
    # The demo's summary printed effects with no word on the study or its completeness.
    import shutil

    from cli_result import run_cli

    shutil.copy(ROOT / "studies" / "sim.toml", tmp_path / "sim.toml")
    code, out, _ = run_cli(capsys, "demo", "--study", tmp_path / "sim.toml", "--out", tmp_path / "r")
    assert code == 0 and "study 'sim-sneakers-boots'" in out and "expected queries stored (100%)" in out
    code, out, _ = run_cli(capsys, "demo", "--study", tmp_path / "sim.toml", "--out", tmp_path / "r", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["study"] == "sim-sneakers-boots" and doc["completeness"]["complete"] is True


def test_likert_study_end_to_end_on_the_embedded_model(tmp_path):
    """`survey demo --study likert` at test size: exact mode on five labels, mean scores, top-2-box, the report."""
    shipped = (ROOT / "studies" / "likert.toml").read_text()
    small = (shipped.replace('store = "reports/likert/store.sqlite"', 'store = "store.sqlite"')
             .replace("count = 16", "count = 3").replace("count = 8", "count = 3").replace("replicates = 5", "replicates = 2"))
    assert small.count("count = 3") == 3 and 'type = "likert"' in small and 'mode = "exact"' in small
    assert 'store = "store.sqlite"' in small
    study = tmp_path / "likert-small.toml"
    study.write_text(small)
    out = tmp_path / "report"
    cmd = [sys.executable, "-m", "survey", "demo", "--study", str(study), "--out", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "mean score(sneakers) - mean score(boots) on likert5" in done.stdout
    assert "top-2-box (4/5)" in done.stdout
    saved = json.loads((out / "results.json").read_text())
    res = saved["results"][0]
    assert res["scale"] == "likert5" and res["n_personas"] == 3 and res["replicates"] == 2
    assert -4 <= res["effect"]["estimate"] <= 4 and res["top_box"]["points"] == [4, 5]
    import pandas as pd

    table = pd.read_csv(out / "table.csv")
    assert len(table) == 3 * 2 * 3 * 2 and set(table["scale"]) == {"likert5"}
    assert table["answer"].isin(range(1, 6)).all()  # exact mode draws labels: every reply is valid
    dists = table["distribution"].map(json.loads)
    assert all(abs(sum(d.values()) - 1) < 1e-9 for d in dists)
    expected = dists.map(lambda d: sum(int(k) * v for k, v in d.items()))
    assert (expected - table["expected"]).abs().max() < 1e-9
    means = table.groupby("message")["answer"].mean()
    assert res["effect"]["estimate"] == pytest.approx(means["sneakers"] - means["boots"])
    html = (out / "index.html").read_text()
    assert html.count("data:image/png;base64,") >= 2 and "top-2-box" in html.lower()


def test_a_shipped_study_by_name(capsys):
    from cli_result import run_cli

    from survey.cli.demo import find_study

    assert find_study("likert") == ROOT / "studies" / "likert.toml"
    code, _, err = run_cli(capsys, "demo", "--study", "nope")
    shipped = ", ".join(sorted(p.stem for p in (ROOT / "studies").glob("*.toml")))
    assert code == 2 and f"the shipped studies are {shipped}" in err
