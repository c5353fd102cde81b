"""Semantic-similarity rating: a free-text reply as a distribution over the points of a rating scale.

Maier, Aslak, Fiaschi, Pappas & Wiecki (2025), "Measuring synthetic consumer purchase intent using
semantic-similarity ratings" (arXiv 2510.08338), ask a language model for a short free-text answer
("How likely are you to buy it? Explain briefly.") instead of a number, and rate it by its embedding's
cosine similarity to one anchor statement per scale point; on 57 personal-care concepts and 9 300 human
respondents that reached about 90% of the humans' test-retest reliability, where asking for the number
gave unrealistic distributions.

The mapping follows the authors' reference code (pymc-labs/semantic-similarity-rating, ``compute.
response_embeddings_to_pmf``, ``compute.scale_pmf`` and ``ResponseRater.get_response_pmfs``), for reply r
and anchor set a with statements t_1..t_K:

    g_k = (1 + cos(r, t_k)) / 2                      similarity moved to [0, 1]
    p_k = (g_k - min_l g_l + eps [k = first argmin]) / (sum_l g_l - K min_l g_l + eps)
    several anchor sets: p = the mean of the sets' p  (the reference's "mean" set)
    temperature T != 1: p_k <- p_k^(1/T) / sum_l p_l^(1/T); T = 0: all mass on the largest p_k (ties: unchanged)

so the least similar point gets probability eps / (...) (0 by default) and the others share the rest in
proportion to how much more similar they are. The expected score is sum_k s_k p_k. A reply whose
similarities are all equal (with eps = 0) has no distribution (NaN): it is unrated, not a middle answer.
Ours, not the reference's: a relevance floor on the best cosine similarity to any statement, below which a
reply is unrated too (rate_embeddings).

Pure numpy on given embeddings: embedding the texts is the caller's (survey.collect.similarity_rating).
"""

from __future__ import annotations

import warnings

import numpy as np

from survey.errors import SurveyError


def _unit_rows(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def similarity_pmf(replies, anchors, epsilon: float = 0.0) -> np.ndarray:
    """(n, K) distributions of n reply embeddings (n, d) over the K anchors (K, d) of one anchor set."""
    replies = np.atleast_2d(np.asarray(replies, dtype=float))
    anchors = np.asarray(anchors, dtype=float)
    if anchors.ndim != 2 or replies.shape[1] != anchors.shape[1]:
        raise SurveyError(f"reply embeddings of dimension {replies.shape[1]} cannot be compared with anchor "
                          f"embeddings of shape {anchors.shape}: embed both with the same embedder")
    if epsilon < 0:
        raise SurveyError(f"epsilon must be >= 0; got {epsilon}")
    g = (1.0 + _unit_rows(replies) @ _unit_rows(anchors).T) / 2.0
    low = g.min(axis=1, keepdims=True)
    numerator = g - low
    if epsilon > 0:  # the reference adds epsilon at the first least-similar point only
        numerator[np.arange(len(g)), g.argmin(axis=1)] += epsilon
    denominator = g.sum(axis=1, keepdims=True) - g.shape[1] * low + epsilon
    with np.errstate(invalid="ignore", divide="ignore"):
        return numerator / denominator


def with_temperature(pmf, temperature: float) -> np.ndarray:
    """Each row p raised to 1/T and renormalised; T = 0 puts all mass on the largest point (a row whose
    points are all equal stays as it is), as the reference's ``scale_pmf``."""
    pmf = np.atleast_2d(np.asarray(pmf, dtype=float))
    if temperature < 0 or not np.isfinite(temperature):
        raise SurveyError(f"temperature must be a finite number >= 0; got {temperature}")
    if temperature == 1.0:
        return pmf
    if temperature == 0.0:
        out = np.zeros_like(pmf)
        out[np.arange(len(pmf)), pmf.argmax(axis=1)] = 1.0
        flat = np.all(pmf == pmf[:, :1], axis=1)
        out[flat] = pmf[flat]
        out[np.isnan(pmf).any(axis=1)] = np.nan
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        powered = pmf ** (1.0 / temperature)
        return powered / powered.sum(axis=1, keepdims=True)


def best_similarity(replies, anchor_sets) -> np.ndarray:
    """(n,) each reply's highest cosine similarity to any statement of any anchor set."""
    replies = _unit_rows(np.atleast_2d(np.asarray(replies, dtype=float)))
    statements = np.concatenate([np.asarray(a, dtype=float) for a in anchor_sets])
    return (replies @ _unit_rows(statements).T).max(axis=1)


def rate_embeddings(replies, anchor_sets, temperature: float = 1.0, epsilon: float = 0.0,
                    relevance_floor: float | None = None) -> np.ndarray:
    """(n, K) distributions: the mean over anchor sets (each (K, d)) of similarity_pmf, then the temperature.

    ``relevance_floor``: a reply whose best_similarity is below it gets no distribution (NaN), as a reply
    equally similar to every point does. The mapping alone spreads any text over the points by its tiny
    differences in similarity ("The weather is nice today." rates 3.9 of 5 with MiniLM): a reply about
    nothing the anchors say is unrated, not a middle answer."""
    sets = [np.asarray(a, dtype=float) for a in anchor_sets]
    if not sets:
        raise SurveyError("semantic-similarity rating needs at least one anchor set")
    if len({a.shape for a in sets}) != 1:
        raise SurveyError(f"anchor sets must have the same points and dimension; got shapes {[a.shape for a in sets]}")
    mean = np.mean([similarity_pmf(replies, a, epsilon) for a in sets], axis=0)
    if relevance_floor is not None:
        mean[best_similarity(replies, sets) < relevance_floor] = np.nan
    return with_temperature(mean, temperature)


def expected_scores(pmf, scores) -> np.ndarray:
    """sum_k s_k p_k per row (NaN for an unrated row)."""
    return np.asarray(pmf, dtype=float) @ np.asarray(scores, dtype=float)
