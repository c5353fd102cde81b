"""Replaying a sequential rule on a finished table: Python (survey.sequential) and `survey analyze --sequential`."""
import json

import numpy as np
import pytest
from click.testing import CliRunner

import survey
from survey import sequential as replay
from survey.cli import cli
from survey.errors import SurveyError
from survey.stats.sequential import make_design, sequential_test


@pytest.fixture(scope="module")
def strong():
    return survey.simulate(30, 24, 3, delta=1.0, seed=5)


def test_replay_stops_early_on_a_clear_effect_and_counts_queries(strong):
    res = survey.sequential(strong, "A", "B", round_pairs=4, spending="pocock")
    r = res["simulated"]
    assert r.result.decision == "reject" and r.result.pairs < 24
    assert r.queries_used == 2 * r.result.pairs * 30 * 3 and r.queries_table == 2 * 24 * 30 * 3
    assert r.saved == pytest.approx(1 - r.result.pairs / 24)
    # the same as the rule on the table's pairs in collection order
    again = sequential_test(r.comparison.d_perturbation, round_pairs=4, max_pairs=24, spending="pocock")
    assert again.to_dict() == r.result.to_dict()
    doc = res.to_dict()["results"][0]
    assert doc["path"][-1]["pairs"] == r.result.pairs and doc["fixed_pvalue"] < 0.05


def test_replay_with_a_larger_planned_maximum_continues_on_a_null_table():
    df = survey.simulate(20, 12, 2, delta=0.0, seed=6)
    r = replay(df, max_pairs=40, round_pairs=4)["simulated"]
    assert r.result.decision in ("continue", "reject") and r.result.max_pairs == 40
    assert len(r.result.path) <= 3


def test_replay_takes_a_design_object_and_the_betting_method(strong):
    design = make_design(method="betting", round_pairs=6, max_pairs=24)
    r = replay(strong, design=design)["simulated"]
    assert r.result.method == "betting" and r.result.confidence_sequence is not None
    lo, hi = r.result.confidence_sequence
    assert lo <= r.comparison.effect.estimate <= hi or r.result.pairs < 24


def test_bad_design_is_a_survey_error(strong):
    with pytest.raises(SurveyError, match="sequential design"):
        replay(strong, spending="linear")


def test_cli_analyze_sequential_text_and_json(strong, tmp_path):
    path = tmp_path / "t.csv"
    strong.to_csv(path, index=False)
    run = CliRunner().invoke(cli, ["analyze", str(path), "--sequential", "group-sequential", "--round-pairs", "4",
                                   "--spending", "pocock"], catch_exceptions=False)
    assert run.exit_code == 0 and "decision: reject at look" in run.output and "saved" in run.output
    run = CliRunner().invoke(cli, ["analyze", str(path), "--sequential", "betting", "--json"], catch_exceptions=False)
    doc = json.loads(run.output)["results"][0]
    assert doc["method"] == "betting" and doc["queries_table"] == 2 * 24 * 30 * 3
    bad = CliRunner().invoke(cli, ["analyze", str(path), "--sequential", "group-sequential", "--spending", "x"])
    assert isinstance(bad.exception, SurveyError) and "spending" in str(bad.exception)  # main() prints one line


def test_replay_is_valid_over_null_tables():
    """The replayed rule is the rule: over null tables its rejection rate stays near alpha."""
    hits = 0
    for seed in range(40):
        df = survey.simulate(10, 16, 1, delta=0.0, rho=0.6, seed=seed)
        hits += replay(df, round_pairs=4, alpha=0.2, spending="pocock")["simulated"].result.rejected
    assert hits / 40 <= 0.2 + 2.5 * np.sqrt(0.2 * 0.8 / 40)
