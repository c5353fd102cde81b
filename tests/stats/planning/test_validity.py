"""survey validate: null split and sub-sampling, Clopper-Pearson intervals, agreement with analyze."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from statsmodels.stats.proportion import proportion_confint

from survey.cli import cli, main
from survey.errors import SurveyError
from survey.stats.beta_logit import simulate
from survey.stats.comparison import compare_messages
from survey.stats.planning.validity import (
    VALIDITY_TESTS,
    _draw_thetas,
    ecdf_at,
    fit_configs,
    rejection_rate,
    responses,
    subsample_pvalues,
    validity_study,
)


@pytest.fixture(scope="module")
def null_table():
    # rho = 0.3: a shared perturbation shift, the regime where sign and Wilcoxon break.
    return simulate(60, 40, 5, mu=0.5, kappa=4, sigma=1.0, rho=0.3, delta=0.0, seed=3)


def test_clopper_pearson_matches_statsmodels():
    for k, n in ((0, 200), (7, 200), (100, 200), (200, 200), (3, 17)):
        res = rejection_rate(np.r_[np.zeros(k), np.ones(n - k)], alpha=0.05)
        lo, hi = proportion_confint(k, n, alpha=0.05, method="beta")
        assert res.ci == pytest.approx((lo, hi), abs=1e-9)
        assert res.rate == k / n and res.rejections == k and res.draws == n


def test_verdicts():
    assert rejection_rate(np.r_[np.zeros(40), np.ones(160)], 0.05).verdict == "oversized"
    assert rejection_rate(np.ones(200), 0.05).verdict == "conservative"
    assert rejection_rate(np.r_[np.zeros(10), np.ones(190)], 0.05).verdict == "ok"
    assert rejection_rate(np.ones(200), 0.05, null=False).verdict == "power"


def test_null_split_on_simulated_table_flags_sign_test_not_permutation(null_table):
    """Table 5 of Helm & Priebe (2026) on simulated data: at rho = 0.3 the sign test is oversized, the
    permutation test is not (alpha inside its interval, or the interval below alpha)."""
    res = validity_study(null_table, "simulated", "A", configs=[(40, 10, 3), (50, 20, 5)], draws=200, seed=0)
    for r in res:
        assert r.rates["sign"].verdict == "oversized", r.rates["sign"]
        assert r.rates["wilcoxon"].verdict == "oversized"
        assert r.rates["permutation"].verdict in ("ok", "conservative")
        assert r.rates["permutation"].ci[0] <= 0.05
    # The larger n, the worse the sign test (the paper's observation).
    assert res[1].rates["sign"].rate > 0.25


def test_alternative_gives_power_that_grows_with_m():
    df = simulate(40, 40, 4, rho=0.3, sigma=1.0, delta=1.2, seed=8)
    res = validity_study(df, "simulated", "A", "B", configs=[(20, 4, 4), (20, 30, 4)], draws=100, seed=1)
    assert all(x.verdict == "power" for r in res for x in r.rates.values())
    assert res[1].rates["permutation"].rate > res[0].rates["permutation"].rate + 0.2


def test_subsample_of_everything_agrees_with_compare_messages():
    """A sub-sample that keeps every persona, perturbation and replicate is the whole table: the
    sign, Wilcoxon and unpaired p-values must equal survey analyze's (r = 2 keeps sums exact)."""
    df = simulate(12, 6, 2, rho=0.3, delta=0.4, seed=5)
    cmp = compare_messages(df, "simulated", "A", "B")
    ra, rb = responses(df, "simulated", "A"), responses(df, "simulated", "B")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pv = subsample_pvalues(ra.y, rb.y, (12, 6, 2), draws=5, seed=0)
    assert np.allclose(pv["sign"], cmp.sign.pvalue, rtol=1e-12)
    assert np.allclose(pv["wilcoxon"], cmp.wilcoxon.pvalue, rtol=1e-12)
    assert np.allclose(pv["unpaired"], cmp.unpaired.pvalue, rtol=1e-9)
    assert set(pv) == set(VALIDITY_TESTS)


def test_invalid_answers_and_missing_rows_are_handled():
    df = simulate(20, 12, 3, rho=0.3, seed=2)
    df["answer"] = df["answer"].astype("Int8")
    rng = np.random.default_rng(0)
    df.loc[rng.random(len(df)) < 0.2, "answer"] = pd.NA
    df = df.drop(index=df.index[rng.random(len(df)) < 0.1])
    resp = responses(df, "simulated", "A")
    assert np.isnan(resp.y).mean() > 0.2
    res = validity_study(df, "simulated", "A", configs=[(10, 5, 2)], draws=40, seed=0)
    for test in VALIDITY_TESTS:
        p = res[0].pvalues[test]
        assert np.all((p >= 0) & (p <= 1))


def test_draws_where_a_side_has_no_valid_answer_give_p_one():
    # 90% invalid answers and one persona x one replicate per cell: many draws have a half with no
    # valid answer at all. Such a draw carries no evidence (p = 1 for every test); it must not abort
    # the study (the unpaired test used to raise on it).
    df = simulate(10, 8, 2, seed=1)
    df.loc[np.random.default_rng(0).random(len(df)) < 0.9, "answer"] = pd.NA
    ra = responses(df, "simulated", "A")
    pv = subsample_pvalues(ra.y, None, (2, 2, 1), draws=100, seed=0)
    ta, tb = _null_thetas(ra.y, (2, 2, 1), draws=100, seed=0)  # the same draws
    empty = np.isnan(ta).all(axis=(1, 2)) | np.isnan(tb).all(axis=(1, 2))
    assert empty.sum() > 10
    for test in VALIDITY_TESTS:
        assert np.all(pv[test][empty] == 1.0), test
        assert np.all((pv[test] > 0) & (pv[test] <= 1)), test


def _null_thetas(y, config, draws, seed):
    """theta-hat of both halves of the null split, drawn as subsample_pvalues draws them."""
    return _draw_thetas(y, y, config, draws, np.random.default_rng(seed), null=True)


def test_null_split_halves_are_disjoint():
    # Perturbation j answers Yes with a rate that identifies it (j/8 for 8 replicates): every theta in
    # a draw names its perturbation, so the two halves' perturbation sets can be read off.
    P, M, R = 4, 10, 8
    y = np.zeros((P, M, R))
    for j in range(M):
        y[:, j, :j % R] = 1.0
    y[:, 8:, :] = np.nan  # perturbations 8 and 9 have no valid answer
    y[:, 9, 0] = 1.0  # perturbation 9: one valid Yes (theta 1), distinct from every other
    ta, tb = _null_thetas(y, (3, 5, 8), draws=50, seed=2)
    for s in range(50):
        a = {v for v in ta[s, 0] if not np.isnan(v)}
        b = {v for v in tb[s, 0] if not np.isnan(v)}
        assert not a & b, (s, a, b)
        assert len(a) + len(b) + np.isnan(ta[s, 0]).sum() + np.isnan(tb[s, 0]).sum() == 10


def test_configurations_are_checked_or_clipped():
    lim = (30, 8, 4)
    with pytest.raises(SurveyError, match="does not fit"):
        fit_configs([(10, 9, 2)], lim, clip=False)
    with pytest.raises(SurveyError, match="n >= 2"):
        fit_configs([(1, 5, 2)], lim, clip=False)
    used = fit_configs([(50, 20, 5), (50, 20, 10), (10, 5, 2)], lim, clip=True)
    assert used == [((50, 20, 5), (30, 8, 4)), ((10, 5, 2), (10, 5, 2))]


def test_ecdf_at():
    assert ecdf_at(np.array([0.01, 0.2, 0.6, 1.0]), (0.05, 0.5, 1.0)) == {"0.05": 0.25, "0.5": 0.5, "1": 1.0}


def test_validate_cli_json_table_and_plot(tmp_path, null_table):
    table = tmp_path / "null.csv"
    null_table.to_csv(table, index=False)
    plot = tmp_path / "v.png"
    res = CliRunner().invoke(cli, ["validate", str(table), "--message", "A", "--config", "40,10,3",
                                   "--draws", "100", "--plot", str(plot), "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    assert doc["condition"] == "null" and plot.stat().st_size > 10_000
    (row,) = doc["results"]
    assert (row["n"], row["m"], row["r"]) == (40, 10, 3)
    assert set(row["tests"]) == {*VALIDITY_TESTS, "permutation"}  # with the deprecated alias of sign_flip
    assert row["tests"]["permutation"] == row["tests"]["sign_flip"]
    assert row["tests"]["sign"]["verdict"] == "oversized"
    text = CliRunner().invoke(cli, ["validate", str(table), "--a", "A", "--b", "B", "--config", "20,5,2",
                                    "--draws", "30", "--no-plot"])
    assert text.exit_code == 0 and "power (alternative)" in text.output


@pytest.mark.parametrize("args, message", [
    ([], "--message"),
    (["--message", "A", "--a", "A", "--b", "B"], "not both"),
    (["--message", "Z"], "not in"),
    (["--message", "A", "--config", "10,30,2"], "does not fit"),
    (["--message", "A", "--draws", "0"], "draws"),
])
def test_validate_user_errors(tmp_path, null_table, args, message, capsys):
    table = tmp_path / "null.csv"
    null_table.to_csv(table, index=False)
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(table), "--no-plot", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
