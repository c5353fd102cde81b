"""Results say what their numbers mean: the heterogeneity test's null (equal effects on the probability
scale) wherever "conclusion depends on the model" is shown, and the known downward bias of the
fitted rho next to every rho-hat."""

import json

import pytest
from click.testing import CliRunner
from multimodel import simulate_models

from survey import estimate
from survey.cli import cli
from survey.data.table import validate_table
from survey.stats.across_models import compare_models
from survey.stats.beta_logit import simulate
from survey.stats.beta_logit_estimate import RHO_BIAS_NOTE
from survey.stats.heterogeneity import HETEROGENEITY_NULL


@pytest.fixture(scope="module")
def opposite(tmp_path_factory):
    params = {"mistral-8b": dict(delta=-1.2), "qwen-8b": dict(delta=1.2), "qwen-14b": dict(delta=0.0, mu=0.3)}
    df = validate_table(simulate_models(params, n=25, m=10, r=3, lam=0.7, seed=1))
    path = tmp_path_factory.mktemp("opp") / "t.csv"
    df.to_csv(path, index=False)
    return df, path


def test_the_heterogeneity_null_is_stated_with_the_flag(opposite):
    df, path = opposite
    assert "probability scale" in HETEROGENEITY_NULL
    res = compare_models(df, "A", "B", n_resamples=199)
    assert res.depends_on_model
    d = res.to_dict()
    assert d["heterogeneity"]["null"] == HETEROGENEITY_NULL and d["heterogeneity_null"] == HETEROGENEITY_NULL
    out = CliRunner().invoke(cli, ["compare", str(path), "--flips", "199", "--fit", "none"]).output
    flag = out.index("CONCLUSION DEPENDS ON THE MODEL")
    assert "null: " + HETEROGENEITY_NULL in " ".join(out[flag:].split())


def test_rho_hat_carries_its_bias_note(opposite, tmp_path):
    assert "biased downward" in RHO_BIAS_NOTE and "-0.17 at r = 5, sigma = 1, rho = 0.3" in RHO_BIAS_NOTE
    res = estimate(simulate(30, 8, 5, seed=2), "A", bootstrap=0, method="appendix-c")
    (r,) = res.values()
    assert r.to_dict()["rho_note"] == RHO_BIAS_NOTE
    path = tmp_path / "t.csv"
    simulate(30, 8, 5, seed=2).to_csv(path, index=False)
    out = " ".join(CliRunner().invoke(cli, ["estimate", str(path), "--message", "A", "--bootstrap", "0",
                                            "--method", "appendix-c"]).output.split())
    assert RHO_BIAS_NOTE in out
    df, table = opposite
    # `survey compare` fits by the one default estimator, as `survey estimate` and the report do, and says so
    from survey.stats.beta_logit_estimate import MOMENTS_NOTE

    out = " ".join(CliRunner().invoke(cli, ["compare", str(table), "--flips", "99"]).output.split())
    assert MOMENTS_NOTE in out and RHO_BIAS_NOTE not in out
    doc = json.loads(CliRunner().invoke(cli, ["compare", str(table), "--flips", "99", "--json"]).output)
    assert doc["models"]["models"][0]["fit"]["rho_note"] == MOMENTS_NOTE
