"""Power plans for pick one of k and best-worst scaling: the plan's power at a design equals the rejection rate
of the kind's own analysis on independently simulated surveys, within Monte Carlo error; bad inputs are refused
with one line."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy.special import expit

from survey.cli import main
from survey.errors import SurveyError
from survey.kinds.choice.model import choice_table, simulate_choice_counts
from survey.kinds.choice.power import ChoicePlan
from survey.kinds.choice.table import compare_choice
from survey.kinds.maxdiff.power import MaxDiffPlan
from survey.kinds.maxdiff.simulation import simulate_maxdiff_arrays
from survey.kinds.maxdiff.statistics import maxdiff_test, scores_from_counts
from survey.kinds.pick.power import PickPlan
from survey.kinds.pick.statistics import holm_pair, holm_pair_pvalues
from survey.kinds.pick.table import compare_pick, simulate_pick_table
from survey.stats.multiplicity import adjust_pvalues, holm_rows
from survey.stats.planning import plan


def _agrees(planned: float, plan_sims: int, hits: int, surveys: int) -> tuple[bool, float]:
    """Two rejection rates agree within 3.5 standard errors of their difference (a 1-in-2000 false alarm)."""
    direct = hits / surveys
    pooled = (planned * plan_sims + hits) / (plan_sims + surveys)
    se = np.sqrt(pooled * (1 - pooled) * (1 / plan_sims + 1 / surveys))
    return abs(planned - direct) <= 3.5 * se, se


def test_holm_rows_equals_adjust_pvalues_row_by_row():
    p = np.random.default_rng(1).uniform(size=(50, 6)) ** 2
    p[0] = [0.01, 0.01, 0.04, 0.2, 0.03, 0.5]  # ties keep their order
    assert np.allclose(holm_rows(p), np.array([adjust_pvalues(row, "holm") for row in p]))


def test_pick_plan_power_equals_compare_pick_on_simulated_tables():
    """The plan's power (batched simulator, batched Holm) against survey.kinds.pick.table.compare_pick (the
    kind's analysis of a long table, Latin square read back from the rows) on tables from the kind's simulator,
    with a position bias and a persona pull so that the order averaging matters."""
    kw = {"positions": [0.6, 0.0, -0.3], "tau": 0.5, "rho": 0.4}
    res = plan(PickPlan([1.0, 0.0, 0.2], scale="pick3", **kw), designs=["6,8,1"], simulations=4000, seed=3)
    planned = res.results[0].power["sign_flip"]
    assert 0.2 < planned < 0.8  # a design where a wrong rate would show
    surveys = 240
    hits = sum(compare_pick(simulate_pick_table(6, 8, 1, ["A", "B", "C"], seed=100 + i, deltas=[1.0, 0.0, 0.2], **kw),
                            "sim", "A", "B", n_resamples=99, seed=i).pvalue <= 0.05 for i in range(surveys))
    ok, se = _agrees(planned, 4000, hits, surveys)
    assert ok, (planned, hits / surveys, se)


def test_maxdiff_plan_power_equals_the_per_survey_analysis():
    """The plan against survey.kinds.maxdiff.statistics.maxdiff_test (holm_pair, one survey at a time) on surveys drawn
    separately from the kind's simulator."""
    kw = {"sigma": 0.8, "rho": 0.3, "positions": [0.4, 0.0, 0.0]}
    res = plan(MaxDiffPlan([1.0, 0.0, 0.3, -0.2], scale="maxdiff3", **kw), designs=["8,10,1"], simulations=3000, seed=5)
    planned = res.results[0].power["sign_flip"]
    assert 0.2 < planned < 0.8
    rng = np.random.default_rng(11)
    surveys = 400
    best, worst, valid = simulate_maxdiff_arrays(surveys, 8, 10, 1, 4, 3, deltas=[1.0, 0.0, 0.3, -0.2], seed=rng, **kw)
    scores = scores_from_counts(best, worst, valid)
    hits = sum(maxdiff_test(s, 0, 1, messages=list("ABCD"), n_resamples=99, seed=0)[0].pvalue <= 0.05 for s in scores)
    ok, se = _agrees(planned, 3000, hits, surveys)
    assert ok, (planned, hits / surveys, se)


def test_choice_plan_power_equals_compare_choice_on_simulated_tables():
    """Forced choice (pick with k = 2, both orders): the plan's one-sided power against compare_choice on long
    tables of the choice simulator; one-sided, so a flipped sign convention of delta would show."""
    res = plan(ChoicePlan(0.8, positions=[0.7, 0.0], tau=0.5, rho=0.4), designs=["6,8,1"], simulations=4000, seed=1,
               alternative="less")
    planned = res.results[0].power["sign_flip"]
    assert 0.2 < planned < 0.8 and res.results[0].design.queries == 2 * 6 * 8
    rng, surveys = np.random.default_rng(5), 150
    hits = sum(compare_choice(choice_table(simulate_choice_counts(6, 8, 1, rng, delta=0.8, rho=0.4, tau=0.5,
                                                                  position=float(expit(0.7))), 1),
                              "simulated", "A", "B", alternative="less", n_resamples=99, seed=i).pvalue <= 0.05
               for i in range(surveys))
    ok, se = _agrees(planned, 4000, hits, surveys)
    assert ok, (planned, hits / surveys, se)


def test_cost_and_cheapest_design_in_the_kinds_queries():
    res = plan(PickPlan(1.0, scale="pick4"), strategies=["1:4:1"], budgets=[400, 2000], simulations=200,
               target_power=0.5)
    assert all(r.design.queries == 4 * r.design.n * r.design.m * r.design.r <= r.design.budget for r in res.results)
    assert res.cheapest is not None and res.cheapest["budget"] == 4 * res.cheapest["n"] * res.cheapest["m"] * res.cheapest["r"]
    assert "pick4" in repr(res) and "<table>" in res._repr_html_()
    null = plan(PickPlan(0.0, scale="pick2"), designs=["5,8,1"], simulations=2000)
    assert null.results[0].power["sign_flip"] <= 0.05 + 3.5 * np.sqrt(0.05 * 0.95 / 2000)  # k = 2: one pair


@pytest.mark.parametrize("make,needle", [
    (lambda: PickPlan(0.5, scale="likert5"), "not a pick scale"),
    (lambda: PickPlan([0.5, 0.0], scale="pick3"), "3 finite numbers"),
    (lambda: MaxDiffPlan(0.5, scale="maxdiff3"), "how many messages"),
    (lambda: MaxDiffPlan([0.5, 0, 0, 0], scale="maxdiff3", messages_shown=5), "one delta per message"),
    (lambda: PickPlan(0.5, scale="pick3", rho=1.5), "`rho`"),
    (lambda: plan(PickPlan(0.5), sequential={"method": "obf"}), "sequential"),
    (lambda: ChoicePlan([0.5, 0.0]), "one number"),
])
def test_bad_parameters_raise_survey_errors(make, needle):
    with pytest.raises(SurveyError, match=needle):
        make()


@pytest.mark.parametrize("args,needle", [
    (["--scale", "pick1", "--delta", "0.5"], "pick one of k shows 2 to 9"),
    (["--scale", "pick3", "--delta", "0.5", "--mu", "0.4"], "--mu does not apply to scale 'pick3'"),
    (["--scale", "pick3", "--delta", "0.5", "--cuts", "0,1"], "--cuts does not apply"),
    (["--scale", "maxdiff3", "--delta", "0.5", "--messages", "4", "--tau", "1"], "belongs to pick one of k"),
    (["--scale", "binary", "--delta", "0.4", "--positions", "1,0"], "belong to pickK, maxdiffS, rankK and choice"),
    (["--scale", "binary", "--delta", "0.4,0"], "one number for scale 'binary'"),
    (["--scale", "pick3", "--delta", "x"], "--delta takes numbers"),
])
@pytest.mark.parametrize("as_json", [False, True])
def test_bad_flags_are_one_line_exit_2(args, needle, as_json, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["plan", *args, "--design", "4,4,1", "--simulations", "50", *(["--json"] if as_json else [])])
    out, err = capsys.readouterr()
    assert exc.value.code == 2
    if as_json:
        assert needle in json.loads(out)["error"]
    else:
        assert out == "" and needle in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in out + err


def _run(main, args) -> None:
    try:
        main(args)
    except SystemExit as exc:  # a successful command may end with exit status 0
        assert exc.code in (0, None)


def test_cli_text_and_json(capsys):
    args = ["plan", "--scale", "maxdiff3", "--delta", "0.8", "--messages", "4", "--design", "6,8,1",
            "--simulations", "100"]
    _run(main, [*args, "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["params"]["delta"] == [0.8, 0.0, 0.0, 0.0] and doc["queries_per_cell"] == 4
    assert doc["results"][0]["n"] == 6 and 0 <= doc["results"][0]["power"]["sign_flip"] <= 1
    _run(main, args)
    text = capsys.readouterr().out
    assert "Holm" in text and "192" in text  # 4 blocks x 6 personas x 8 sets x 1 replicate


def test_random_sign_flips_past_m_12_resolve_holm_as_the_exact_analysis_does():
    """Past m = 12 the plan's sign vectors are random while the analysis is exact (up to m = 40); with 21 pairs
    Holm needs p <= 0.05 / 21, which 999 random flips resolve badly (about 7% of decisions differ here): the
    plan draws enough flips that its decisions match the exact analysis's."""
    params = MaxDiffPlan([0.9] + [0.0] * 6, scale="maxdiff3")
    flips = plan(params, designs=["6,14,1"], simulations=20).flips
    assert flips >= 20 * 21 / 0.05 - 1
    S = params.per_set(200, 6, 14, 1, np.random.default_rng(2))
    exact = np.array([holm_pair(s, 0, 1)[0].pvalue for s in S]) <= 0.05
    batched = holm_pair_pvalues(S, 0, 1, n_resamples=flips, exact_max_m=12, seed=4) <= 0.05
    assert 0.1 < exact.mean() < 0.9 and (batched != exact).mean() <= 0.04
