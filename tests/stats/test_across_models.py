"""Across models: heterogeneity test (size by simulation, exactness), per-model summaries, the flag,
the plot and `survey compare`."""

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from multimodel import simulate_differences, simulate_models
from scipy import stats

from survey.data.table import validate_table
from survey.errors import SurveyError
from survey.stats import compare_messages, sign_flip_test
from survey.stats.across_models import compare_models
from survey.stats.beta_logit_estimate import fit_beta_logit
from survey.stats.heterogeneity import sign_flip_heterogeneity, welch_heterogeneity

ALPHA = 0.05
SAME = [dict(mu=0.5, sigma=1.0, rho=0.5, delta=0.5)] * 3  # equal effects, nonzero
HETERO = [dict(mu=0.15, sigma=0.5, rho=0.5), dict(mu=0.5, sigma=1.0, rho=0.5),
          dict(mu=0.5, sigma=2.5, rho=0.8)]  # equal (zero) effects, very unequal spreads
DIFFERENT = [dict(delta=0.0), dict(delta=0.0), dict(delta=0.8)]


def rejection_rate(params, reps, seed, m=12, lam=0.7):
    rng = np.random.default_rng(seed)
    p = [sign_flip_heterogeneity(simulate_differences(params, 30, m, 3, lam, rng)).pvalue for _ in range(reps)]
    return float(np.mean(np.array(p) <= ALPHA))


@pytest.mark.parametrize("params", [SAME, HETERO], ids=["equal-models", "heteroscedastic-models"])
def test_heterogeneity_size_within_binomial_ci_of_alpha(params):
    # shared perturbation shifts (lam = 0.7 across models, rho >= 0.5 across personas) + model noise
    reps = 2000
    rate = rejection_rate(params, reps, seed=11)
    ci = stats.binomtest(int(round(ALPHA * reps)), reps).proportion_ci(0.99)
    lo, hi = stats.binomtest(int(round(rate * reps)), reps).proportion_ci(0.99)
    assert lo <= ALPHA <= hi, (rate, ci)


def test_heterogeneity_power_under_different_effects():
    assert rejection_rate(DIFFERENT, 200, seed=12) > 0.8


def test_label_permutation_would_be_oversized_where_sign_flips_are_not():
    # The design choice documented in heterogeneity.py: permuting model labels within a pair
    # assumes identically distributed models; with unequal spreads it rejects too often.
    rng = np.random.default_rng(5)
    params = [dict(mu=0.05, sigma=0.3, rho=0.5), dict(mu=0.1, sigma=0.5, rho=0.5),
              dict(mu=0.5, sigma=2.0, rho=0.8), dict(mu=0.5, sigma=2.5, rho=0.9)]
    flip, perm = [], []
    for _ in range(300):
        D = simulate_differences(params, 30, 12, 3, 0.7, rng)
        flip.append(sign_flip_heterogeneity(D).pvalue)
        T = D.mean(axis=1)
        obs = T.var()
        idx = np.argsort(rng.random((199, *D.shape)), axis=1)
        Tp = np.take_along_axis(D[None], idx, axis=1).mean(axis=2)
        perm.append((1 + np.sum(Tp.var(axis=1) >= obs - 1e-12)) / 200)
    assert np.mean(np.array(flip) <= ALPHA) < 0.085
    assert np.mean(np.array(perm) <= ALPHA) > np.mean(np.array(flip) <= ALPHA)


def test_two_models_equal_the_sign_flip_test_on_their_differences():
    rng = np.random.default_rng(3)
    D = rng.normal(0.05, 0.1, size=(2, 11))
    res = sign_flip_heterogeneity(D, ["x", "y"])
    ref = sign_flip_test(D[0] - D[1])
    assert res.exact and res.pvalue == pytest.approx(ref.pvalue, abs=1e-12)
    assert res.statistic == pytest.approx(np.var(D.mean(axis=1), ddof=1))
    assert res.effects == pytest.approx({"x": D[0].mean(), "y": D[1].mean()})


def test_ties_from_fractions_count_as_ties():
    # theta-hats are fractions of r: flips that reach the observed statistic in exact arithmetic but
    # not in floating point (0.1 + 0.2 != 0.3) must count, as in sign_flip_test
    d = np.array([0.1, 0.2, 0.3, -0.3, 0.1, 0.2, 0.7, 0.4, 0.3])
    res = sign_flip_heterogeneity(np.stack([d, np.zeros_like(d)]))
    assert res.exact and res.pvalue == sign_flip_test(d).pvalue


def test_monte_carlo_pvalue_counts_the_observed_statistic():
    # two models whose differences all favour the first: only eps = +-1 reach the observed spread,
    # so no random flip does (2^-29) and p = (1 + 0) / (1 + B)
    D = np.stack([np.linspace(0.1, 0.4, 30), np.zeros(30)])
    res = sign_flip_heterogeneity(D, n_resamples=999, seed=1)
    assert not res.exact and res.pvalue == 1 / 1000


def test_monte_carlo_agrees_with_exact():
    rng = np.random.default_rng(4)
    D = rng.normal(0, 0.1, size=(3, 14)) + np.array([[0.0], [0.02], [0.06]])
    ex = sign_flip_heterogeneity(D, method="exact")
    mc = sign_flip_heterogeneity(D, method="monte-carlo", n_resamples=20000, seed=1)
    assert ex.exact and not mc.exact
    assert mc.pvalue == pytest.approx(ex.pvalue, abs=0.01)


def test_identical_models_give_p_one_and_errors_are_clear():
    D = np.tile(np.linspace(-0.1, 0.2, 6), (3, 1))
    assert sign_flip_heterogeneity(D).pvalue == 1.0
    with pytest.raises(SurveyError, match="at least 2 models"):
        sign_flip_heterogeneity(D[:1])
    with pytest.raises(SurveyError, match="every model's difference"):
        sign_flip_heterogeneity(np.where(D > 0.15, np.nan, D))


def test_welch_matches_statsmodels():
    from statsmodels.stats.oneway import anova_oneway

    rng = np.random.default_rng(6)
    groups = {"a": rng.normal(0, 0.05, 9), "b": rng.normal(0.03, 0.2, 14), "c": rng.normal(0.1, 0.1, 6)}
    res = welch_heterogeneity(groups)
    ref = anova_oneway(list(groups.values()), use_var="unequal")
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-8)
    assert res.df == pytest.approx((ref.df_num, ref.df_denom))


@pytest.fixture(scope="module")
def opposite():
    params = {"mistral-8b": dict(delta=-1.2), "qwen-8b": dict(delta=1.2), "qwen-14b": dict(delta=0.0, mu=0.3)}
    return validate_table(simulate_models(params, n=25, m=10, r=3, lam=0.7, seed=1))


@pytest.fixture(scope="module")
def agreeing():
    params = {"m1": dict(delta=-1.2), "m2": dict(delta=-1.2), "m3": dict(delta=-1.2)}
    return validate_table(simulate_models(params, n=25, m=10, r=3, lam=0.7, seed=2))


def test_opposite_directions_raise_the_flag(opposite):
    res = compare_models(opposite, "A", "B", sizes={"mistral-8b": 8e9, "qwen-8b": 8.2e9})
    assert res.direction.prefer_a == ["mistral-8b"] and res.direction.prefer_b == ["qwen-8b"]
    assert res.depends_on_model and res.direction.conflict
    assert any("disagree in sign" in r for r in res.reasons)
    assert res.heterogeneity.shared and res.heterogeneity.pvalue <= ALPHA
    assert res.summary.startswith("The conclusion depends on the model")
    assert [s.model for s in res.by_size()] == ["mistral-8b", "qwen-8b", "qwen-14b"]
    json.dumps(res.to_dict(), allow_nan=False)


def test_agreeing_models_do_not(agreeing):
    res = compare_models(agreeing, "A", "B", adjust="holm")
    assert not res.depends_on_model and res.reasons == []
    assert res.direction.prefer_a == ["m1", "m2", "m3"]
    assert res.summary.startswith("All 3 models significantly prefer A")
    assert res.heterogeneity.pvalue > ALPHA


def test_per_model_fields_match_the_single_model_analyses(opposite):
    res = compare_models(opposite, "A", "B", adjust="holm")
    from statsmodels.stats.multitest import multipletests

    raw = [s.pvalues["permutation"] for s in res.models]
    assert [s.pvalue_adjusted for s in res.models] == pytest.approx(multipletests(raw, method="holm")[1])
    for s in res.models:
        c = compare_messages(opposite, s.model, "A", "B")
        assert s.effect.estimate == c.effect.estimate and s.effect.ci == c.effect.ci
        assert s.pvalues == {"permutation": c.permutation.pvalue, "unpaired": c.unpaired.pvalue,
                             "sign": c.sign.pvalue, "wilcoxon": c.wilcoxon.pvalue}
        est = fit_beta_logit(opposite, s.model, "A")  # the one default: the moment estimator
        assert (s.fit.mu, s.fit.kappa, s.fit.sigma, s.fit.rho) == (est.mu, est.kappa, est.sigma, est.rho)
        assert (s.n_personas, s.n_paired, s.replicates, s.n_queries) == (25, 10, 3, 2 * 25 * 10 * 3)
    row = res.to_dict()["models"][0]
    assert set(row["fit"]) >= {"mu", "kappa", "sigma", "rho", "message"} and row["fit"]["message"] == "A"


def test_invalid_rate_and_degenerate_model():
    df = simulate_models({"ok": {}, "mute": {}}, n=12, m=6, r=2, seed=3)
    df.loc[df["model"] == "mute", "answer"] = 0  # always "No": nothing to fit, effect exactly 0
    df.loc[df.index[:10], "answer"] = pd.NA  # 10 invalid answers for model "ok"
    res = compare_models(validate_table(df), "A", "B")
    ok, mute = res.models
    assert ok.n_invalid == 10 and ok.invalid_rate == pytest.approx(10 / (2 * 12 * 6 * 2))
    assert mute.effect.estimate == 0 and not mute.significant
    json.dumps(res.to_dict(), allow_nan=False)


def test_models_with_their_own_perturbations_fall_back_to_welch():
    df = simulate_models({"x": dict(delta=0.0), "y": dict(delta=0.0)}, n=15, m=8, r=2, seed=4)
    df.loc[df["model"] == "y", "perturbation"] += "-y"  # y paraphrased the messages on its own
    res = compare_models(validate_table(df), "A", "B")
    h = res.heterogeneity
    assert not h.shared and h.method.startswith("welch") and "independent" in h.note
    assert h.n_pairs == {"x": 8, "y": 8}


def test_partly_shared_pairs_are_reported():
    df = simulate_models({"x": {}, "y": {}}, n=15, m=8, r=2, seed=5)
    drop = (df["model"] == "y") & df["perturbation"].isin(["A-08", "B-08"])
    res = compare_models(validate_table(df[~drop]), "A", "B")
    assert res.heterogeneity.shared and res.heterogeneity.n_pairs == 7
    assert "left out: {'x': 1}" in res.heterogeneity.note


def test_input_errors(opposite):
    with pytest.raises(SurveyError, match="nope"):
        compare_models(opposite, "A", "B", sizes={"nope": 1e9})
    with pytest.raises(SurveyError, match="positive"):
        compare_models(opposite, "A", "B", sizes={"qwen-8b": -1.0})
    with pytest.raises(SurveyError, match="alpha"):
        compare_models(opposite, "A", "B", alpha=1.5)
    with pytest.raises(SurveyError, match="fit"):
        compare_models(opposite, "A", "B", fit="c")


def test_single_model_has_no_heterogeneity(agreeing):
    res = compare_models(agreeing, "A", "B", models=["m1"])
    assert res.heterogeneity is None and not res.depends_on_model
    assert "nothing to compare" in res.summary


def _ink(fig) -> float:
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(float)
    return float((img < 250).mean())


@pytest.mark.parametrize("sizes", [None, {"mistral-8b": 8e9, "qwen-8b": 8.2e9, "qwen-14b": 14e9}])
def test_plot(opposite, sizes):
    from matplotlib.figure import Figure

    from survey.plots.models import format_size, model_effects

    res = compare_models(opposite, "A", "B", sizes=sizes)
    fig = model_effects(res)
    assert isinstance(fig, Figure) and _ink(fig) > 0.01
    ax = fig.axes[0]
    assert len(ax.lines) >= 3  # zero line + one marker per model at least
    if sizes:
        assert ax.get_xscale() == "log"
    else:
        assert [t.get_text() for t in ax.get_xticklabels()] == ["mistral-8b", "qwen-8b", "qwen-14b"]
    assert format_size(1.35e8) == "135M" and format_size(7e9) == "7B"


def run(*args):
    return subprocess.run([sys.executable, "-m", "survey", *args], capture_output=True, text=True)


def test_cli_compare(opposite, tmp_path):
    path = tmp_path / "t.csv"
    opposite.to_csv(path, index=False)
    png = tmp_path / "effects.png"
    proc = run("compare", str(path), "--sizes", "mistral-8b=8B,qwen-8b=8.2e9", "--plot", str(png), "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["models"]["depends_on_model"] is True
    assert out["models"]["models"][0]["size"] == 8e9
    assert out["agreement"]["fleiss_kappa"] is not None and len(out["agreement"]["pairs"]) == 3
    assert out["messages"] == [] and png.stat().st_size > 1000
    human = run("compare", str(path))
    assert human.returncode == 0 and "CONCLUSION DEPENDS ON THE MODEL" in human.stdout
    assert "Fleiss' kappa" in human.stdout
    bad = run("compare", str(path), "--sizes", "mistral-8b:8B")
    assert bad.returncode == 2 and bad.stderr.startswith("error: --sizes") and "Traceback" not in bad.stderr


def test_cli_compare_one_message_is_a_user_error(opposite, tmp_path):
    path = tmp_path / "t.csv"
    opposite[opposite["message"] == opposite["message"].iloc[0]].to_csv(path, index=False)
    proc = run("compare", str(path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "one message" in proc.stderr


def test_parse_sizes():
    from survey.cli.compare import parse_sizes

    assert parse_sizes("a=3e9, b=8B,c:v1=135M,d=1.5k") == {"a": 3e9, "b": 8e9, "c:v1": 1.35e8, "d": 1500.0}
    assert parse_sizes(None) is None
    for bad in ("a", "a=", "=3", "a=3X", "a=0"):
        with pytest.raises(SurveyError):
            parse_sizes(bad)
