"""Forced choice plans by segment from the command line and from Python too (its segment simulator existed; its
power model now hands the simulator its keywords): personas per segment and the interaction, text and --json."""

from __future__ import annotations

import json

from cli_result import run_cli

import survey
from survey import ChoicePlan


def test_choice_plans_by_segment(capsys):
    args = ["plan", "--scale", "choice", "--delta", "1.5", "--segments", "2", "--pairs", "10", "--replicates", "1",
            "--interaction-delta", "2", "--simulations", "60", "--flips", "199", "--positions", "0.4,0"]
    code, out, err = run_cli(capsys, *args)
    assert code == 0 and "parameters: choice (given)" in out and "position=0.598688" in out, err
    code, out, err = run_cli(capsys, *args, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["per_segment"]["n"] and doc["interaction"]["n"], err
    res = survey.plan_segments(ChoicePlan(1.5), 2, pairs=10, replicates=1, simulations=60, flips=199)
    assert res.per_segment["n"] is not None and res.to_dict()["flips"] == 199
