"""`survey validate` on rating-scale tables: sub-samples average scores (theta = score sum / valid answers),
and with the whole table drawn every persona-level and unpaired p-value equals the comparison's own."""

from __future__ import annotations

import numpy as np
import pytest

from survey import validate
from survey.errors import SurveyError
from survey.kinds.choice.model import choice_table, simulate_choice_counts
from survey.stats.comparison import compare_messages
from survey.stats.planning.validity import responses, subsample_pvalues
from survey.stats.simulation import simulate


@pytest.fixture(scope="module")
def likert():
    df = simulate(8, 5, 3, scale="likert5", delta=0.7, rho=0.3, seed=11)
    df.loc[[3, 40, 41], "answer"] = None  # invalid replies: left out of their cells' means
    return df


def test_dense_responses_hold_scores(likert):
    res = responses(likert, "simulated", "A")
    sub = likert[likert["message"] == "A"]
    assert res.y.shape == (8, 5, 3)
    assert np.nansum(res.y) == sub["answer"].sum() and np.isnan(res.y).sum() == sub["answer"].isna().sum()
    assert set(np.unique(res.y[~np.isnan(res.y)])) <= {1, 2, 3, 4, 5}


def test_whole_table_draws_match_the_comparison(likert):
    ra, rb = responses(likert, "simulated", "A"), responses(likert, "simulated", "B")
    pv = subsample_pvalues(ra.y, rb.y, (8, 5, 3), draws=20, seed=1)
    c = compare_messages(likert, "simulated", "A", "B")
    # every draw takes all personas, paraphrases and replicates: only the pairing of paraphrases varies,
    # which the persona-level and unpaired tests never see
    for name in ("sign", "wilcoxon", "unpaired"):
        assert pv[name] == pytest.approx(np.full(20, c.tests[name].pvalue), abs=1e-9), name


def test_validate_null_split_on_a_likert_table(likert):
    res = validate(likert, message="A", configs=["6,2,2"], draws=40, seed=3)
    doc = res.to_dict()
    assert doc["scale"] == "likert5"
    (row,) = doc["results"]
    assert row["a"] == "A/1" and {"sign_flip", "unpaired", "sign", "wilcoxon"} <= set(row["tests"])
    assert all(0 <= t["rate"] <= 1 and t["draws"] == 40 for t in row["tests"].values())


def test_validate_refuses_forced_choice():
    counts = simulate_choice_counts(4, 4, 2, np.random.default_rng(0))
    with pytest.raises(SurveyError, match="choice table shows its messages together"):
        validate(choice_table(counts, 2), message="A")
