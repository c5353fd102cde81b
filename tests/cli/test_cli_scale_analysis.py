"""`survey analyze | estimate | validate` on rating scales and forced choice: --scale for a hand-made table
without a scale column (a bad name exits 2 naming the known scales), the effect in scale points, the
top-2-box, and for forced choice the preference, the position bias and its warning, in text and --json."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_result import run_cli

from survey.kinds.choice.model import choice_table, simulate_choice_counts
from survey.kinds.choice.table import compare_choice
from survey.stats.comparison import compare_messages
from survey.stats.simulation import simulate


@pytest.fixture(scope="module")
def likert_csv(tmp_path_factory):
    """A hand-made likert5 table: no scale column, so the CLI must be told."""
    df = simulate(12, 6, 3, scale="likert5", delta=0.8, seed=1)
    path = tmp_path_factory.mktemp("scales") / "likert.csv"
    df.drop(columns=["scale", "expected"]).to_csv(path, index=False)
    return path, df


@pytest.fixture(scope="module")
def choice_csv(tmp_path_factory):
    counts = simulate_choice_counts(15, 8, 3, np.random.default_rng(2), delta=0.8, position=0.8)
    df = choice_table(counts, 3)
    path = tmp_path_factory.mktemp("scales") / "choice.csv"
    df.to_csv(path, index=False)
    return path, df


def test_analyze_likert_json_in_scale_points(capsys, likert_csv):
    path, df = likert_csv
    code, out, err = run_cli(capsys, "analyze", path, "--scale", "likert5", "--json")
    assert code == 0, err
    doc = json.loads(out)
    (res,) = doc["results"]
    ref = compare_messages(df, "simulated", "A", "B").to_dict()
    assert doc["scale"] == res["scale"] == "likert5" and res["unit"] == "mean score (1–5)"
    assert res["effect"] == ref["effect"] and res["means"] == ref["means"]
    assert res["top_box"]["points"] == [4, 5] and res["top_box"] == ref["top_box"]
    assert res["tests"]["sign_flip"]["pvalue"] == ref["tests"]["sign_flip"]["pvalue"]


def test_analyze_likert_text(capsys, likert_csv):
    path, df = likert_csv
    code, out, _ = run_cli(capsys, "analyze", path, "--scale", "likert5")
    ref = compare_messages(df, "simulated", "A", "B")
    assert code == 0
    assert f"= {ref.effect.estimate:+.4f} points on the likert5 scale (mean score (1–5))" in out
    assert "mean scores: A " in out and "top-2-box (scores 4, 5): A " in out
    assert f"sign-flip p = {ref.top_box.pvalue:.4g}" in out


@pytest.mark.parametrize("command", [("analyze",), ("estimate", "--message", "A"), ("validate", "--message", "A")])
def test_bad_scale_exits_2_naming_the_known_scales(capsys, likert_csv, command):
    code, out, err = run_cli(capsys, command[0], likert_csv[0], *command[1:], "--scale", "likert",
                             *(["--no-plot"] if command[0] == "validate" else []))
    assert code == 2 and not out
    assert "unknown response type 'likert'" in err and "likert5" in err and "rating0-10" in err


def test_without_scale_a_likert_table_is_refused_with_a_hint(capsys, likert_csv):
    code, _, err = run_cli(capsys, "analyze", likert_csv[0])
    assert code == 2 and "--scale likert5" in err


def test_analyze_choice_json_and_text(capsys, choice_csv):
    path, df = choice_csv
    code, out, err = run_cli(capsys, "analyze", path, "--json")
    assert code == 0, err
    doc = json.loads(out)
    (res,) = doc["results"]
    ref = compare_choice(df, "simulated", "A", "B")
    assert doc["scale"] == "choice" and doc["decided_by"] == "preference"
    assert res["preference"] == ref.preference.to_dict() and res["position_bias"] == ref.position_bias.to_dict()
    assert res["warning"] == ref.warning and "position bias" in res["warning"]
    assert res["significant"] == (ref.pvalue <= 0.05)
    code, out, _ = run_cli(capsys, "analyze", path)
    assert code == 0
    assert (f"preference for A (share choosing A − share choosing B, both orders averaged) = "
            f"{ref.preference.statistic:+.4f}") in out
    assert (f"position bias (share choosing the first-shown option − the second-shown) = "
            f"{ref.position_bias.statistic:+.4f}") in out
    assert f"{ref.preference.share:.4f}" not in out  # the share form is not a second number on screen
    assert "WARNING: position bias" in out and "preference sign-flip test" in out
    code, _, err = run_cli(capsys, "estimate", path, "--message", "A")
    assert code == 2 and "forced-choice" in err


def test_estimate_likert_json_and_text(capsys, likert_csv):
    path, _ = likert_csv
    code, out, err = run_cli(capsys, "estimate", path, "--scale", "likert5", "--message", "A", "--bootstrap", "10",
                             "--json")
    assert code == 0, err
    doc = json.loads(out)
    (res,) = doc["results"]
    assert doc["scale"] == "likert5" and res["points"] == 5 and len(res["cuts"]) == 4
    assert {"tau", "sigma", "rho"} <= set(res["se"])
    code, out, _ = run_cli(capsys, "estimate", path, "--scale", "likert5", "--message", "A", "--bootstrap", "10")
    assert code == 0 and "tau" in out and "cut 4" in out and "ordinal-moments" in out


def test_validate_likert_null_split(capsys, likert_csv):
    path, _ = likert_csv
    code, out, err = run_cli(capsys, "validate", path, "--scale", "likert5", "--message", "A", "--config", "6,3,2",
                             "--draws", "50", "--no-plot", "--json")
    assert code == 0, err
    (res,) = json.loads(out)["results"]
    assert res["condition"] == "null" and res["tests"]["sign_flip"]["draws"] == 50


def test_report_reads_a_hand_made_likert_table_with_scale(capsys, likert_csv, tmp_path):
    code, _, err = run_cli(capsys, "report", likert_csv[0], "--out", tmp_path / "bad", "--scale", "likert")
    assert code == 2 and "unknown response type 'likert'" in err
    code, _, err = run_cli(capsys, "report", likert_csv[0], "--out", tmp_path / "bare")
    assert code == 2 and "--scale likert5" in err
    code, out, err = run_cli(capsys, "report", likert_csv[0], "--out", tmp_path / "rep", "--scale", "likert5",
                             "--flips", "999", "--json")
    assert code == 0, err
    assert (tmp_path / "rep" / "index.html").exists() and json.loads(out)["results"]
