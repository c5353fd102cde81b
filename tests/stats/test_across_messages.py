"""Every pair of three or more messages from the same responses, with multiplicity adjustment."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import expit, logit
from statsmodels.stats.multitest import multipletests

from survey.data.table import validate_table
from survey.errors import SurveyError
from survey.stats import compare_messages, effect_ci
from survey.stats.across_messages import compare_all_messages
from survey.stats.multiplicity import adjust_pvalues

SM = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}


@pytest.mark.parametrize("method", list(SM))
@pytest.mark.parametrize("seed", range(10))
def test_adjustment_matches_statsmodels(method, seed):
    rng = np.random.default_rng(seed)
    p = rng.beta(0.5, 2.0, size=int(rng.integers(1, 30)))
    p[rng.random(len(p)) < 0.2] = p[0]  # ties
    assert adjust_pvalues(p, method) == pytest.approx(multipletests(p, method=SM[method])[1], abs=1e-14)


def test_adjustment_skips_nan_and_rejects_unknown_methods():
    p = np.array([0.01, np.nan, 0.04, 0.03])
    out = adjust_pvalues(p, "holm")
    assert np.isnan(out[1])
    assert out[[0, 2, 3]] == pytest.approx(multipletests(p[[0, 2, 3]], method="holm")[1])
    assert adjust_pvalues(p, "none")[[0, 2, 3]] == pytest.approx(p[[0, 2, 3]])
    with pytest.raises(SurveyError, match="holm"):
        adjust_pvalues(p, "sidak")


def simulate_messages(shifts: dict, n=15, m=8, r=2, sigma=1.0, rho=0.5, seed=0, model="x") -> pd.DataFrame:
    """One model, several messages with logit shifts; personas shared by all messages (as in a survey)."""
    rng = np.random.default_rng(seed)
    base = logit(rng.beta(2, 2, size=(n, 1)))
    frames = []
    for msg, shift in shifts.items():
        u = rng.normal(0, sigma * np.sqrt(rho), size=(1, m))
        v = rng.normal(0, sigma * np.sqrt(1 - rho), size=(n, m))
        p = expit(base + shift + u + v)
        y = rng.random((n, m, r)) < p[:, :, None]
        ii, jj, kk = np.meshgrid(np.arange(n), np.arange(m), np.arange(r), indexing="ij")
        frames.append(pd.DataFrame({"model": model, "message": msg,
                                    "perturbation": [f"{msg}-{j}" for j in jj.ravel()],
                                    "persona": [f"P{i}" for i in ii.ravel()], "replicate": kk.ravel(),
                                    "answer": y.ravel().astype(int)}))
    return validate_table(pd.concat(frames, ignore_index=True))


@pytest.fixture(scope="module")
def four():
    return simulate_messages({"hat": 1.5, "cap": 0.0, "scarf": 0.0, "gloves": -1.5}, n=20, m=10, r=3, seed=1)


def test_every_pair_equals_the_two_message_analysis(four):
    rows_before = len(four)
    res = compare_all_messages(four, "x")
    assert len(four) == rows_before  # pure: no new queries, nothing appended
    assert [(p.a, p.b) for p in res.pairs] == [("hat", "cap"), ("hat", "scarf"), ("hat", "gloves"),
                                               ("cap", "scarf"), ("cap", "gloves"), ("scarf", "gloves")]
    for p in res.pairs:
        c = compare_messages(four, "x", p.a, p.b)
        assert p.pvalue == c.permutation.pvalue and p.effect.estimate == c.effect.estimate
        lo, hi = p.simultaneous_ci
        assert lo <= p.effect.ci[0] and hi >= p.effect.ci[1]  # joint intervals are wider
        d = c.d_perturbation[~np.isnan(c.d_perturbation)]
        assert p.simultaneous_ci == effect_ci(d, confidence=1 - 0.05 / 6, bounds=(-1, 1)).ci  # Bonferroni
        assert hi - lo > p.effect.ci[1] - p.effect.ci[0]
    raw = [p.pvalue for p in res.pairs]
    assert [p.pvalue_adjusted for p in res.pairs] == pytest.approx(multipletests(raw, method="holm")[1])
    assert res.adjustment == "holm"
    assert res.ranking[0] == "hat" and res.ranking[-1] == "gloves"
    assert "gloves" in res.beats()["hat"]
    assert len(res.table()) == 6
    json.dumps(res.to_dict(), allow_nan=False)


@pytest.mark.parametrize("method", ["bonferroni", "bh", "none"])
def test_other_adjustments(four, method):
    res = compare_all_messages(four, "x", messages=["hat", "cap", "gloves"], adjust=method)
    raw = [p.pvalue for p in res.pairs]
    expected = raw if method == "none" else multipletests(raw, method=SM[method])[1]
    assert [p.pvalue_adjusted for p in res.pairs] == pytest.approx(expected)
    assert [p.significant for p in res.pairs] == [q <= 0.05 for q in expected]


def test_holm_controls_the_family_wise_error():
    # Four equally good messages, shared personas, rho = 0.5: any significant pair is a false claim.
    # n > 50 personas keeps scipy's Wilcoxon (run inside every pair) on its fast asymptotic path.
    # 60 surveys, the fewest at which the unadjusted family-wise error is itself detectably above alpha (so a
    # missing adjustment fails this test): 14 of 60, 99% interval from 0.11; 120 cost twice the CPU for nothing.
    reps, any_holm, any_raw = 60, 0, 0
    for s in range(reps):
        df = simulate_messages({"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0}, n=55, m=8, r=1, seed=1000 + s)
        res = compare_all_messages(df, "x", n_resamples=999)
        any_holm += any(p.significant for p in res.pairs)
        any_raw += any(p.pvalue <= 0.05 for p in res.pairs)
    lo = stats.binomtest(any_holm, reps).proportion_ci(0.99).low
    assert lo <= 0.05  # the family-wise error is not above alpha (99% binomial CI)
    assert any_raw > any_holm  # unadjusted testing of 6 pairs does inflate it
    assert stats.binomtest(any_raw, reps).proportion_ci(0.99).low > 0.05  # ... detectably: the test can fail


def test_errors(four):
    with pytest.raises(SurveyError, match="not in model"):
        compare_all_messages(four, "x", messages=["hat", "boots"])
    with pytest.raises(SurveyError, match="at least two"):
        compare_all_messages(four, "x", messages=["hat"])
    with pytest.raises(SurveyError, match="no rows"):
        compare_all_messages(four, "y")
    with pytest.raises(SurveyError, match="adjustment"):
        compare_all_messages(four, "x", adjust="sidak")


def test_cli_lists_every_pair(four, tmp_path):
    import subprocess
    import sys

    path = tmp_path / "four.csv"
    four.to_csv(path, index=False)
    proc = subprocess.run([sys.executable, "-m", "survey", "compare", str(path), "--adjust", "bonferroni",
                           "--json"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    (msgs,) = out["messages"]
    assert msgs["adjustment"] == "bonferroni" and msgs["n_tests"] == 6
    assert out["agreement"] is None and out["note"].startswith("A and B are the first two")
