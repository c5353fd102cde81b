"""Semantic-similarity rating (``ssr``): the persona answers in words, and the words are rated on a K-point scale.

Maier, Aslak, Fiaschi, Pappas & Wiecki (2025), "Measuring synthetic consumer purchase intent using
semantic-similarity ratings": asking a language model for a Likert number gives unrealistic
distributions; asking for a short explanation and rating it by its similarity to one anchor statement
per point (survey.kinds.ssr.statistics) comes much closer to human answers.

At collection a reply is free text, like ``text``: nothing is parsed, and the model writes freely (the
local backend generates a completion, not a label). After the replies are in, the run embeds them and
the anchors (survey.collect.similarity_rating) and stores each reply's distribution over the points as
exact mode stores a rating's (``distribution``), its expected score (``expected``) and, as ``answer``,
its most similar point. The analysis view is a rating scale's: mean score, top-2-box, the ordinal
kind's tests, compared on the expected scores.

Scale names: ``ssrK`` (points 1..K), e.g. ``ssr5``.
"""

from __future__ import annotations

import re
from functools import cached_property
from types import MappingProxyType

from survey.errors import SurveyError
from survey.responses.base import ResponseType
from survey.responses.view import AnalysisView

SSR_QUESTION = ('A customer said: "{perturbation}" How likely are you personally to buy the product they are '
                'describing? Explain briefly, in one or two sentences.')
_NAME = re.compile(r"^ssr(\d+)$")


class SemanticScale(ResponseType):
    """K points rated from free text; ``labels`` stays empty (nothing to parse), the view has the points."""

    kind = "ssr"
    quantity = "mean score"
    ranged = True
    ordered = True
    rated_text = True  # replies are free text, rated onto the view's points after collection
    template = SSR_QUESTION
    max_tokens = 60

    def __init__(self, points: int = 5, template: str | None = None, max_tokens: int | None = None):
        if not 2 <= int(points) <= 11:
            raise SurveyError(f"a semantic-similarity scale needs 2 to 11 points (one anchor statement each); "
                              f"got {points}")
        self.points = int(points)
        self.low, self.high = 1, self.points
        self.scale = f"ssr{self.points}"
        self.template = template or SSR_QUESTION
        self.max_tokens = max_tokens or SemanticScale.max_tokens

    @cached_property
    def view(self) -> AnalysisView:
        points = tuple(range(self.low, self.high + 1))
        top = (self.high - 1, self.high) if self.points >= 4 else ()
        return AnalysisView(self.kind, self.scale, self.quantity, self.low, self.high, points,
                            MappingProxyType({p: str(p) for p in points}), top, ranged=True, ordered=True)

    @property
    def values(self) -> frozenset[int]:
        """A rated row's ``answer`` is its most similar point."""
        return frozenset(range(self.low, self.high + 1))

    def answer_instruction(self) -> str:
        return "Answer in your own words, briefly: one or two sentences."

    def describe_values(self) -> str:
        return f"free text, rated {self.low} to {self.high} by similarity to anchor statements"


def ssr_from_name(scale: str) -> SemanticScale | None:
    """The scale an ``ssrK`` name stands for; None for any other name."""
    match = _NAME.match(scale) if isinstance(scale, str) else None
    return SemanticScale(int(match.group(1))) if match else None
