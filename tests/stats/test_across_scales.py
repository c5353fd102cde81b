"""Across models and across messages on rating scales (mean scores) and forced choice (preference shares)."""

import json

import numpy as np
import pandas as pd
import pytest

from survey.data.table import validate_table
from survey.errors import SurveyError
from survey.kinds.choice.model import choice_table, simulate_choice_counts
from survey.kinds.choice.table import compare_choice
from survey.kinds.ordinal.estimate import category_counts
from survey.kinds.ordinal.table import scale_params, simulate_table
from survey.stats import sign_flip_test
from survey.stats.across_messages import compare_all_messages
from survey.stats.across_models import compare_models
from survey.stats.effect import effect_ci
from survey.stats.kinds import table_view


def likert(delta, seed, model, messages=("A", "B"), n=20, m=8, r=3):
    params = scale_params("likert5", tau=1.0, sigma=0.5, rho=0.5, delta=delta)
    return simulate_table(params, n, m, r, seed=seed, model=model, messages=messages)


@pytest.fixture(scope="module")
def opposite_likert():
    # the ordinal delta moves B up (as the Beta-logit delta does): x rates B higher, y rates A higher
    return validate_table(pd.concat([likert(1.2, 1, "x"), likert(-1.2, 2, "y")]))


def mean_score_effect(df, model):
    """Mean over paired paraphrases j of (mean score of A_j - mean score of B_j), straight from the rows."""
    sub = df[df["model"] == model]
    cell = sub.groupby(["message", "perturbation", "persona"])["answer"].mean().groupby(["message", "perturbation"]).mean()
    return float(np.mean(cell["A"].to_numpy() - cell["B"].to_numpy()))


def test_likert_models_that_disagree_in_direction(opposite_likert):
    res = compare_models(opposite_likert, "A", "B", n_resamples=999)
    assert res.scale == "likert5" and res.unit == "mean score (1–5)"
    assert res.direction.prefer_b == ["x"] and res.direction.prefer_a == ["y"]
    assert res.depends_on_model and res.heterogeneity.pvalue <= 0.05
    for s in res.models:
        assert s.effect.estimate == pytest.approx(mean_score_effect(opposite_likert, s.model), abs=1e-9)
        assert s.fit is not None and set(s.to_dict()["fit"]) >= {"tau", "sigma", "rho", "cuts"}
    assert abs(res.models[0].effect.estimate) > 0.5  # in scale points
    d = res.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert "P(Yes)" not in text and "probability scale" not in text
    assert "mean score(A) − mean score(B)" in d["heterogeneity_null"] == d["heterogeneity"]["null"]
    assert any("equal effects in mean score" in r for r in res.reasons)
    assert {"tau", "sigma", "rho"} <= set(res.table().columns) and "mu" not in res.table().columns


def test_ordinal_counts_count_each_point_per_cell(opposite_likert):
    counts = category_counts(opposite_likert, "x", "A", 1, 5)
    sub = opposite_likert[(opposite_likert["model"] == "x") & (opposite_likert["message"] == "A")]
    assert counts.shape == (20, 8, 5) and counts.sum() == len(sub)
    first = sub[(sub["persona"] == "P001") & (sub["perturbation"] == "A-01")]["answer"]
    assert counts[0, 0].tolist() == [int((first == k).sum()) for k in range(1, 6)]


def test_binary_wording_is_kept():
    from multimodel import simulate_models

    df = validate_table(simulate_models({"m1": {}, "m2": {}}, n=10, m=6, r=2, seed=3))
    res = compare_models(df, "A", "B", n_resamples=99)
    assert res.scale == "binary" and res.unit == "P(Yes)" and "P(Yes|A)" in res.heterogeneity_null
    assert res.to_dict()["heterogeneity"]["null"] == res.heterogeneity.to_dict()["null"]
    assert "mu" in res.table().columns


@pytest.fixture(scope="module")
def opposite_choice():
    rng = np.random.default_rng(3)
    return validate_table(pd.concat([choice_table(simulate_choice_counts(20, 8, 3, rng, delta=d, position=0.4), 3,
                                                  model=name) for name, d in (("x", 1.0), ("y", -1.0))]))


def test_forced_choice_models_are_compared_by_their_preference_shares(opposite_choice):
    res = compare_models(opposite_choice, "A", "B", n_resamples=999)
    assert res.scale == "choice" and res.direction.conflict and res.depends_on_model
    diffs = []
    for s in res.models:
        ref = compare_choice(opposite_choice, s.model, "A", "B", n_resamples=999)
        pref = ref.preference
        assert s.comparison.preference.share == pref.share and s.comparison.preference.ci == pref.ci
        assert s.pvalues["sign_flip"] == pref.pvalue == s.pvalue_adjusted
        assert s.effect.estimate == pytest.approx(2 * pref.share - 1) and s.effect.ci == pref.difference_ci
        assert s.fit is None and s.n_paired == ref.n_pairs == 8
        d = s.to_dict()
        assert d["share_a"] == pref.share and d["position_bias"]["share"] == ref.position_bias.share
        diffs.append(2 * ref.d_pair)
    assert res.direction.prefer_a == ["y"] and res.direction.prefer_b == ["x"]
    # two models: the heterogeneity test is the sign-flip test on the pairs' difference of differences
    assert res.heterogeneity.pvalue == pytest.approx(sign_flip_test(diffs[0] - diffs[1]).pvalue, abs=1e-12)
    text = json.dumps(res.to_dict(), allow_nan=False)
    assert "P(Yes)" not in text and "share choosing A minus share choosing B" in text
    assert {"share_a", "share_a_low", "share_a_high"} <= set(res.table().columns)


def test_forced_choice_position_warning_reaches_the_notes():
    rng = np.random.default_rng(4)
    df = validate_table(pd.concat([choice_table(simulate_choice_counts(15, 6, 3, rng, position=0.9), 3, model=m)
                                   for m in ("x", "y")]))
    res = compare_models(df, "A", "B", n_resamples=99)
    assert any(n.startswith("model x: position bias") for n in res.notes)


def test_every_pair_of_likert_messages_in_scale_points():
    # m = 4 pairs: at 1 - 0.05/3 no shift can be rejected, so the joint interval is the scale's whole range
    df = pd.concat([likert(0.0, 5, "x", ("A", "B"), m=4), likert(2.0, 6, "x", ("D", "C"), m=4)])  # C rated up
    df = validate_table(df[df["message"] != "D"])
    res = compare_all_messages(df, "x", n_resamples=99)
    assert res.scale == "likert5" and res.unit == "mean score (1–5)"
    assert all(p.simultaneous_ci == (-4.0, 4.0) for p in res.pairs)
    d = res.to_dict()
    assert "mean_yes" not in d and set(d["mean_score"]) == {"A", "B", "C"}
    assert res.ranking[0] == "C" and res.mean_score["C"] > res.mean_score["A"] + 0.5
    # with more pairs the joint interval is the sign-flip inversion at 1 - alpha/k within the scale's range
    wide = validate_table(pd.concat([likert(0.0, 7, "x", ("A", "B"), m=9), likert(2.0, 8, "x", ("D", "C"), m=9)])
                          .query("message != 'D'"))
    res = compare_all_messages(wide, "x", n_resamples=99)
    ac = next(p for p in res.pairs if (p.a, p.b) == ("A", "C"))
    d_ac = ac.comparison.d_perturbation
    assert ac.simultaneous_ci == effect_ci(d_ac, confidence=1 - 0.05 / 3, bounds=(-4.0, 4.0)).ci
    assert ac.simultaneous_ci[0] < -1.0  # beyond the Yes/No range


def test_every_pair_on_forced_choice_is_refused(opposite_choice):
    three = pd.concat([opposite_choice, opposite_choice[opposite_choice["message"] == "A"].assign(message="C")])
    with pytest.raises(SurveyError, match="forced choice"):
        compare_all_messages(validate_table(three), "x", n_resamples=99)


def test_scale_words_and_mixed_scales(opposite_likert):
    assert table_view(opposite_likert).bounds == (-4.0, 4.0)
    assert table_view(opposite_likert.drop(columns="scale").assign(answer=1)).effect_unit == "P(Yes)"
    mixed = pd.concat([opposite_likert, opposite_likert.assign(model="z", scale="rating0-10")])
    with pytest.raises(SurveyError, match="mix"):
        compare_models(mixed, "A", "B", n_resamples=99)
    assert compare_models(mixed, "A", "B", models=["x", "y"], n_resamples=99, fit="none").scale == "likert5"
