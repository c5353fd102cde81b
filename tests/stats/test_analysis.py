"""The library calls behind `survey analyze | estimate | plan | validate`: analyze, estimate, plan, validate."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from survey import analyze, estimate, validate
from survey.errors import SurveyError
from survey.kinds.binary.power import BinaryPlan
from survey.stats.beta_logit import simulate
from survey.stats.beta_logit_estimate import fit_beta_logit as estimate_one
from survey.stats.comparison import compare_messages
from survey.stats.planning import PlanSource, load_params, plan


@pytest.fixture(scope="module")
def two_models():
    one = simulate(12, 6, 2, delta=0.8, seed=1)
    mute = one.assign(model="mute", answer=pd.NA)  # no valid answer: left out, not fatal
    return pd.concat([one, simulate(12, 6, 2, seed=2).assign(model="other"), mute], ignore_index=True)


def test_analyze_is_compare_messages_per_model_with_the_left_out_ones(two_models):
    res = analyze(two_models, flips=999, seed=3)
    assert list(res) == ["simulated", "other"] and "'mute'" in res.left_out[0]
    for model, c in res.items():
        ref = compare_messages(two_models, model, "A", "B", n_resamples=999, seed=3)
        assert c.to_dict() == ref.to_dict()
    assert res["simulated"].permutation.pvalue == res["simulated"].sign_flip.pvalue  # the documented example
    doc = json.loads(json.dumps(res.to_dict()))
    assert [r["model"] for r in doc["results"]] == ["simulated", "other"] and doc["left_out"] == res.left_out
    assert list(analyze(two_models, "B", models=["other"])) == ["other"]
    assert analyze(two_models, b="A")["other"].a == "B"


@pytest.mark.parametrize("kwargs, needle", [
    ({"a": "Z"}, "message 'Z' is not in the table"),
    ({"models": ["nope"]}, "model 'nope' is not in the table"),
    ({"flips": 0}, "flips"),
    ({"confidence": 1.5}, "confidence"),
    ({"alternative": "up"}, "alternative"),
    ({"models": ["mute"]}, "no perturbation pair"),
])
def test_analyze_user_errors(two_models, kwargs, needle):
    with pytest.raises(SurveyError, match=needle):
        analyze(two_models, **kwargs)


def test_estimate_every_model_or_one(two_models):
    res = estimate(two_models, "A", bootstrap=0)
    assert list(res) == ["simulated", "other"] and res.left_out[0].startswith("model 'mute'")
    ref = estimate_one(two_models, "other", "A", bootstrap=0, method="moments")  # the default of estimate
    assert res["other"].to_dict() == ref.to_dict()
    row = res.to_dict()["results"][1]
    assert (row["model"], row["message"], row["kappa"]) == ("other", "A", ref.kappa)
    assert list(estimate(two_models, "A", "other", bootstrap=0)) == ["other"]
    with pytest.raises(SurveyError, match="bootstrap"):
        estimate(two_models, "A", bootstrap=-1)
    with pytest.raises(SurveyError, match="message 'Z' is not in the table"):
        estimate(two_models, "Z")


def test_plan_parameters_from_an_estimate_in_memory_or_on_disk(tmp_path, two_models):
    est = estimate(two_models, "A", "other", bootstrap=0)
    want = {p: float(getattr(est["other"], p)) for p in ("mu", "kappa", "sigma", "rho")}
    assert load_params(from_estimate=est["other"])[0] == want
    assert load_params(from_estimate=est)[0] == want
    path = tmp_path / "est.json"
    path.write_text(json.dumps(est.to_dict()))
    values, source = load_params(from_estimate=str(path))
    assert values == pytest.approx(want) and source.startswith(str(path))
    assert load_params(from_table=two_models, model="other", message="A")[0] == want
    with pytest.raises(SurveyError, match="several models"):
        load_params(from_table=two_models, message="A")
    with pytest.raises(SurveyError, match="not both"):
        load_params(from_estimate=est, from_table=two_models)
    res = plan(BinaryPlan(0.3, sigma=0.5), source=PlanSource(from_estimate=est), designs=[(4, 6, 2)], simulations=20)
    assert res.params.sigma == 0.5 and res.params.kappa == pytest.approx(want["kappa"])  # a flag overrides


def test_plan_result_is_the_json_of_survey_plan():
    res = plan(BinaryPlan(1.0, rho=0.0), strategies=["1:4:1"], budgets=[300, 600], simulations=40, target_power=0.3)
    doc = res.to_dict()
    assert [r["budget"] for r in doc["results"]] == [300, 600] and doc["plot"] is None
    assert doc["params"]["source"] == "given" and not any("INVALID" in w for w in doc["warnings"])  # rho = 0
    assert doc["best"] == res.best and doc["cheapest"] == res.cheapest
    with pytest.raises(SurveyError, match="simulations"):
        plan(BinaryPlan(0.5), simulations=3)


def test_validate_every_model_and_its_errors(two_models):
    ok = two_models[two_models["model"] != "mute"]
    res = validate(ok, message="A", configs=["6,3,2"], draws=10, source="t.csv")
    doc = res.to_dict()
    assert list(res.by_model) == ["simulated", "other"] and doc["table"] == "t.csv"
    assert [r["model"] for r in doc["results"]] == ["simulated", "other"] and doc["condition"] == "null"
    assert validate(ok, a="A", b="B", model="other", configs=[(6, 3, 2)], draws=10).condition == "alternative"
    for kwargs, needle in (({}, "`message=`"), ({"message": "A", "a": "A", "b": "B"}, "not both"),
                           ({"message": "Z"}, "not in"), ({"message": "A", "draws": 0}, "draws"),
                           ({"message": "A", "model": "nope"}, "model 'nope'")):
        with pytest.raises(SurveyError, match=needle):
            validate(ok, **kwargs)
