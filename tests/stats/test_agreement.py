"""Agreement between models: kappas against sklearn/statsmodels, cell labels, ties, exact-mode p_yes."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from multimodel import simulate_models
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from survey.data.table import validate_table
from survey.errors import SurveyError
from survey.stats.agreement import cell_labels, cohen_kappa, fleiss_kappa, interpret_kappa, model_agreement


@pytest.mark.parametrize("seed", range(25))
def test_cohen_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    p1, p2, agree = rng.uniform(0.02, 0.98, 3)
    x = (rng.random(n) < p1).astype(int)
    y = np.where(rng.random(n) < agree, x, (rng.random(n) < p2).astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = cohen_kappa_score(x, y)
    ours = cohen_kappa(x, y)
    if np.isnan(ref):
        assert ours is None
    else:
        assert ours == pytest.approx(ref, abs=1e-12)


def test_cohen_degenerate_cases_match_sklearn():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(cohen_kappa_score([1, 1, 1], [1, 1, 1])) and cohen_kappa([1, 1, 1], [1, 1, 1]) is None
        assert cohen_kappa([1, 1, 1], [0, 0, 0]) == cohen_kappa_score([1, 1, 1], [0, 0, 0]) == 0.0
    assert cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == 1.0
    with pytest.raises(SurveyError):
        cohen_kappa([1, 0], [1])


@pytest.mark.parametrize("seed", range(20))
def test_fleiss_matches_statsmodels(seed):
    rng = np.random.default_rng(100 + seed)
    items, raters = int(rng.integers(3, 200)), int(rng.integers(2, 8))
    truth = rng.random(items) < rng.uniform(0.1, 0.9)
    labels = np.where(rng.random((items, raters)) < rng.uniform(0.5, 1.0), truth[:, None],
                      rng.random((items, raters)) < 0.5).astype(int)
    table, _ = aggregate_raters(labels, n_cat=2)
    ref = sm_fleiss(table)
    ours = fleiss_kappa(labels)
    if np.isnan(ref):
        assert ours is None
    else:
        assert ours == pytest.approx(ref, abs=1e-12)


def test_fleiss_two_raters_is_scotts_pi_and_degenerate_is_none():
    x, y = np.array([1, 1, 0, 0, 1, 0, 1, 1]), np.array([1, 0, 0, 0, 1, 1, 1, 1])
    pbar = (x.mean() + y.mean()) / 2
    pe = pbar ** 2 + (1 - pbar) ** 2
    assert fleiss_kappa(np.stack([x, y], 1)) == pytest.approx(((x == y).mean() - pe) / (1 - pe))
    assert fleiss_kappa(np.ones((5, 3))) is None


def _table(rows, p_yes=None, scale=None):
    df = pd.DataFrame(rows, columns=["model", "message", "perturbation", "persona", "replicate", "answer"])
    if p_yes is not None:
        df["p_yes"] = p_yes
    return validate_table(df, min_perturbations=0, scale=scale)


def test_majority_labels_and_ties():
    rows = []
    # cell (A, p1, P1): x 2 Yes 1 No -> Yes; y 1 Yes 1 No 1 invalid -> tie
    for k, (ax, ay) in enumerate([(1, 1), (1, 0), (0, None)]):
        rows += [("x", "A", "p1", "P1", k, ax), ("y", "A", "p1", "P1", k, ay)]
    # cell (A, p2, P1): x all invalid -> tie (no valid answer); y No
    for k in range(3):
        rows += [("x", "A", "p2", "P1", k, None), ("y", "A", "p2", "P1", k, 0)]
    df = _table(rows)
    labels, sources, ties = cell_labels(df)
    assert sources == {"x": "majority", "y": "majority"} and ties == {"x": 1, "y": 1}
    assert labels.loc[("A", "P1", "p1"), "x"] == 1.0 and np.isnan(labels.loc[("A", "P1", "p1"), "y"])
    assert np.isnan(labels.loc[("A", "P1", "p2"), "x"]) and labels.loc[("A", "P1", "p2"), "y"] == 0.0
    as_no, _, _ = cell_labels(df, ties="no")
    assert as_no.loc[("A", "P1", "p1"), "y"] == 0.0 and as_no.loc[("A", "P1", "p2"), "x"] == 0.0
    as_yes, _, _ = cell_labels(df, ties="yes")
    assert as_yes.loc[("A", "P1", "p1"), "y"] == 1.0
    res = model_agreement(df)  # every cell has a tie on one side: nothing to compare
    assert res.pairs[0].n_cells == 0 and res.pairs[0].kappa is None and res.fleiss_kappa is None
    json.dumps(res.to_dict(), allow_nan=False)


def test_p_yes_rounded_at_half_with_exact_ties():
    rows, p = [], []
    for j, (px, py) in enumerate([(0.7, 0.6), (0.2, 0.51), (0.5, 0.1), (0.9, 0.4)]):
        rows += [("x", "A", f"p{j}", "P1", 0, 1), ("y", "A", f"p{j}", "P1", 0, 0)]
        p += [px, py]
    df = _table(rows, p)
    labels, sources, ties = cell_labels(df)
    assert sources == {"x": "p_yes", "y": "p_yes"} and ties == {"x": 1, "y": 0}
    assert labels["x"].tolist()[:2] == [1.0, 0.0] and np.isnan(labels["x"].iloc[2])
    assert labels["y"].tolist() == [1.0, 1.0, 0.0, 0.0]
    maj, sources, _ = cell_labels(df, source="majority")  # the sampled answers say x Yes, y No
    assert sources["x"] == "majority" and maj["x"].tolist() == [1.0] * 4
    with pytest.raises(SurveyError, match="p_yes"):
        cell_labels(_table(rows), source="p_yes")


def test_agreement_end_to_end_matches_references():
    df = validate_table(simulate_models({"x": dict(mu=0.3), "y": dict(mu=0.6), "z": {}}, n=15, m=6, r=2,
                                        seed=7))
    res = model_agreement(df)  # r = 2: many majority ties, dropped pairwise and for Fleiss
    labels = res.labels
    for pair in res.pairs:
        both = labels[[pair.model_a, pair.model_b]].dropna()
        assert pair.n_cells == len(both)
        assert pair.kappa == pytest.approx(cohen_kappa_score(both.iloc[:, 0], both.iloc[:, 1]))
        assert pair.agreement == pytest.approx((both.iloc[:, 0] == both.iloc[:, 1]).mean())
    full = labels.dropna().to_numpy().astype(int)
    assert res.n_cells_all == len(full) < res.n_cells == 2 * 15 * 6
    assert res.fleiss_kappa == pytest.approx(sm_fleiss(aggregate_raters(full, n_cat=2)[0]))
    m = res.matrix()
    assert m.loc["x", "y"] == m.loc["y", "x"] == res.pairs[0].kappa
    json.dumps(res.to_dict(), allow_nan=False)


def test_a_model_agrees_with_its_copy():
    df = simulate_models({"x": {}}, n=10, m=4, r=3, seed=8)
    both = validate_table(pd.concat([df, df.assign(model="copy")]))
    res = model_agreement(both)
    assert res.pairs[0].kappa == 1.0 and res.pairs[0].agreement == 1.0 and res.fleiss_kappa == 1.0
    assert res.to_dict()["pairs"][0]["strong"] is True


def test_interpretation_and_errors():
    assert interpret_kappa(0.118) == "slight" and interpret_kappa(0.65) == "strong"
    assert interpret_kappa(-0.1) == "below chance" and interpret_kappa(None) == "undefined"
    assert interpret_kappa(0.5) == "moderate" and interpret_kappa(0.95) == "very strong"
    df = validate_table(simulate_models({"x": {}}, n=5, m=2, r=1, seed=9))
    with pytest.raises(SurveyError, match="at least 2 models"):
        model_agreement(df)
    with pytest.raises(SurveyError, match="ties"):
        model_agreement(df, ties="coin")


def test_a_model_with_one_label_everywhere_is_named_as_degenerate_kappa():
    # The two-model demo: one model says Yes in every cell, the other mostly No; kappa 0 beside 0% agreement
    # reads as a contradiction unless the result says why.
    rows = []
    for j, persona in enumerate(["P1", "P2", "P3", "P4"]):
        rows += [("always", "A", f"p{k}", persona, 0, 1) for k in range(3)]
        rows += [("mixed", "A", f"p{k}", persona, 0, int(k == j % 3)) for k in range(3)]
    res = model_agreement(_table(rows))
    assert len(res.notes) == 1 and "'always'" in res.notes[0] and "(Yes)" in res.notes[0]
    assert res.to_dict()["notes"] == res.notes
    varied = model_agreement(_table([r for r in rows if r[0] == "mixed"] + [("other", *r[1:]) for r in rows
                                                                          if r[0] == "mixed"]))
    assert varied.notes == []


# --- rating scales: weighted kappa ----------------------------------------------------------------------

def _sk(x, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cohen_kappa_score(x, y, **kw)


def _ordinal_raters(rng, points):
    """Two raters on `points`, each with its own (sparse) category probabilities, agreeing in part."""
    n = int(rng.integers(5, 400))
    px = rng.dirichlet(np.full(len(points), 0.4))
    py = rng.dirichlet(np.full(len(points), 0.4))
    py[rng.random(len(points)) < 0.3] = 0.0  # y never uses some points
    py = py / py.sum() if py.sum() > 0 else np.full(len(points), 1 / len(points))
    x = rng.choice(points, n, p=px)
    y = np.where(rng.random(n) < rng.uniform(0, 0.9), x, rng.choice(points, n, p=py))
    return x, y


@pytest.mark.parametrize("weights", ["linear", "quadratic", None])
@pytest.mark.parametrize("seed", range(30))
def test_weighted_kappa_matches_sklearn_with_and_without_labels(seed, weights):
    rng = np.random.default_rng(500 + seed)
    low = int(rng.integers(-2, 2))
    points = np.arange(low, low + int(rng.integers(2, 12)))  # 2 to 11 points, e.g. likert5, rating0-10
    x, y = _ordinal_raters(rng, points)
    for labels in (points, None):
        ref = _sk(x, y, weights=weights, labels=labels)
        ours = cohen_kappa(x, y, weights or "none", labels)
        assert ours is None if np.isnan(ref) else ours == pytest.approx(ref, abs=1e-12)


def test_unused_points_count_in_the_weights_as_sklearn_labels_do():
    # both raters use 1, 2 and 5 of a 5-point scale: without the scale's points 5 sits next to 2
    x = np.array([1, 1, 2, 2, 5, 5, 1, 2, 5, 1])
    y = np.array([1, 2, 2, 5, 5, 1, 1, 2, 2, 5])
    scale = [1, 2, 3, 4, 5]
    for w in ("linear", "quadratic"):
        full, used = cohen_kappa(x, y, w, scale), cohen_kappa(x, y, w)
        assert full == pytest.approx(_sk(x, y, weights=w, labels=scale), abs=1e-12)
        assert used == pytest.approx(_sk(x, y, weights=w), abs=1e-12)
        assert abs(full - used) > 0.05
    # labels outside `labels` are left out, as sklearn's confusion matrix does
    assert cohen_kappa(x, y, "linear", [1, 2]) == pytest.approx(_sk(x, y, weights="linear", labels=[1, 2]))


def test_weighted_kappa_degenerate_cases_and_two_categories():
    assert cohen_kappa([3, 3, 3], [3, 3, 3], "quadratic", [1, 2, 3, 4, 5]) is None
    assert np.isnan(_sk([3, 3, 3], [3, 3, 3], weights="quadratic", labels=[1, 2, 3, 4, 5]))
    assert cohen_kappa([3, 3, 3, 3], [1, 3, 5, 4], "quadratic", range(1, 6)) == 0.0  # one constant rater
    x, y = [0, 1, 1, 0, 1, 1, 0], [0, 1, 0, 0, 1, 1, 1]  # two categories: weights change nothing
    assert cohen_kappa(x, y, "linear") == pytest.approx(cohen_kappa(x, y, "quadratic")) == pytest.approx(
        cohen_kappa(x, y))
    with pytest.raises(SurveyError, match="weights"):
        cohen_kappa(x, y, "cubic")


@pytest.mark.parametrize("seed", range(8))
def test_fleiss_on_many_categories_matches_statsmodels(seed):
    rng = np.random.default_rng(900 + seed)
    items, raters, k = int(rng.integers(3, 150)), int(rng.integers(2, 6)), int(rng.integers(3, 11))
    truth = rng.integers(0, k, items)
    labels = np.where(rng.random((items, raters)) < 0.6, truth[:, None], rng.integers(0, k, (items, raters)))
    ref = sm_fleiss(aggregate_raters(labels)[0])
    assert fleiss_kappa(labels) == pytest.approx(ref, abs=1e-12)


def _likert_pair(seed, **y_params):
    from survey.kinds.ordinal.table import scale_params, simulate_table

    x = scale_params("likert5", tau=1.0, sigma=0.6, rho=0.5, delta=0.8)
    y = scale_params("likert5", **{"tau": 1.0, "sigma": 0.6, "rho": 0.5, "delta": -0.8, **y_params})
    return validate_table(pd.concat([simulate_table(x, 12, 5, 3, seed=seed, model="x"),
                                     simulate_table(y, 12, 5, 3, seed=seed + 1, model="y")]))


def test_likert_agreement_is_weighted_kappa_on_the_scale_points():
    df = _likert_pair(31)
    res = model_agreement(df, source="majority")
    assert res.scale == "likert5" and res.weights == "quadratic" and res.kappa_name == "weighted kappa (quadratic)"
    assert res.sources == {"x": "mean", "y": "mean"}
    both = res.labels.dropna()
    assert set(np.unique(both.to_numpy())) <= {1.0, 2.0, 3.0, 4.0, 5.0}
    for w in ("linear", "quadratic", "none"):
        r = model_agreement(df, source="majority", weights=w)
        ref = _sk(both["x"], both["y"], weights=None if w == "none" else w, labels=[1, 2, 3, 4, 5])
        assert r.pairs[0].kappa == pytest.approx(ref, abs=1e-12) and r.weights == w
    assert res.to_dict()["weights"] == "quadratic" and res.to_dict()["scale"] == "likert5"
    assert any("Fleiss' kappa is unweighted" in n for n in res.notes)
    exact = model_agreement(df)  # simulated tables carry the expected score: exact mode
    assert exact.sources == {"x": "expected", "y": "expected"} and exact.n_ties == {"x": 0, "y": 0}
    json.dumps(exact.to_dict(), allow_nan=False)


def test_likert_cell_label_is_the_point_nearest_the_mean_with_explicit_ties():
    rows = []
    # x: (4, 5) halfway -> tie; (2, 2, 3) mean 2.33 -> 2; no valid answer -> tie, never resolved on 5 points
    for k, (a1, a2, a3) in enumerate([(4, 2, None), (5, 2, None), (None, 3, None)]):
        rows += [("x", "A", "p1", "P1", k, a1), ("x", "A", "p2", "P1", k, a2), ("x", "A", "p3", "P1", k, a3)]
        rows += [("y", "A", f"p{j}", "P1", k, 3) for j in (1, 2, 3)]
    df = _table(rows, scale="likert5")
    labels, sources, ties = cell_labels(df)
    assert sources["x"] == "mean" and ties == {"x": 2, "y": 0}
    assert np.isnan(labels.loc[("A", "P1", "p1"), "x"]) and labels.loc[("A", "P1", "p2"), "x"] == 2.0
    low, _, _ = cell_labels(df, ties="low")
    high, _, _ = cell_labels(df, ties="yes")
    assert low.loc[("A", "P1", "p1"), "x"] == 4.0 and high.loc[("A", "P1", "p1"), "x"] == 5.0
    assert np.isnan(low.loc[("A", "P1", "p3"), "x"])
    res = model_agreement(df)
    assert any("'y'" in n and "(3)" in n for n in res.notes)  # y says 3 everywhere: degenerate, explained


def test_agreement_refuses_mixed_scales_free_text_and_bad_weights():
    df = _likert_pair(33)
    mixed = pd.concat([df, df.assign(model="z", scale="rating0-10")])
    with pytest.raises(SurveyError, match="mix"):
        model_agreement(mixed)
    with pytest.raises(SurveyError, match="weights"):
        model_agreement(df, weights="cubic")
    assert model_agreement(mixed, models=["x", "y"]).scale == "likert5"


def test_forced_choice_agreement_is_unweighted_on_the_position():
    from survey.kinds.choice.model import choice_table, simulate_choice_counts

    rng = np.random.default_rng(3)
    tables = [choice_table(simulate_choice_counts(10, 4, 3, rng, delta=d), 3, model=name)
              for name, d in (("x", 0.5), ("y", -0.5))]
    res = model_agreement(validate_table(pd.concat(tables)))
    assert res.scale == "choice" and res.weights == "none" and res.kappa_name == "Cohen kappa"
    both = res.labels.dropna()
    assert set(np.unique(both.to_numpy())) <= {1.0, 2.0}
    assert res.pairs[0].kappa == pytest.approx(_sk(both["x"], both["y"]), abs=1e-12)
