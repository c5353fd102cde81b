"""The simulated backend on rating scales (ordinal model) and forced choice (choice model)."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit, logit

from survey import Study
from survey.backends import BackendError, create_backend
from survey.backends.base import Query
from survey.errors import SurveyError
from survey.kinds.ordinal.model import category_probabilities, make_ordinal_params
from survey.responses import response_type


def spec(tmp_path, question: dict, options: dict, name: str = "sim", replicates: int = 2) -> dict:
    return {"name": name, "store": str(tmp_path / f"{name}.sqlite"), "replicates": replicates,
            "personas": {"set": "shoppers", "count": 3},
            "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": 3},
                         {"id": "boots", "perturbations": "boots", "count": 3}],
            "question": question,
            "models": [{"name": "sim", "backend": "simulated", "seed": 5, "options": options}]}


def query(scale: str, replicate: int = 0, persona: str = "p0", **kw) -> Query:
    base = dict(study="t", model="sim", message="a", perturbation="a0", persona=persona, replicate=replicate,
                system="", user="", scale=scale, seed=1)
    return Query(**{**base, **kw})


async def answers(backend, queries):
    return [await backend.complete(q) for q in queries]


def test_a_simulated_likert5_study_runs_into_a_valid_table(tmp_path):
    options = {"tau": 1.0, "sigma": 0.8, "rho": 0.4, "deltas": {"boots": 1.0}}
    study = Study.from_spec(spec(tmp_path, {"type": "likert", "points": 5}, options), base_dir=tmp_path)
    run = study.run(yes=True)
    assert run.stored == 3 * 6 * 2 and run.failed == 0
    df = study.table()
    assert set(df["scale"]) == {"likert5"} and df["answer"].notna().all()
    assert df["answer"].astype(int).between(1, 5).all()
    for _, row in df.iterrows():
        dist = {int(k): v for k, v in json.loads(row["distribution"]).items()}
        assert set(dist) == {1, 2, 3, 4, 5} and sum(dist.values()) == pytest.approx(1)
        assert row["expected"] == pytest.approx(sum(s * p for s, p in dist.items()))
    # deterministic: a second store from the same spec holds the same answers
    again = Study.from_spec(spec(tmp_path, {"type": "likert", "points": 5}, options, name="again"),
                            base_dir=tmp_path)
    again.run(yes=True)
    keys = ["persona", "message", "perturbation", "replicate"]
    a, b = (t.sort_values(keys).reset_index(drop=True) for t in (df, again.table()))
    assert a["answer"].tolist() == b["answer"].tolist() and np.allclose(a["expected"], b["expected"])


def test_a_simulated_choice_study_runs_into_a_valid_table(tmp_path):
    options = {"sigma": 0.5, "position": 0.7, "tau": 0.3, "deltas": {"boots": 0.5}}
    study = Study.from_spec(spec(tmp_path, {"type": "choice"}, options), base_dir=tmp_path)
    run = study.run(yes=True)
    assert run.failed == 0
    df = study.table()
    assert len(df) == 3 * 3 * 2 * 2  # personas x pairs x both orders x replicates
    assert set(df["scale"]) == {"choice"} and df["answer"].astype(int).isin([1, 2]).all()
    assert {"second", "second_perturbation", "order", "chosen"} <= set(df.columns)
    assert set(df["message"]) == {"sneakers", "boots"} and (df["message"] != df["second"]).all()
    assert (df["order"] == df["message"] + "|" + df["second"]).all()
    first = df["answer"].astype(int) == 1
    assert (df.loc[first, "chosen"] == df.loc[first, "message"]).all()
    assert (df.loc[~first, "chosen"] == df.loc[~first, "second"]).all()
    assert df["expected"].between(1, 2).all()


def test_ratings_follow_the_ordinal_model():
    # no persona or paraphrase spread: every cell has the model's category probabilities at lambda = delta
    backend = create_backend("simulated", tau=0.0, sigma=0.0, rho=0.0, cuts=[-1.0, 0.0, 0.5, 2.0],
                             deltas={"a": 0.7})
    params = make_ordinal_params(points=5, low=1, tau=0.0, sigma=0.0, cuts=(-1.0, 0.0, 0.5, 2.0))
    truth = category_probabilities(params, np.array(0.7))
    replies = asyncio.run(answers(backend, [query("likert5", k, persona=f"p{k % 7}") for k in range(2000)]))
    scale = response_type("likert5")
    counts = np.bincount([scale.parse(r.text) for r in replies], minlength=6)[1:]
    assert stats.chisquare(counts, truth * len(replies)).pvalue > 1e-3
    assert replies[0].p_yes == pytest.approx(float(truth @ np.arange(1, 6)))


def test_choices_follow_the_choice_model():
    backend = create_backend("simulated", sigma=0.0, rho=0.0, position=0.7, deltas={"b": 0.8})
    ab = [query("choice", k, persona=f"p{k % 5}", second="b", second_perturbation="b0") for k in range(1500)]
    ba = [query("choice", k, persona=f"p{k % 5}", message="b", perturbation="b0", second="a",
                second_perturbation="a0") for k in range(1500)]
    for qs, gap in ((ab, -0.8), (ba, 0.8)):
        replies = asyncio.run(answers(backend, qs))
        p_first = float(expit(logit(0.7) + gap))
        firsts = sum(r.text == "1" for r in replies)
        assert stats.binomtest(firsts, len(replies), p_first).pvalue > 1e-3
        assert replies[0].p_yes == pytest.approx(2 - p_first)
        assert replies[0].extra["distribution"] == pytest.approx({1: p_first, 2: 1 - p_first})


def test_invalid_rate_and_bad_options():
    backend = create_backend("simulated", invalid_rate=1.0)
    reply = asyncio.run(backend.complete(query("rating0-10")))
    assert response_type("rating0-10").parse(reply.text) is None
    with pytest.raises(SurveyError, match="position"):
        create_backend("simulated", position=1.5)
    bad = create_backend("simulated", cuts=[0.0, 1.0])
    with pytest.raises(BackendError, match="cuts") as info:
        asyncio.run(bad.complete(query("likert5")))
    assert not info.value.retryable
    with pytest.raises(BackendError, match="shown second"):
        asyncio.run(create_backend("simulated").complete(query("choice")))
