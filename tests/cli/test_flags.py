"""Flags mean the same everywhere: --alpha on every command that tests, --seed and --flips with one
definition each (two documented --flips defaults), and one sign convention said in every output:
the effect T is A - B, the Beta-logit delta is B over A."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from cli_result import run_cli

from survey.cli import cli
from survey.stats.beta_logit import simulate

ROOT = Path(__file__).resolve().parents[2]
TESTING = ["analyze", "compare", "validate", "plan", "report", "dbpa", "demo"]


def _params(name: str) -> dict[str, click.Parameter]:
    return {p.name: p for p in cli.commands[name].params}


_run = run_cli


@pytest.mark.parametrize("name", TESTING)
def test_every_command_that_tests_takes_alpha(name):
    alpha = _params(name).get("alpha")
    assert alpha is not None, f"survey {name} has no --alpha"
    assert alpha.default in (0.05, None)  # None: dbpa's family file may set it; 0.05 applies otherwise
    assert alpha.type.name == "level"  # one definition: survey.cli.common.alpha_option


def test_seed_and_flips_have_one_definition_and_two_documented_defaults():
    for name, cmd in cli.commands.items():
        for sub in getattr(cmd, "commands", {}).values() or [cmd]:
            for p in sub.params:
                if p.name == "seed":
                    assert p.type.name == "seed", f"{name} --seed"
                if p.name == "flips":
                    assert p.type.name == "count", f"{name} --flips"
    one_test = {n: _params(n)["flips"].default for n in ("analyze", "compare", "report")}
    simulated = {n: _params(n)["flips"].default for n in ("plan", "validate")}
    assert set(one_test.values()) == {9999} and set(simulated.values()) == {1000}
    guide = (ROOT / "docs" / "analysing.md").read_text()
    assert "--flips" in guide and "9999" in guide and "1000" in guide


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "t.csv"
    simulate(12, 8, 2, delta=1.5, seed=3).to_csv(path, index=False)
    return path


def test_analyze_alpha_decides_and_sets_the_interval(capsys, table):
    code, out, _ = _run(capsys, "analyze", table, "--json", "--alpha", "0.1")
    doc = json.loads(out)
    (res,) = doc["results"]
    assert code == 0 and doc["alpha"] == 0.1 and doc["decided_by"] == "sign_flip"
    assert res["effect"]["confidence"] == pytest.approx(0.9)
    assert res["significant"] == (res["tests"]["sign_flip"]["pvalue"] <= 0.1)
    code, out, _ = _run(capsys, "analyze", table, "--alpha", "0.1", "--confidence", "0.8")
    assert "80% CI" in out and "decision at alpha = 0.1 (sign-flip test" in out


def test_the_sign_convention_is_said_in_every_output(capsys, table, tmp_path):
    # simulate's delta is B over A; the effect is A - B: a positive delta shows as a negative effect
    code, out, _ = _run(capsys, "simulate", "--personas", "10", "--perturbations", "6", "--replicates", "2",
                        "--delta", "1", "--seed", "1", "--out", tmp_path / "s.csv", "--json")
    assert code == 0 and "B over A" in json.loads(out)["delta"]["meaning"]
    code, out, _ = _run(capsys, "simulate", "--personas", "10", "--perturbations", "6", "--delta", "1",
                        "--seed", "1", "--out", tmp_path / "s.csv")
    assert "B over A" in out and "A) - P(Yes|B) is negative" in out
    code, out, _ = _run(capsys, "analyze", table, "--json")
    effect = json.loads(out)["results"][0]["effect"]
    assert effect["direction"] == "A - B" and effect["estimate"] < 0
    code, out, _ = _run(capsys, "compare", table, "--json")
    assert json.loads(out)["models"]["models"][0]["effect"]["direction"] == "A - B"
    code, out, _ = _run(capsys, "plan", "--delta", "0.5", "--design", "10,6,2", "--simulations", "20",
                        "--no-plot", "--json")
    doc = json.loads(out)
    assert "B over A" in doc["delta_meaning"]
    code, out, _ = _run(capsys, "plan", "--delta", "0.5", "--design", "10,6,2", "--simulations", "20", "--no-plot")
    assert "delta=0.5 (B over A, logit)" in out


def test_dry_run_warns_when_a_message_has_too_few_paraphrases(capsys, tmp_path):
    text = (ROOT / "studies" / "sim.toml").read_text().replace("count = 30", "count = 4")
    text = text.replace("count = 20", "count = 5", 1)  # sneakers: 5 paraphrases, boots: 20
    study = tmp_path / "s.toml"
    study.write_text(text)
    code, out, err = _run(capsys, "run", study, "--dry-run")
    assert code == 0
    assert "warning: message 'sneakers' has 5 paraphrases: with m = 5 paraphrase pairs the sign-flip test cannot " \
           "reject at alpha = 0.05" in err
    assert "boots" not in err
    code, out, _ = _run(capsys, "run", study, "--dry-run", "--json")
    (w,) = json.loads(out)["warnings"]
    assert "2/2^5 = 0.0625" in w
