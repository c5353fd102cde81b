"""Segments and persona weights (survey.stats.segments): definitions, raking, the interaction test, weighted
comparisons, each against an independent computation."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import survey
from survey.errors import SurveyError
from survey.stats.permutation import sign_flip_test
from survey.stats.segments import Target, given_weights, interaction_test, rake, segment_by
from survey.stats.segments.simulation import SimSegment, segment_table, simulate_segment_cells

ATTRS = pd.DataFrame({"age": [19, 25, 34, 35, 50, 54, 55, 70], "gender": list("mfmfmfmf"),
                      "income": ["low", "high", "low", "high", "low", "low", "high", "high"]},
                     index=[f"p{i}" for i in range(8)])


def test_segments_by_attribute_bins_and_named_filters():
    seg = segment_by(ATTRS, "gender")
    assert seg.segments == {"m": ["p0", "p2", "p4", "p6"], "f": ["p1", "p3", "p5", "p7"]} and seg.disjoint
    bins = segment_by(ATTRS, "age:18-34,35-54,55+")
    assert bins.sizes == {"18-34": 3, "35-54": 3, "55+": 2} and bins.attribute == "age"
    named = segment_by(ATTRS, {"young_high": "age < 35 and income == 'high'", "old": "age >= 50"})
    assert named.segments == {"young_high": ["p1"], "old": ["p4", "p5", "p6", "p7"]}
    assert named.left_out == ["p0", "p2", "p3"] and named.disjoint
    overlap = segment_by(ATTRS, {"young": "age < 40", "men": "gender == 'm'"})
    assert not overlap.disjoint


@pytest.mark.parametrize("by, words", [
    ("colour", "no persona attribute 'colour'; the personas have: age, gender, income"),
    ("age:18-40,35-54", "bins '18-40' and '35-54' of age overlap"),
    ("age:18-34,80+", "segment age in 80+ holds no persona (the personas' values run from 19 to 70)"),
    ("age:young", "bin 'young' is not a range"),
    ("gender:1-5", "attribute 'gender' is not numeric"),
    ({"x": "age <"}, "segment 'x': the filter 'age <' does not parse"),
    ({"x": "height > 2"}, "segment 'x':"),
    ({"x": "age > 100"}, "segment x holds no persona"),
])
def test_bad_segment_definitions_say_what_to_change(by, words):
    with pytest.raises(SurveyError, match=None) as exc:
        segment_by(ATTRS, by)
    assert words in str(exc.value)


def test_raking_one_attribute_is_post_stratification():
    w = rake(ATTRS, {"income": {"low": 0.8, "high": 0.2}})
    # closed form: w_i proportional to target share / sample share of the persona's level (both 1/2 here)
    expect = np.where(ATTRS["income"] == "low", 0.8 / 0.5, 0.2 / 0.5)
    assert np.allclose(w.weights.to_numpy(), expect / expect.mean(), atol=1e-9)
    assert w.method == "post-stratification"
    assert w.design_effect == pytest.approx(len(expect) * (expect ** 2).sum() / expect.sum() ** 2)
    assert w.effective_personas == pytest.approx(8 / w.design_effect)


def test_raking_two_margins_meets_both_with_product_form_weights():
    target = Target({"gender": {"m": 0.3, "f": 0.7}, "age": {"18-34": 0.5, "35-54": 0.3, "55+": 0.2}})
    w = rake(ATTRS, target)
    ww = w.weights
    for attr, shares in target.margins.items():
        for level, share in shares.items():
            assert w.after[attr][level] == pytest.approx(share, abs=1e-8)
    assert w.before["gender"] == {"m": 0.5, "f": 0.5}
    # raking's solution is multiplicative: w_i = g(gender_i) * h(age band_i), so log w is additive
    band = pd.cut(ATTRS["age"], [0, 34, 54, 200], labels=["a", "b", "c"])
    cells = pd.DataFrame({"g": ATTRS["gender"], "a": band, "lw": np.log(ww.to_numpy())}).groupby(["g", "a"],
                                                                                                observed=True)["lw"].mean()
    table = cells.unstack()
    assert np.allclose(table.loc["m"] - table.loc["f"], (table.loc["m"] - table.loc["f"]).iloc[0], atol=1e-6)


@pytest.mark.parametrize("target, words", [
    ({"gender": {"m": 0.5, "f": 0.5, "x": 0.1}}, "sum to 1.1"),
    ({"gender": {"m": 0.5, "f": 0.4, "x": 0.1}}, "target cell gender = x has no persona"),
    ({"gender": {"m": 1.0}}, "persona p1 has gender = f, which the target does not list"),
    ({"height": {"tall": 1.0}}, "target attribute 'height' is not a persona attribute"),
    ({"gender": {"m": "half", "f": 0.5}}, "'half' is not a number"),
])
def test_bad_targets_are_refused(target, words):
    with pytest.raises(SurveyError) as exc:
        rake(ATTRS, target)
    assert words in str(exc.value)


def test_interaction_of_two_segments_is_the_sign_flip_test_of_their_difference():
    rng = np.random.default_rng(3)
    d = rng.normal(size=(2, 12))
    res = interaction_test(d, [10, 30])
    ref = sign_flip_test(d[0] - d[1])
    assert res.pvalue == ref.pvalue and res.statistic == pytest.approx(d[0].mean() - d[1].mean())
    assert "equal segment effects" in res.null and res.exact


def test_interaction_of_three_segments_against_brute_force_enumeration():
    rng = np.random.default_rng(5)
    d, sizes = rng.normal(size=(3, 9)) + np.array([[0.5], [0.0], [-0.3]]), np.array([5.0, 8.0, 12.0])

    def stat(x):
        t = x.mean(axis=1)
        return float((sizes * (t - sizes @ t / sizes.sum()) ** 2).sum())

    obs = stat(d)
    count = sum(stat(d * np.array(eps)) >= obs - 1e-12 for eps in itertools.product([1, -1], repeat=9))
    res = interaction_test(d, sizes, ["a", "b", "c"])
    assert res.statistic == pytest.approx(obs) and res.pvalue == pytest.approx(count / 2 ** 9) and res.exact
    mc = interaction_test(np.tile(d, 2), sizes, n_resamples=20000, seed=1)  # m = 18: Monte Carlo
    assert not mc.exact and 0 < mc.pvalue <= 1


def test_weighted_comparison_equals_a_weighted_mean_computed_directly():
    cells = simulate_segment_cells([SimSegment("x", 6, delta=0.5), SimSegment("y", 9, level=-1.0)], 8, 3, seed=2)
    df = segment_table(cells)
    weights = {p: w for p, w in zip(sorted(df["persona"].unique()), np.linspace(0.2, 3.0, 15), strict=True)}
    res = survey.analyze(df, "A", "B", weights=weights, flips=999).results[0].segments.population
    pair = df["perturbation"].str.split("-").str[1]  # A-03 and B-03 form pair 03
    yes = df.assign(answer=df["answer"].astype(float), pair=pair).pivot_table(
        index=["persona", "pair"], columns="message", values="answer", aggfunc="mean")
    diff = (yes["A"].unstack().to_numpy() - yes["B"].unstack().to_numpy())  # (persona, pair)
    w = np.array([weights[p] for p in yes["A"].unstack().index])
    per_pair = (w[:, None] * diff).sum(axis=0) / w.sum()
    assert res.result.effect.estimate == pytest.approx(per_pair.mean(), abs=1e-12)
    assert res.result.decision.pvalue == sign_flip_test(per_pair).pvalue
    assert res.weights.method == "given"


@pytest.mark.parametrize("scale", ["binary", "likert5", "choice"])
def test_analyze_by_segment_matches_the_vectorised_simulation(scale):
    segs = [SimSegment("young", 12, delta=-0.8, level=0.4), SimSegment("old", 15, delta=0.8)]
    cells = simulate_segment_cells(segs, 10, 2, scale=scale, rho=0.3, seed=7, surveys=3)
    d = cells.pair_differences()
    for s in range(3):
        r = survey.analyze(segment_table(cells, s), "A", "B", by="segment").results[0]
        got = np.array([list(x.result.per_pair().values()) for x in r.segments.segments])
        assert np.allclose(got, d[s], atol=1e-9)
        assert [x.segment for x in r.segments.segments] == ["young", "old"]
        assert r.segments.interaction.pvalue == interaction_test(d[s], [12, 15]).pvalue


def test_segment_results_are_holm_adjusted_with_simultaneous_intervals():
    cells = simulate_segment_cells([SimSegment(f"s{k}", 10, delta=-1.0) for k in range(3)], 10, 3, seed=4)
    seg = survey.analyze(segment_table(cells), "A", "B", by="segment").results[0].segments
    p = np.array([s.pvalue for s in seg.segments])
    from statsmodels.stats.multitest import multipletests

    assert np.allclose([s.pvalue_adjusted for s in seg.segments], multipletests(p, method="holm")[1])
    for s in seg.segments:  # the simultaneous (Bonferroni) interval contains the marginal one
        assert s.simultaneous_ci[0] <= s.ci[0] and s.simultaneous_ci[1] >= s.ci[1]
    bonf = survey.analyze(segment_table(cells), "A", "B", by="segment", adjust="bonferroni").results[0].segments
    assert np.allclose([s.pvalue_adjusted for s in bonf.segments], np.minimum(3 * p, 1))


def test_design_warnings_small_segments_and_too_few_pairs():
    cells = simulate_segment_cells([SimSegment("a", 4), SimSegment("b", 12)], 5, 2, seed=1)
    seg = survey.analyze(segment_table(cells), "A", "B", by="segment").results[0].segments
    text = " ".join(seg.warnings)
    assert "fewer than 10 personas: a (4)" in text
    assert "after holm across 2 segments" in text


def test_given_weights_must_cover_every_persona():
    with pytest.raises(SurveyError, match="finite, non-negative"):
        given_weights({"p1": -1.0})
    cells = simulate_segment_cells([SimSegment("a", 5)], 4, 2, seed=1)
    with pytest.raises(SurveyError, match="no weight for persona"):
        survey.analyze(segment_table(cells), "A", "B", weights={"P001": 1.0, "P002": 2.0})


def test_a_table_without_attributes_says_where_to_give_them():
    df = survey.simulate(6, 4, 2, seed=1)
    with pytest.raises(SurveyError, match="carries no persona attributes: give the persona set"):
        survey.analyze(df, by="gender")
    attrs = pd.DataFrame({"id": [f"P{i:03d}" for i in range(1, 7)], "gender": list("mfmfmf")})
    res = survey.analyze(df, by="gender", personas=attrs)
    assert [s.segment for s in res.results[0].segments.segments] == ["m", "f"]
    d = res.to_dict()["results"][0]
    assert {"segments", "interaction", "population"} <= set(d)
    assert set(d["segments"][0]) >= {"segment", "n_personas", "effect", "ci", "pvalue", "pvalue_adjusted"}
    assert set(d["interaction"]) >= {"statistic", "pvalue", "null"}


def test_raking_a_handful_of_personas_with_single_member_levels():
    # ipfn's DataFrame path crashed on a level held by one persona; the contingency-table path does not
    few = pd.DataFrame({"gender": ["m", "f", "x", "m"], "age": [20, 30, 60, 70]}, index=list("abcd"))
    w = rake(few, {"gender": {"m": 0.45, "f": 0.45, "x": 0.10}, "age": {"18-39": 0.5, "40+": 0.5}})
    assert w.after["gender"] == pytest.approx({"m": 0.45, "f": 0.45, "x": 0.10}, abs=1e-6)
    assert w.after["age"] == pytest.approx({"18-39": 0.5, "40+": 0.5}, abs=1e-6)
    zero = rake(few, {"gender": {"m": 0.5, "f": 0.5, "x": 0.0}})
    assert zero.weights["c"] == 0 and zero.after["gender"]["x"] == 0
