"""`survey plan --scale likert5` and `survey simulate --scale ...`: rating scales planned and simulated
from the ordinal model, their flags checked (exit 2 naming the problem), binary outputs as before."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from cli_result import run_cli
from scipy import stats

import survey
from survey.errors import SurveyError
from survey.kinds.binary.power import BinaryPower
from survey.kinds.ordinal.model import make_ordinal_params
from survey.stats.beta_logit import make_params
from survey.stats.planning.power import SurveySize, estimate_power

PLAN = ("plan", "--design", "30,10,3", "--simulations", "400", "--no-plot")


def test_plan_likert5_json_null_size_and_power(capsys):
    code, out, _ = run_cli(capsys, *PLAN, "--scale", "likert5", "--delta", "0", "--rho", "0.3", "--json")
    assert code == 0
    doc = json.loads(out)
    p = doc["params"]
    assert p["scale"] == "likert5" and p["points"] == 5 and p["tau"] == 1.0 and p["rho"] == 0.3
    assert p["cuts"] == pytest.approx([np.log(c / (5 - c)) for c in range(1, 5)])
    assert "mean score A - mean score B" in doc["delta_meaning"]
    power = doc["results"][0]["power"]
    # at delta = 0 the sign-flip test keeps its size (99% Clopper-Pearson interval reaches 0.05 or lies below),
    # the sign test over personas does not (rho = 0.3)
    lo = stats.binomtest(round(power["sign_flip"] * 400), 400).proportion_ci(0.99).low
    assert lo <= 0.05
    assert power["sign"] > 0.15
    assert any("INVALID" in w for w in doc["warnings"])
    code, out, _ = run_cli(capsys, *PLAN, "--scale", "likert5", "--delta", "1.0", "--rho", "0.3", "--json",
                           "--tau", "0.5", "--cuts", "-2,-1,1,2")
    doc = json.loads(out)
    assert code == 0 and doc["params"]["cuts"] == [-2.0, -1.0, 1.0, 2.0] and doc["params"]["tau"] == 0.5
    assert doc["results"][0]["power"]["sign_flip"] > 0.5


def test_plan_text_output_names_the_scale(capsys):
    code, out, _ = run_cli(capsys, *PLAN, "--scale", "rating0-10", "--delta", "0.5")
    assert code == 0 and "rating0-10: tau=1" in out
    assert "tau=1" in out and "latent logit" in out


@pytest.mark.parametrize(("args", "words"), [
    (("--scale", "likert"), "binary, likertK"),
    (("--scale", "stars5"), "binary, likertK"),
    (("--scale", "likert5", "--mu", "0.3"), "--mu and --kappa"),
    (("--tau", "1"), "--tau and --cuts"),
    (("--scale", "likert5", "--cuts", "0,1"), "cuts"),
    (("--scale", "likert5", "--cuts", "a,b,c,d"), "--cuts"),
    (("--scale", "likert5", "--cuts", "2,1,0,-1"), "increasing"),
    (("--scale", "likert5", "--tau", "-1"), "tau"),
    (("--scale", "likert5", "--from-estimate", "est.json"), "--from-estimate"),
    (("--scale", "likert5", "--from-table", "ratings.csv"), "--message"),
])
def test_plan_bad_rating_inputs_exit_2(capsys, args, words):
    code, out, err = run_cli(capsys, *PLAN, "--delta", "0.3", *args)
    assert code == 2 and words in err and "Traceback" not in err
    code, out, _ = run_cli(capsys, *PLAN, "--delta", "0.3", "--json", *args)
    assert code == 2 and words in json.loads(out)["error"]


def test_binary_plan_is_unchanged_by_the_scale_option():
    """The default scale plans with the Beta-logit model exactly as before: same params keys and the
    same power as estimate_power called with the binary parameters directly."""
    res = survey.plan(survey.BinaryPlan(0.4), designs=["20,10,3"], simulations=200)
    doc = res.to_dict()
    assert set(doc["params"]) == {"mu", "kappa", "sigma", "rho", "delta", "source"}
    direct = estimate_power(BinaryPower(make_params(delta=0.4)), [SurveySize("20,10,3", 1200, 20, 10, 3)], 200)
    assert dict(res.results[0].power) == dict(direct[0].power)
    rating = survey.plan(survey.RatingPlan(0.4, scale="likert5", tau=0.8), designs=["20,10,3"], simulations=200)
    assert rating.params == make_ordinal_params(points=5, tau=0.8, delta=0.4, name="likert5")
    with pytest.raises(SurveyError, match="sequential"):
        survey.plan(survey.RatingPlan(0.4, scale="likert5"), designs=["20,10,3"], simulations=200,
                    sequential={"method": "group", "looks": 2})


def test_simulate_rating_table(capsys, tmp_path):
    out_file = tmp_path / "r.csv"
    code, out, _ = run_cli(capsys, "simulate", "--scale", "likert0-4", "--personas", "6", "--perturbations", "3",
                           "--replicates", "4", "--delta", "0.5", "--seed", "1", "--out", out_file, "--json")
    assert code == 0
    info = json.loads(out)
    assert info["scale"] == "likert0-4" and info["rows"] == 6 * 3 * 4 * 2
    assert "scores higher" in info["delta"]["meaning"]
    df = pd.read_csv(out_file)
    assert df["answer"].between(0, 4).all() and (df["scale"] == "likert0-4").all()
    assert df["answer"].nunique() > 2
    code, out, err = run_cli(capsys, "simulate", "--scale", "text", "--out", tmp_path / "t.csv")
    assert code == 2 and "binary, likertK" in err
    code, out, err = run_cli(capsys, "simulate", "--kappa", "3", "--scale", "likert5", "--out", tmp_path / "t.csv")
    assert code == 2 and "mu and kappa" in err


def test_simulate_binary_json_is_unchanged(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "simulate", "--personas", "4", "--perturbations", "2", "--replicates", "2",
                           "--seed", "3", "--out", tmp_path / "b.csv", "--json")
    assert code == 0
    assert set(json.loads(out)) == {"out", "rows", "personas", "perturbations", "replicates", "delta"}
    df = pd.read_csv(tmp_path / "b.csv")
    expected = survey.simulate(4, 2, 2, seed=3)
    assert list(df.columns) == list(expected.columns) and (df["answer"].to_numpy() == expected["answer"]).all()


def test_plan_from_a_rating_table(capsys, tmp_path):
    table = tmp_path / "ratings.csv"
    code, _, _ = run_cli(capsys, "simulate", "--scale", "likert5", "--personas", "50", "--perturbations", "20",
                         "--replicates", "5", "--sigma", "1", "--rho", "0.5", "--seed", "4", "--out", table)
    assert code == 0
    code, out, _ = run_cli(capsys, *PLAN, "--scale", "likert5", "--from-table", table, "--message", "A",
                           "--delta", "0.3", "--rho", "0.2", "--json")
    assert code == 0
    p = json.loads(out)["params"]
    assert "ordinal moments" in p["source"] and p["rho"] == 0.2  # a flag overrides the fitted value
    assert 0.5 < p["tau"] < 1.6 and 0.5 < p["sigma"] < 1.5 and len(p["cuts"]) == 4
    code, _, err = run_cli(capsys, *PLAN, "--scale", "likert7", "--from-table", table, "--message", "A",
                           "--delta", "0.3")
    assert code == 2 and "on scale likert5" in err
