"""`survey plan --sequential` and plan(BinaryPlan(...), sequential=...): the rule's power and expected queries per design."""
import json

from click.testing import CliRunner

from survey.cli import cli
from survey.kinds.binary.power import BinaryPlan
from survey.stats.planning import plan


def test_plan_reports_expected_queries_beside_the_fixed_design():
    res = plan(BinaryPlan(1.0, rho=0.3), designs=["30,24,3", "30,8,3"], simulations=200, sequential={"spending": "pocock"})
    rows = {r["m"]: r for r in res.sequential}
    big = rows[24]
    assert big["fixed_queries"] == 2 * 30 * 24 * 3
    assert big["expected_queries"] < 0.8 * big["fixed_queries"]  # a large effect stops early
    assert big["power"] > 0.8 and abs(big["power"] - big["fixed_power"]) < 0.15
    assert 0 < rows[8]["ratio"] <= 1
    assert res.to_dict()["sequential"] == res.sequential


def test_plan_without_sequential_has_none():
    assert plan(BinaryPlan(0.5), designs=["10,4,1"], simulations=50).to_dict()["sequential"] is None


def test_cli_plan_sequential_json_and_text():
    args = ["plan", "--delta", "0", "--design", "20,12,2", "--simulations", "100", "--no-plot",
            "--sequential", "betting", "--futility", "0.2", "--futility-from", "0.3"]
    doc = json.loads(CliRunner().invoke(cli, [*args, "--json"], catch_exceptions=False).output)
    row = doc["sequential"][0]
    assert row["power"] <= 0.1 and row["futility_rate"] > 0.3 and row["ratio"] < 1
    text = CliRunner().invoke(cli, args, catch_exceptions=False).output
    assert "sequential vs fixed" in text and "betting" in text
