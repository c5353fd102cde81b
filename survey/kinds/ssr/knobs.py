"""Semantic-similarity rating's knobs in the study file: ``type = "ssr"`` with points, and how replies are rated
(anchors, embedder, similarity_temperature, epsilon, relevance_floor)."""

from __future__ import annotations

from survey.kinds.ssr.parsing import SemanticScale
from survey.study.knobs import QuestionKnobs

SSR_KEYS = ("anchors", "embedder", "similarity_temperature", "epsilon", "relevance_floor")


class SemanticKnobs(QuestionKnobs):
    families = {"ssr": ("points",)}
    own_keys = SSR_KEYS
    examples = {"ssr": "ssr7"}

    def build(self, family, spec):
        return SemanticScale(spec.points or 5, max_tokens=spec.max_tokens)

    def misplaced(self, keys, type_name):
        return (f"{', '.join(keys)} only apply to type = 'ssr' (semantic-similarity rating), not to type = "
                f"'{type_name}'")


KNOBS = SemanticKnobs()
