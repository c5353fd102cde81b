"""The segment planner: its recommended personas per segment reach the target power when checked by an
independent simulation (per-survey sign-flip tests, Holm via survey.stats.multiplicity, the interaction
through survey.stats.segments.interaction_test), and bad flags are one-line exit-2 errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from cli_result import run_cli

from survey.errors import SurveyError
from survey.kinds.binary.power import BinaryPlan
from survey.kinds.ordinal.power import RatingPlan
from survey.stats.multiplicity import adjust_pvalues
from survey.stats.permutation import sign_flip_test
from survey.stats.planning.segments import adjusted_rejections, plan_segments, smallest_n
from survey.stats.segments import interaction_test
from survey.stats.segments.simulation import SimSegment, simulate_segment_cells

TARGET = 0.8
PLAN_SIMS, CHECK_SIMS = 400, 600


def _tolerance(p: float) -> float:
    """3 Monte Carlo s.e. of the difference between the planner's estimate and the independent check."""
    return 3 * math.sqrt(p * (1 - p) * (1 / PLAN_SIMS + 1 / CHECK_SIMS))


def _check_segment_power(params, n: int, k: int, m: int, r: int, seed: int) -> float:
    cells = simulate_segment_cells([SimSegment(f"s{i}", n, params.delta) for i in range(k)], m, r, scale=params.scale,
                                   sigma=1.0, rho=0.0, surveys=CHECK_SIMS, seed=seed)
    d = cells.pair_differences()  # (S, K, m)
    rejected = 0
    for s in range(CHECK_SIMS):
        p = [sign_flip_test(d[s, i]).pvalue for i in range(k)]
        rejected += int((adjust_pvalues(p, "holm") <= 0.05).sum())
    return rejected / (CHECK_SIMS * k)


@pytest.mark.parametrize("params", [BinaryPlan(delta=0.5, rho=0.0), RatingPlan(delta=0.5, scale="likert5", rho=0.0)],
                         ids=["binary", "likert5"])
def test_the_recommended_personas_per_segment_reach_the_target_power(params):
    res = plan_segments(params, 3, pairs=10, replicates=2, target_power=TARGET, simulations=PLAN_SIMS, seed=1)
    n = res.per_segment["n"]
    assert n is not None and res.per_segment["power"] >= TARGET
    checked = _check_segment_power(params, n, 3, 10, 2, seed=7)
    assert checked >= TARGET - _tolerance(TARGET), (n, checked)
    # and the recommendation is not far larger than needed: 60% of it falls clearly short
    smaller = _check_segment_power(params, max(2, int(0.6 * n)), 3, 10, 2, seed=8)
    assert smaller < TARGET - _tolerance(TARGET), (n, smaller)


def test_the_recommended_personas_reach_the_target_power_on_the_interaction():
    params = BinaryPlan(delta=0.0, rho=0.3)  # opposite effects +/-0.4, pooled effect 0
    res = plan_segments(params, 2, pairs=10, replicates=2, interaction_delta=0.8, target_power=TARGET,
                        simulations=PLAN_SIMS, seed=2)
    n = res.interaction["n"]
    assert n is not None and res.interaction["effects"] == [0.4, -0.4]
    cells = simulate_segment_cells([SimSegment("a", n, 0.4), SimSegment("b", n, -0.4)], 10, 2, rho=0.3,
                                   surveys=CHECK_SIMS, seed=11)
    d = cells.pair_differences()
    checked = np.mean([interaction_test(d[s], [n, n]).pvalue <= 0.05 for s in range(CHECK_SIMS)])
    assert checked >= TARGET - _tolerance(TARGET), (n, checked)


def test_holm_rows_match_the_one_family_adjustment():
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 0.1, (200, 4))
    expected = np.array([adjust_pvalues(row, "holm") <= 0.05 for row in p])
    assert (adjusted_rejections(p, 0.05, "holm") == expected).all()
    assert (adjusted_rejections(p, 0.05, "bonferroni") == (p * 4 <= 0.05)).all()


def test_smallest_n_finds_the_threshold_of_an_increasing_curve():
    n, seen = smallest_n(lambda n: n / 100, 0.37)
    assert n == 37 and len(seen) < 20
    assert smallest_n(lambda n: 0.5, 0.8, max_personas=64)[0] is None


def test_a_target_out_of_reach_says_to_raise_the_pairs():
    res = plan_segments(BinaryPlan(delta=0.3, rho=0.6), 2, pairs=6, replicates=1, simulations=40, max_personas=8)
    assert res.per_segment["n"] is None
    assert any("cannot reject" in w for w in res.warnings) and any("raise the pairs" in w for w in res.warnings)
    assert "Segment plan: 2 segments" in repr(res) and "<table>" in res._repr_html_()


def test_given_segment_sizes_get_their_power_and_what_they_lack():
    res = plan_segments(BinaryPlan(delta=1.5, rho=0.0), {"men": 3, "women": 40}, pairs=10, replicates=2,
                        simulations=100)
    rows = {c["segment"]: c for c in res.current}
    assert rows["men"]["power"] < rows["women"]["power"]
    assert rows["men"]["more_for_effect"] == max(0, res.per_segment["n"] - 3) and rows["women"]["more_for_effect"] == 0


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"segments": 1}, "at least 2 segments"), ({"segments": 3, "pairs": 1}, "m >= 2"),
    ({"segments": 3, "adjustment": "bh"}, "holm or bonferroni"), ({"segments": "3"}, "number of segments"),
    ({"segments": 2, "target_power": 1.0}, "between 0 and 1"),
])
def test_bad_plans_are_errors(kwargs, match):
    with pytest.raises(SurveyError, match=match):
        plan_segments(BinaryPlan(delta=0.5), **kwargs)


@pytest.mark.parametrize(("args", "match"), [
    (["--segments", "1"], "at least 2 segments"),
    (["--segments", "101", "--personas", "shoppers"], "more than the 100 personas of shoppers"),
    (["--by", "gender"], "give --personas SET too"),
    (["--personas", "shoppers", "--by", "region"], "no persona attribute 'region'"),
    (["--segments", "3", "--budget", "500"], "--budget belongs to the budget plan"),
    (["--personas", "shoppers", "--by", "gender", "--segments", "2"], "makes 3 segments"),
])
def test_bad_segment_flags_are_one_line_exit_2(capsys, args, match):
    code, out, err = run_cli(capsys, "plan", "--delta", "0.5", *args)
    assert code == 2 and match in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    code, out, err = run_cli(capsys, "plan", "--delta", "0.5", *args, "--json")
    assert code == 2 and match in json.loads(out)["error"]


def test_the_cli_plans_a_persona_sets_segments_as_json(capsys):
    code, out, _ = run_cli(capsys, "plan", "--delta", "1.5", "--rho", "0", "--personas", "shoppers", "--by",
                           "income", "--pairs", "8", "--replicates", "1", "--simulations", "40",
                           "--interaction-delta", "2", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["segments"] == 3 and {c["segment"] for c in doc["current"]} == {"low", "medium", "high"}
    assert doc["per_segment"]["n"] >= 2 and doc["interaction"]["effects"] == [2.5, 0.5]
    code, out, _ = run_cli(capsys, "plan", "--delta", "1.5", "--rho", "0", "--segments", "2", "--pairs", "8",
                           "--replicates", "1", "--simulations", "40")
    assert code == 0 and "personas per segment for power 0.8" in out


def test_a_study_plans_its_own_paraphrases_and_replicates_unless_told(tmp_path, capsys):
    """`survey plan STUDY --by ATTR` plans the study's design (its fewest paraphrases per message, its replicates),
    not the defaults m = 20, r = 5; an option given wins; the output says which design was planned."""
    from kind_segment_plan import study_toml

    study = tmp_path / "study.toml"
    study.write_text(study_toml('type = "binary"').replace("replicates = 1", "replicates = 2")
                     .replace("count = 8", "count = 6", 1))
    fast = ["--delta", "1.5", "--rho", "0", "--by", "gender", "--simulations", "30", "--flips", "99"]
    code, out, err = run_cli(capsys, "plan", study, *fast, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["pairs"], doc["replicates"]) == (6, 2)
    assert doc["design"] == {"pairs": 6, "pairs_from": "study segment-plan's paraphrases per message",
                             "replicates": 2, "replicates_from": "study segment-plan's replicates"}
    code, out, err = run_cli(capsys, "plan", study, *fast, "--pairs", "10")
    assert code == 0, err
    assert ("design planned: m = 10 paraphrase pairs (given by --pairs), r = 2 (study segment-plan's replicates)"
            in out) and "(m = 10 pairs, r = 2)" in out
    code, out, _ = run_cli(capsys, "plan", "--delta", "1.5", "--segments", "2", "--simulations", "30", "--flips", "99",
                           "--json")
    assert code == 0 and json.loads(out)["design"]["pairs_from"] == "the default" and json.loads(out)["pairs"] == 20


def test_a_yes_no_segment_plan_reads_its_parameters_from_a_table():
    from survey.stats.planning import PlanSource
    from survey.stats.simulation import simulate

    table = simulate(40, 12, 5, mu=0.3, kappa=6, sigma=0.8, rho=0.4, seed=3)
    res = plan_segments(BinaryPlan(delta=1.0, sigma=0.5), 2, pairs=8, replicates=1, simulations=20, max_personas=4,
                        source=PlanSource(from_table=table, message=sorted(set(table["message"]))[0]))
    assert "estimated by moments" in res.describe and "sigma=0.5" in res.describe  # a given value wins
    assert "mu=0.5," not in res.describe
    with pytest.raises(SurveyError, match="Yes/No surveys only"):
        plan_segments(RatingPlan(delta=0.5), 2, source=PlanSource(from_table=table, message="A"))
