"""The mixed-subjects planner for a study's target (survey.plan_humans, `survey plan-humans`): r measured on a
pilot is numpy's correlation on the respondents, the plan is plan_mixed_subjects priced per query, and the
planned between-subjects mix reaches its target half-width when PPI is run on simulated data of that size."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from survey.data.sources import Source
from survey.errors import SurveyError
from survey.stats.planning import MixedPlanTarget, plan_mixed_effect, plan_mixed_subjects
from survey.stats.ppi import PPIArm, ppi_between_arrays, ppi_mean_arrays

sys.path.insert(0, str(Path(__file__).parent))
from synthetic import synthetic  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_mean_and_within_are_plan_mixed_subjects_priced_per_query():
    for design in ("mean", "within"):
        got = plan_mixed_effect(design, r=0.4, sigma=0.8, queries_per_persona=12,
                                target=MixedPlanTarget(cost_human=5, cost_query=0.01, half_width=0.05))
        ref = plan_mixed_subjects(r=0.4, sigma=0.8, cost_human=5, cost_persona=0.12, half_width=0.05)
        assert (got.humans, got.plan.N, got.cost) == (ref.n, ref.N, pytest.approx(ref.cost))
        assert got.queries == ref.N * 12 and got.to_dict()["half_width"] == pytest.approx(ref.half_width)


def test_between_splits_the_target_over_two_arms_and_reaches_it_in_simulation():
    r, sigma, hw = 0.5, 1.0, 0.15
    plan = plan_mixed_effect("between", r=r, sigma=sigma, queries_per_persona=12,
                             target=MixedPlanTarget(cost_human=5, cost_query=0.01, half_width=hw))
    arm = plan_mixed_subjects(r=r, sigma=sigma, cost_human=5, cost_persona=0.06, half_width=hw / math.sqrt(2))
    assert plan.humans == 2 * arm.n and plan.plan.N == arm.N and plan.cost == pytest.approx(2 * arm.cost)
    assert plan.to_dict()["half_width"] <= hw * (1 + 1e-9) and plan.humans < plan.humans_only
    # PPI on data of the planned size: answers with corr(Y, f) = r in each arm, sd sigma, effect 0.2
    n, big_n, s = plan.plan.n, plan.plan.N, 2000
    rng = np.random.default_rng(7)
    x_a, x_b, x_u = rng.normal(size=(s, n)), rng.normal(size=(s, n)), rng.normal(size=(s, big_n))
    y_a = 0.2 + sigma * (r * x_a + math.sqrt(1 - r * r) * rng.normal(size=(s, n)))
    y_b = sigma * (r * x_b + math.sqrt(1 - r * r) * rng.normal(size=(s, n)))
    x_u2 = rng.normal(size=(s, big_n))  # separate personas per arm: the plan's own assumption
    est, se, _, _ = ppi_between_arrays(PPIArm(y_a, x_a, x_u), PPIArm(y_b, x_b, x_u2))
    half = 1.959964 * se
    assert np.mean(half) == pytest.approx(hw, rel=0.03)  # tuned lambda costs a little; the plan is not wasteful
    cover = np.mean(np.abs(est - 0.2) <= half)
    assert 0.937 <= cover <= 0.963  # the 99% binomial band of 0.95 over 2 000 datasets
    # the same personas answering both messages (what a study does) only narrows it: the plan is conservative
    _, se_same, _, _ = ppi_between_arrays(PPIArm(y_a, x_a, x_u), PPIArm(y_b, x_b, x_u), same_personas=True)
    assert np.mean(1.959964 * se_same) < np.mean(half)


def test_a_pilot_measures_r_and_sigma_on_the_respondents():
    from survey.stats.humans.inputs import model_scores
    from survey.stats.humans.pilot import pilot_measures

    table, humans = synthetic("within", seed=2, link=1.5, human_slope=1.5)
    m = pilot_measures(Source.of(table), humans)["toy"]
    t = humans.table.pivot(index="respondent", columns="message", values="answer")
    f = model_scores(table, "toy").rendered.loc[t.index]
    d = (t["a"] - t["b"]).to_numpy(float)
    assert m.design == "within" and m.r == pytest.approx(np.corrcoef(d, (f["a"] - f["b"]).to_numpy())[0, 1])
    assert m.sigma == pytest.approx(np.std(d, ddof=1)) and m.queries_per_persona == 12
    table, humans = synthetic("between", seed=3, link=1.5, human_slope=1.5)
    m = pilot_measures(Source.of(table), humans)["toy"]
    f = model_scores(table, "toy").rendered
    rs = {msg: np.corrcoef(humans.answers(msg)["answer"].to_numpy(float),
                           f.loc[list(humans.answers(msg)["respondent"]), msg].to_numpy())[0, 1] for msg in "ab"}
    assert m.design == "between" and m.r == pytest.approx(min(rs.values())) and m.r > 0.2
    assert set(m.arms) == {"a", "b"} and m.n_humans == 120


def test_the_api_and_the_cli(tmp_path):
    import survey

    table, humans = synthetic("between", seed=3, link=1.5, human_slope=1.5)
    src = survey.load_source(_table_file(table, tmp_path))
    src.humans = humans
    plans = survey.plan_humans(src, cost_human=5, cost_query=0.01, effect=0.2)
    assert set(plans) == {"toy"} and plans["toy"].design == "between" and "measured on the pilot" in plans["toy"].basis
    with pytest.raises(SurveyError, match="measured on the pilot"):
        survey.plan_humans(src, cost_human=5, cost_query=0.01, effect=0.2, r=0.3)
    with pytest.raises(SurveyError, match="give r"):
        survey.plan_humans(cost_human=5, cost_query=0.01, effect=0.2)
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    run = lambda *a: subprocess.run([sys.executable, "-m", "survey", "plan-humans", *a], capture_output=True,  # noqa: E731
                                    text=True, cwd=ROOT, env=env)
    out = run("--r", "0.3", "--cost-human", "5", "--cost-query", "0.01", "--half-width", "0.05", "--json")
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)["stated"]
    ref = plan_mixed_subjects(r=0.3, sigma=0.5, cost_human=5, cost_persona=0.01, half_width=0.05)
    assert (got["humans"], got["personas"]) == (ref.n, ref.N)
    for args, text in ((["--half-width", "0.05"], "give r"), (["--r", "0.3", "--model", "x", "--half-width", "0.05"],
                                                             "--pilot"),
                       (["--r", "0.3"], "exactly one target")):
        out = run("--cost-human", "5", "--cost-query", "0.01", *args, "--json")
        assert out.returncode == 2 and text in json.loads(out.stdout)["error"], out.stdout + out.stderr


def _table_file(table, tmp_path):
    path = tmp_path / "pilot.csv"
    table.to_csv(path, index=False)
    return path


def test_lambda_s_cap_at_one_is_planned_when_the_predictions_vary_little():
    from survey.stats.planning.mixed_subjects import mixed_subjects_se

    # the s.e. at PPI++'s lambda, written out; equal to the best-lambda formula when that lambda is below 1
    n, big_n, sigma, r, sf = 200.0, 800.0, 1.0, 0.5, 0.05
    c = r * sigma * sf
    lam = min(c / (sf ** 2 * (1 + n / big_n)), 1.0)
    assert mixed_subjects_se(n, big_n, sigma, r, sf) == pytest.approx(
        np.sqrt((sigma ** 2 - 2 * lam * c + lam ** 2 * sf ** 2 * (1 + n / big_n)) / n))
    assert mixed_subjects_se(n, big_n, sigma, r, 1.0) == pytest.approx(mixed_subjects_se(n, big_n, sigma, r))
    # predictions of s.d. 0.05 against answers of s.d. 1 (a too-uniform model) with r = 0.5: planned with the
    # cap, PPI on data of that size reaches the half-width; the best-lambda plan's sizes fall short
    capped = plan_mixed_subjects(r=r, sigma=sigma, cost_human=5, cost_persona=0.01, half_width=0.15, sigma_f=sf)
    best = plan_mixed_subjects(r=r, sigma=sigma, cost_human=5, cost_persona=0.01, half_width=0.15)
    assert capped.worth_per_human < best.worth_per_human and capped.cost > best.cost
    rng = np.random.default_rng(11)
    ratios = {}
    for name, p in (("capped", capped), ("best", best)):
        s = 2000
        x, xu = rng.normal(size=(s, p.n)), rng.normal(size=(s, p.N))
        y = sigma * (r * x + np.sqrt(1 - r * r) * rng.normal(size=(s, p.n)))
        est, se, _ = ppi_mean_arrays(y, sf * x, sf * xu)
        ratios[name] = float(np.std(est) / p.target_se)
    assert ratios["capped"] == pytest.approx(1.0, abs=0.04) and ratios["best"] > 1.06, ratios


def test_the_pilot_measures_the_predictions_spread():
    from survey.stats.humans.inputs import model_scores
    from survey.stats.humans.pilot import pilot_measures

    table, humans = synthetic("between", seed=3, link=1.5, human_slope=1.5)
    m = pilot_measures(Source.of(table), humans)["toy"]
    scores = model_scores(table, "toy")
    spread = {msg: np.std(np.concatenate([scores.rendered.loc[list(humans.answers(msg)["respondent"]), msg],
                                          scores.population[msg]]), ddof=1) for msg in "ab"}  # PPI's Var(f) per arm
    assert m.sigma_f == pytest.approx(min(spread.values()))
    assert m.prediction_correlation is not None and m.prediction_correlation > 0 and not m.warnings


def _cli(capsys, *argv):
    from survey.cli import main

    code = 0
    try:
        main(["plan-humans", *argv])
    except SystemExit as exc:  # anything else propagates: a traceback fails the test
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args, text", [
    (["--queries-per-persona", "0"], "queries_per_persona must be positive"),  # was silently taken as 1
    (["--cost-human", "inf"], "cost_human must be a finite number"),  # was "no mix reaches the target"
    (["--sigma", "nan"], "sigma must be a finite number"),
    (["--half-width", "0.00001"], "widen the target"),  # was a 71.6 GiB MemoryError
])
def test_user_mistakes_are_one_line_and_exit_2(capsys, args, text):
    base = {"--r": "0.3", "--cost-human": "5", "--cost-query": "0.01", "--half-width": "0.05"}
    base.update({args[0]: args[1]})
    code, out, _ = _cli(capsys, *[x for kv in base.items() for x in kv], "--json")
    assert code == 2 and text in json.loads(out)["error"], out


def test_queries_per_persona_zero_is_refused_with_a_pilot_too(tmp_path):
    import survey

    table, humans = synthetic("within", seed=2, link=1.5, human_slope=1.5)
    src = survey.load_source(_table_file(table, tmp_path))
    src.humans = humans
    with pytest.raises(SurveyError, match="queries_per_persona must be positive"):
        survey.plan_humans(src, cost_human=5, cost_query=0.01, effect=0.2, queries_per_persona=0)
    assert survey.plan_humans(src, cost_human=5, cost_query=0.01, effect=0.2)["toy"].queries_per_persona == 12


def test_the_output_states_its_basis_and_target(capsys):
    code, out, _ = _cli(capsys, "--r", "-0.3", "--cost-human", "5", "--cost-query", "0.01", "--half-width", "0.05")
    text = " ".join(out.split())
    assert code == 0, out
    assert "sigma 0.5 (default: the largest s.d. of a Yes/No answer)" in text and "r and sigma stated" not in text
    assert "planned as 0" in text and "a 95% interval of half-width 0.05" in text
    assert "(cost)" in text and "worth at most 1 human;" in text  # the table may wrap "humans alone (cost)" and "1 humans" not in text
    assert "add nothing here" in text and "valid statement about people" not in text  # no personas in this plan
    code, out, _ = _cli(capsys, "--r", "0.3", "--sigma", "0.4", "--cost-human", "5", "--cost-query", "0.01",
                        "--effect", "0.1", "--design", "between", "--alpha", "0.1", "--json")
    got = json.loads(out)["stated"]
    assert got["target"] == {"effect": 0.1, "power": 0.8, "alpha": 0.1} and got["alpha"] == 0.1
    assert got["basis"] == "r 0.3 stated; sigma 0.4 stated" and "an effect of 0.1 detected with power 0.8" in got["note"]


def test_a_pilot_plan_shows_itself_and_gives_r_its_interval(tmp_path):
    from scipy import stats as sps

    import survey
    from survey.stats.humans.pilot import pilot_measures
    from survey.stats.planning.mixed_subjects import r_interval

    table, humans = synthetic("between", seed=3, link=1.5, human_slope=1.5)
    src = survey.load_source(_table_file(table, tmp_path))
    src.humans = humans
    plans = survey.plan_humans(src, cost_human=5, cost_query=0.01, half_width=0.1, alpha=0.05)
    assert isinstance(plans, dict) and "Fisher's z" in repr(plans) and len(repr(plans)) <= 1000
    assert "<table>" in plans._repr_html_() and plans.to_dict()["toy"]["target"] == {"half_width": 0.1, "alpha": 0.05}
    # the interval is Fisher's z on the humans of the arm whose r the plan uses (scipy's pearsonr interval)
    m = pilot_measures(src, humans)["toy"]
    arm = next(v for v in m.arms.values() if v["r"] == m.r)
    rng = np.random.default_rng(0)
    x = rng.normal(size=arm["n"])
    y = m.r * x + rng.normal(size=arm["n"])  # any sample of that size: the interval depends on r and n alone
    ref = sps.pearsonr(x, y)
    low, high = ref.confidence_interval(0.95)
    assert r_interval(ref.statistic, arm["n"]) == pytest.approx((low, high), rel=1e-9)
    low, high = r_interval(m.r, arm["n"])
    assert f"95% interval {low:+.2f} to {high:+.2f}, Fisher's z on {arm['n']} humans" in plans["toy"].basis


def test_targets_on_the_answers_scale_and_the_smallest_plan():
    import survey

    # once: --effect 10 on a Yes/No answer planned "2 humans"; a target as large as the scale's range is refused,
    # a likert5 scale (range 4) takes effects in points, and a plan under 30 humans per arm is warned about
    with pytest.raises(SurveyError, match="strictly between -1 and 1; got 1"):
        survey.plan_humans(cost_human=5, cost_query=0.01, r=0.3, effect=1.0)
    with pytest.raises(SurveyError, match="wider than the scale"):
        survey.plan_humans(cost_human=5, cost_query=0.01, r=0.3, half_width=1.5, design="within")
    likert = survey.plan_humans(cost_human=5, cost_query=0.01, r=0.3, effect=0.5, scale="likert5")
    assert likert.plan.sigma == 2.0 and "largest s.d. of a likert5 answer" in likert.basis
    with pytest.raises(SurveyError, match="larger than a likert5 answer can vary"):
        survey.plan_humans(cost_human=5, cost_query=0.01, r=0.3, effect=0.5, scale="likert5", sigma=5)
    small = survey.plan_humans(cost_human=5, cost_query=0.01, r=0.3, half_width=0.4)
    assert small.humans < 30 and any("plan at least 30" in w for w in small.warnings)
    assert not survey.plan_humans(cost_human=5, cost_query=0.01, r=0.3, effect=0.1).warnings
    with pytest.raises(SurveyError, match="give the costs in a larger unit"):
        survey.plan_humans(cost_human=1e308, cost_query=0.01, r=0.3, effect=0.1)


def test_a_pilot_whose_humans_gave_one_answer_per_message_names_that_not_the_costs(tmp_path):
    # before: "costs must be numbers (a human answer > 0, a persona answer >= 0) and sigma > 0" for valid costs
    import survey

    table, humans = synthetic("between", seed=3, link=1.5, human_slope=1.5)
    humans.table["answer"] = 1
    src = survey.load_source(_table_file(table, tmp_path))
    src.humans = humans
    with pytest.raises(SurveyError, match="humans show no spread to plan from") as err:
        survey.plan_humans(src, cost_human=5, cost_query=0.01, effect=0.2)
    assert "costs" not in str(err.value)
