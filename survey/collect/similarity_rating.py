"""Rating free-text replies by semantic similarity, after they are collected (question type ``ssr``).

A run stores each reply as text first (survey.kinds.ssr.parsing); then ``rate_stored`` embeds the replies
not yet rated and the anchor statements with the study's embedder (survey.embed; vectors are cached in
the store file, so a rerun embeds nothing twice), maps each reply to a distribution over the points as
Maier et al. (2025), "Measuring synthetic consumer purchase intent using semantic-similarity ratings",
do (survey.kinds.ssr.statistics, following the authors' reference code pymc-labs/semantic-similarity-
rating), and stores per row: ``distribution`` (as exact mode stores a rating's), the expected score
(``expected``), the most similar point (``answer``) and how it was rated (``rating``: anchors with their
sha256, embedder, temperature, epsilon). A run interrupted before rating leaves rows that the next run
rates; reading commands never rate.
"""

from __future__ import annotations

import numpy as np

from survey.data.store import Store
from survey.embed import EmbeddingCache, create_embedder, embed_texts
from survey.kinds.ssr.statistics import best_similarity, expected_scores, rate_embeddings
from survey.registry.anchors import AnchorSet, anchors_with_points


def study_anchors(study, question=None) -> AnchorSet:
    """The anchor set a study's question (default its primary) names in ``anchors``, checked against its points."""
    question = question or study.question
    view = question.response.view
    # the folder build_design checked them in: a shipped study run in place finds its anchors beside it
    return anchors_with_points(study.registry_ref(question.rating["anchors"]), study.sets_dir,
                               int(view.high - view.low + 1))


def relevance_floor(options: dict, embedder) -> float | None:
    """The floor the study sets, else the embedder's own (None: no floor); -1 or below turns it off."""
    floor = options.get("relevance_floor")
    floor = getattr(embedder, "relevance_floor", None) if floor is None else floor
    return None if floor is None or floor <= -1 else float(floor)


def rate_texts(texts: list[str], anchors: AnchorSet, embedder, cache=None, temperature: float = 1.0,
               epsilon: float = 0.0, relevance_floor: float | None = None, with_best: bool = False):
    """(len(texts), K) distributions over the points of free-text replies (NaN rows: unrated, among them
    the replies below ``relevance_floor``); with ``with_best``, also each reply's best similarity."""
    flat = [s for statements in anchors.statements for s in statements]
    vectors = embed_texts(list(texts) + flat, embedder, cache)
    replies, anchor_vectors = vectors[:len(texts)], vectors[len(texts):]
    sets = list(anchor_vectors.reshape(len(anchors.sets), anchors.points, -1))
    pmf = rate_embeddings(replies, sets, temperature=temperature, epsilon=epsilon, relevance_floor=relevance_floor)
    return (pmf, best_similarity(replies, sets)) if with_best else pmf


def rate_stored(store: Store, study, embedder=None) -> int:
    """Rate every stored reply of ``study``'s ``ssr`` questions not yet rated, each with its own anchors and
    embedder; the count."""
    rated = [q for q in study.questions if q.response.rated_text]
    if not rated:
        return 0
    todo = store.unrated(study.name)
    several = len(study.questions) > 1
    return sum(_rate_question(store, study, q, [t for t in todo if not several or t[0][6] == q.id], embedder)
               for q in rated)


def _rate_question(store: Store, study, question, todo: list, embedder=None) -> int:
    """Rate the unrated replies ``todo`` of one ssr question."""
    if not todo:
        return 0
    rtype = question.response
    options = question.rating
    anchors = study_anchors(study, question)
    embedder = embedder or create_embedder(options["embedder"])
    floor = relevance_floor(options, embedder)
    with EmbeddingCache(store.path) as cache:
        pmf, best = rate_texts([text or "" for _, text in todo], anchors, embedder, cache,
                               options["temperature"], options["epsilon"], floor, with_best=True)
    view = rtype.view
    scores = np.arange(view.low, view.high + 1)
    expected = expected_scores(pmf, scores)
    how = {"anchors": anchors.name, "anchors_sha256": anchors.sha256, "embedder": embedder.name,
           "temperature": options["temperature"], "epsilon": options["epsilon"], "relevance_floor": floor}
    rows = []
    for (key, text), p, e, b in zip(todo, pmf, expected, best, strict=True):
        if text and floor is not None and b < floor:  # about nothing the anchors say: not a middle answer
            why = f"irrelevant: best similarity to an anchor statement {b:.3f}, below the relevance floor {floor:g}"
            rows.append((key, None, None, {"rating": {**how, "unrated": why}}))
            continue
        if not text or not np.isfinite(p).all():  # an empty reply, or one equally similar to every point
            rows.append((key, None, None, {"rating": {**how, "unrated": "no distribution"}}))
            continue
        dist = {int(s): float(x) for s, x in zip(scores, p, strict=True)}
        rows.append((key, int(scores[int(np.argmax(p))]), float(e), {"distribution": dist, "rating": how}))
    store.set_ratings(rows)
    return len(rows)
