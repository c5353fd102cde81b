"""Ground truth: sign/Wilcoxon equal scipy on D_i from a table; validity and power by simulation."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from survey.data.table import validate_table
from survey.stats import compare_messages, effect_ci, sign_flip_test, sign_test, wilcoxon_test
from survey.stats.beta_logit import make_params, simulate, simulate_counts


def persona_differences_by_hand(df, a, b):
    theta = df.groupby(["message", "persona", "perturbation"])["answer"].mean()
    per_persona = theta.groupby(["message", "persona"]).mean().unstack("message")
    return (per_persona[a] - per_persona[b]).to_numpy(dtype=float)


def test_sign_and_wilcoxon_equal_scipy_on_table():
    df = validate_table(simulate(30, 6, 4, delta=0.4, seed=11))
    res = compare_messages(df, "simulated", "A", "B")
    # By hand in another summation order; rounding restores the exact ties of these fractions of r.
    d = np.round(persona_differences_by_hand(df, "A", "B"), 12)
    order = np.argsort(res.d_persona)
    assert np.allclose(np.sort(d), res.d_persona[order])
    nz = d[d != 0]
    assert res.sign.pvalue == pytest.approx(stats.binomtest(int((nz > 0).sum()), len(nz)).pvalue)
    assert res.wilcoxon.pvalue == pytest.approx(stats.wilcoxon(d).pvalue)
    for alt in ("greater", "less"):
        assert sign_test(d, alt).pvalue == pytest.approx(
            stats.binomtest(int((nz > 0).sum()), len(nz), alternative=alt).pvalue)
        assert wilcoxon_test(d, alt).pvalue == pytest.approx(stats.wilcoxon(d, alternative=alt).pvalue)


def test_paired_statistic_is_mean_of_perturbation_differences():
    df = validate_table(simulate(10, 5, 3, seed=2))
    res = compare_messages(df, "simulated", "A", "B")
    theta = df.groupby(["message", "perturbation", "persona"])["answer"].mean()
    d_bar = [theta["A"][f"A-0{j}"].mean() - theta["B"][f"B-0{j}"].mean() for j in range(1, 6)]
    assert res.permutation.statistic == pytest.approx(np.mean(d_bar))
    assert res.effect.estimate == pytest.approx(np.mean(d_bar))


def test_unequal_m_pairs_first_min_and_unpaired_uses_all():
    df = validate_table(simulate(8, 6, 2, m_b=4, seed=3))
    res = compare_messages(df, "simulated", "A", "B")
    assert res.n_paired == 4 and res.n_perturbations == {"A": 6, "B": 4}
    assert res.unpaired.n_resamples == 210  # C(10, 6): every perturbation relabelled
    # D-hat_i (sign and Wilcoxon) averages each message over ALL its perturbations (Helm & Priebe 2026)
    assert res.d_persona == pytest.approx(persona_differences_by_hand(df, "A", "B"), abs=1e-12)


def _cell_theta(df, msg):
    return df[df["message"] == msg].groupby(["persona", "perturbation"], sort=False)["answer"].mean().unstack()


def test_pairing_is_by_id_order_not_by_first_appearance():
    df = validate_table(simulate(6, 4, 2, delta=0.3, seed=12))
    # B's labels now sort in the reverse of their order in the table
    df["perturbation"] = df["perturbation"].replace({"B-01": "z", "B-02": "y", "B-03": "x", "B-04": "w"})
    ta, tb = _cell_theta(df, "A"), _cell_theta(df, "B")
    res = compare_messages(df, "simulated", "A", "B")
    assert res.pairs == list(zip([f"A-0{j}" for j in range(1, 5)], "wxyz", strict=True))
    expected = [(ta[f"A-0{j}"] - tb[b]).mean() for j, b in zip(range(1, 5), "wxyz", strict=True)]
    assert res.d_perturbation == pytest.approx(expected, abs=1e-12)
    # the table's order can still be asked for, as an explicit pairing
    given = list(zip([f"A-0{j}" for j in range(1, 5)], "zyxw", strict=True))
    res = compare_messages(df, "simulated", "A", "B", pairing=given)
    expected = [(ta[f"A-0{j}"] - tb[b]).mean() for j, b in zip(range(1, 5), "zyxw", strict=True)]
    assert res.d_perturbation == pytest.approx(expected, abs=1e-12)


def test_empty_cells_leave_pairs_and_means_that_need_them():
    df = validate_table(simulate(8, 5, 3, delta=0.3, seed=13))
    empty = [("A", "P001", "A-01"), ("B", "P002", "B-01"), ("B", "P003", "B-02"), ("A", "P003", "A-05")]
    for msg, persona, pert in empty:
        df.loc[(df["message"] == msg) & (df["persona"] == persona) & (df["perturbation"] == pert), "answer"] = pd.NA
    res = compare_messages(df, "simulated", "A", "B")
    assert res.empty_cells == {"A": 2, "B": 2}
    ta, tb = _cell_theta(df, "A"), _cell_theta(df, "B")
    # D-bar_j: mean over the personas with a valid answer in BOTH cells of pair j
    d_bar = [(ta[f"A-0{j}"] - tb[f"B-0{j}"]).dropna().mean() for j in range(1, 6)]
    assert res.d_perturbation == pytest.approx(d_bar, abs=1e-12)
    # D-hat_i: each message's mean over the persona's valid cells
    d_hat = (ta.mean(axis=1, skipna=True) - tb.mean(axis=1, skipna=True)).to_numpy()
    assert res.d_persona == pytest.approx(d_hat, abs=1e-12)


def _rejections(params, n, m, r, sims, seed, alpha=0.05):
    rng = np.random.default_rng(seed)
    ya, yb = simulate_counts(params, n, m, m, r, rng, size=(sims,))
    ta, tb = ya / r, yb / r
    perm = np.array([sign_flip_test((ta[s] - tb[s]).mean(axis=0)).pvalue for s in range(sims)])
    sign = np.array([sign_test(ta[s].mean(axis=1) - tb[s].mean(axis=1)).pvalue for s in range(sims)])
    return (perm <= alpha).mean(), (sign <= alpha).mean()


def test_validity_null_rho_03():
    """1000 null datasets; permutation inside the 99% binomial interval of .05; sign > .15."""
    sims = 1000
    params = make_params(mu=0.5, kappa=4, sigma=1.0, rho=0.3, delta=0.0)
    perm_rate, sign_rate = _rejections(params, 50, 10, 5, sims, seed=2024)
    lo, hi = stats.binom.ppf([0.005, 0.995], sims, 0.05) / sims
    assert lo <= perm_rate <= hi, (perm_rate, lo, hi)
    assert sign_rate > 0.15, sign_rate


def test_power_large_delta():
    params = make_params(mu=0.5, kappa=4, sigma=1.0, rho=0.3, delta=1.5)
    perm_rate, _ = _rejections(params, 50, 10, 5, 200, seed=7)
    assert perm_rate > 0.9


def test_effect_ci_matches_test_and_covers():
    rng = np.random.default_rng(0)
    # Consistency: 0 is outside the 95% CI exactly when the two-sided p-value is <= .05.
    for _ in range(30):
        d = rng.normal(rng.uniform(-0.1, 0.1), 0.1, rng.integers(6, 15))
        p = sign_flip_test(d).pvalue
        lo, hi = effect_ci(d).ci
        if abs(p - 0.05) > 1e-3:
            assert (p <= 0.05) == (not lo <= 0 <= hi), (p, lo, hi)
    # Coverage of the true centre of symmetric d_j, within the binomial error of 95%.
    hits = [(lambda c: c[0] <= 0.1 <= c[1])(effect_ci(rng.normal(0.1, 0.2, 12)).ci) for _ in range(300)]
    assert np.mean(hits) >= 0.92


@pytest.mark.parametrize("m", [8, 17, 21, 25, 30])
def test_effect_ci_ends_are_where_the_exact_test_starts_rejecting(m):
    # The test is exact up to m = 40; the interval must invert that same test, not an approximation
    # of it: just inside each end sign_flip_test does not reject, just outside it does.
    rng = np.random.default_rng(m)
    for _ in range(3):
        d = np.round(rng.normal(0.05, 0.2, m), 3)
        res = effect_ci(d)
        assert res.method == "sign-flip inversion (exact)"
        for end, out in ((res.ci[0], -2e-6), (res.ci[1], 2e-6)):
            assert sign_flip_test(d - end).pvalue > 0.05
            assert sign_flip_test(d - (end + out)).pvalue <= 0.05


def test_monte_carlo_effect_ci_counts_the_observed_flip():
    # With B random flips no p-value is below 1/(B + 1): at 99.5% confidence and B = 99 nothing can
    # be rejected, so the interval is the bounds (without the + 1 it would be finite).
    d = np.random.default_rng(3).normal(0.1, 0.2, 35)
    assert effect_ci(d, confidence=0.995, n_resamples=99, bounds=(-1, 1)).ci == (-1.0, 1.0)
    res = effect_ci(d, confidence=0.95, n_resamples=999)
    assert "999 random flips" in res.method and res.ci[0] < d.mean() < res.ci[1]


def test_effect_ci_with_too_few_perturbations_is_the_whole_range():
    assert effect_ci([0.2, 0.3, 0.1], bounds=(-1, 1)).ci == (-1.0, 1.0)


def test_no_valid_pair_is_a_clear_error():
    df = validate_table(simulate(4, 3, 2, seed=1))
    df.loc[df["message"] == "B", "answer"] = pd.NA
    from survey.errors import TableError
    with pytest.raises(TableError, match="no perturbation pair"):
        compare_messages(df, "simulated", "A", "B")


def test_probabilities_replace_answer_rates():
    df = validate_table(simulate(12, 5, 2, delta=0.5, seed=8))
    res_p = compare_messages(df, "simulated", "A", "B", probabilities=True)
    truth = df.groupby(["message", "perturbation"])["p_yes"].mean()
    expected = truth["A"].to_numpy() - truth["B"].to_numpy()
    assert res_p.effect.estimate == pytest.approx(expected.mean())
    from survey.errors import TableError
    with pytest.raises(TableError, match="p_yes"):
        compare_messages(df.drop(columns=["p_yes"]), "simulated", "A", "B", probabilities=True)


def test_equal_differences_tie_exactly():
    # 1/3 - 1/6 and 1/2 - 1/3 are both 1/6 in exact arithmetic but differ in floating point.
    from survey.data.table import CellCounts
    from survey.stats.comparison import paired_differences

    yes_a, yes_b = np.array([[1], [3]]), np.array([[1], [2]])
    ca = CellCounts("A", ["x", "y"], ["p"], yes_a, np.array([[3], [6]]), np.zeros((2, 1), int))
    cb = CellCounts("B", ["x", "y"], ["q"], yes_b, np.array([[6], [6]]), np.zeros((2, 1), int))
    _, d_pers = paired_differences(ca, cb)
    assert d_pers[0] == d_pers[1]
