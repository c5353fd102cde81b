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


def _table(rows, p_yes=None):
    df = pd.DataFrame(rows, columns=["model", "message", "perturbation", "persona", "replicate", "answer"])
    if p_yes is not None:
        df["p_yes"] = p_yes
    return validate_table(df, min_perturbations=0)


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
