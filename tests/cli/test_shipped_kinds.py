"""The shipped studies of balanced scales and semantic-similarity rating run offline on the simulated backend
through the command line: run, analyze (text and --json), report."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from fakes.embedder import WordHashEmbedder  # a fast stand-in for MiniLM

from survey.cli import main
from survey.collect import similarity_rating

ROOT = Path(__file__).resolve().parents[2]


def cli(capsys, *argv) -> str:
    try:
        main(list(argv))
    except SystemExit as exc:
        assert exc.code in (0, None), capsys.readouterr()
    return capsys.readouterr().out


def shipped(tmp_path: Path, name: str) -> Path:
    (tmp_path / "studies").mkdir()
    path = tmp_path / "studies" / f"{name}.toml"
    shutil.copy(ROOT / "studies" / f"{name}.toml", path)
    path.write_text(path.read_text().replace("count = 20", "count = 6").replace("count = 12", "count = 6"))
    return path


def test_the_balanced_study(tmp_path, capsys):
    study = shipped(tmp_path, "balanced")
    assert "reversed question" in cli(capsys, "run", str(study), "--dry-run")
    cli(capsys, "run", str(study), "--yes")
    store = str(tmp_path / "studies" / "reports" / "balanced" / "store.sqlite")
    assert "direction effect (scale shown forward − reversed" in cli(capsys, "analyze", store)
    doc = json.loads(cli(capsys, "analyze", store, "--json"))
    assert doc["results"][0]["direction"]["effect"]["estimate"] > 0  # the study's model acquiesces
    cli(capsys, "report", store, "--out", str(tmp_path / "rep"))
    assert "Direction of the scale" in (tmp_path / "rep" / "index.html").read_text()


def test_the_ssr_study(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(similarity_rating, "create_embedder", lambda name: WordHashEmbedder())
    study = shipped(tmp_path, "ssr")
    cli(capsys, "run", str(study), "--yes")
    store = str(tmp_path / "studies" / "reports" / "ssr" / "store.sqlite")
    out = cli(capsys, "analyze", store)
    assert "on the ssr5 scale" in out and "top-2-box" in out
    cli(capsys, "report", store, "--out", str(tmp_path / "rep"))
    assert "free-text answer" in (tmp_path / "rep" / "index.html").read_text()


def test_the_pick_study(tmp_path, capsys):
    study = shipped(tmp_path, "pick")
    dry = cli(capsys, "run", str(study), "--dry-run")
    assert "Option 3:" in dry and "pick3" in dry
    cli(capsys, "run", str(study), "--yes")
    store = str(tmp_path / "studies" / "reports" / "pick" / "store.sqlite")
    out = cli(capsys, "analyze", store)  # three messages, none named: the study's own analysis, no error
    assert out.count("share chosen (positions averaged), 95% CI") == 1 and out.count("position test p") == 1
    assert cli(capsys, "analyze", store, "--every-pair") == out  # the same, the shares table once
    (k3,) = json.loads(cli(capsys, "analyze", store, "--json"))["message_sets"]
    assert k3["k"] == 3 and len(k3["levels"]["levels"]) == 3 and len(k3["pairs"]) == 3  # k(k-1)/2 rows
    assert all({"pvalue_adjusted", "simultaneous_ci", "effect"} <= set(p) for p in k3["pairs"])
    doc = json.loads(cli(capsys, "analyze", store, "--a", "sneakers", "--b", "sandals", "--json"))
    r = doc["results"][0]
    assert r["scale"] == "pick3" and r["effect"]["estimate"] > 0  # the study's model prefers sneakers
    assert r["position"]["shares"][0] > 1 / 3 and r["pair"]["pvalue"] >= r["pair"]["raw_pvalue"]
    exact = json.loads(cli(capsys, "analyze", store, "--a", "sneakers", "--b", "sandals", "--json", "--probabilities"))
    assert exact["results"][0]["effect"]["estimate"] > 0
    cli(capsys, "report", store, "--out", str(tmp_path / "rep"))
    page = (tmp_path / "rep" / "index.html").read_text()
    assert "Pick one of 3" in page and "Holm" in page


def test_the_maxdiff_study(tmp_path, capsys):
    study = shipped(tmp_path, "maxdiff")
    assert "the best first, then the worst" in cli(capsys, "run", str(study), "--dry-run")
    cli(capsys, "run", str(study), "--yes")
    store = str(tmp_path / "studies" / "reports" / "maxdiff" / "store.sqlite")
    out = cli(capsys, "analyze", store)  # four messages, none named: the study's own analysis, no error
    assert out.count("best-minus-worst score, 95% CI") == 1 and "every pair" in out
    assert cli(capsys, "analyze", store, "--every-pair") == out
    (k4,) = json.loads(cli(capsys, "analyze", store, "--json"))["message_sets"]
    assert k4["k"] == 4 and len(k4["levels"]["levels"]) == 4 and len(k4["pairs"]) == 6  # k(k-1)/2 rows
    doc = json.loads(cli(capsys, "analyze", store, "--a", "sneakers", "--b", "sandals", "--json"))
    r = doc["results"][0]
    assert r["scale"] == "maxdiff3" and r["scores"]["sneakers"]["score"] > r["scores"]["sandals"]["score"]
    cli(capsys, "report", store, "--out", str(tmp_path / "rep"))
    assert "Best-worst scaling" in (tmp_path / "rep" / "index.html").read_text()
