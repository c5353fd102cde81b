"""Balanced scales: a rating scale asked in both directions, half the replicates with the scale reversed.

Language models lean towards some labels and positions whatever the question says (Brucks & Toubia
(2025), "Prompt architecture induces methodological artifacts in large language models"); on a rating
scale that shows up as acquiescence, a pull towards the end of the scale that means "yes". Asking half
the replicates with the scale reversed lets the analysis measure that pull (the direction effect) and
average it out of the A/B comparison, as forced choice averages the two orders of presentation.

The reversed scale lists its points K..1:

* numbers ("1".."5", "0".."10"): the number that meant the lowest point now means the highest, so the
  question reads "from 1 (definitely would buy) to 5 (definitely would not buy)" and a reply "2" is
  stored as the original score 4 (``low + high - 2``); the raw reply keeps what the model said;
* words ("Definitely not" ... "Definitely"): the same words, listed highest first; a word is its own
  score in either direction.

Everything that reads labels (parsing, first-token log-probabilities, the local backend's label mass)
then maps the reversed answer back to the original score: exact mode's distribution of a reversed row
is already over the original points. Which replicates are reversed is a pure function of the replicate
number (odd replicates), so a resumed run, a batch file and the store always agree.
"""

from __future__ import annotations

from functools import cached_property
from types import MappingProxyType

from survey.errors import SurveyError
from survey.kinds.ordinal.parsing import OrdinalScale
from survey.responses.base import ResponseType
from survey.responses.view import AnalysisView

DIRECTIONS = ("forward", "reversed")
ORDERS = ("forward", "both")


class ReversedScale(ResponseType):
    """A rating scale shown K..1; answers are mapped back to the forward scale's scores.

    Its ``scale`` and ``view`` are the forward scale's: a reversed reply is an answer on the same scale,
    so the table, the store and every analysis see one scale."""

    direction = "reversed"
    ordered = True

    def __init__(self, forward: OrdinalScale, template: str | None = None):
        if not isinstance(forward, OrdinalScale):
            raise SurveyError(f"only a likert or rating scale can be asked in both directions, not '{forward.scale}'")
        self.forward = forward
        self.scale = forward.scale
        self.kind = forward.kind
        self.quantity = forward.quantity
        self.max_tokens = forward.max_tokens
        lo, hi = forward.low, forward.high
        # score -> the word that means it when the scale is reversed, listed K..1 (the shown order)
        self.labels = MappingProxyType({s: (str(lo + hi - s) if forward.numeric else w)
                                        for s, w in sorted(forward.labels.items(), reverse=True)})
        self.template = template or reversed_template(forward)

    @cached_property
    def view(self) -> AnalysisView:
        return self.forward.view

    @property
    def low(self) -> int:
        return self.forward.low

    @property
    def high(self) -> int:
        return self.forward.high

    @property
    def points(self) -> int:
        return self.forward.points

    @property
    def numeric(self) -> bool:
        return self.forward.numeric

    def parse(self, text: str | None) -> int | None:
        shown = self.forward.parse(text)  # the forward scale reads the number or word the model said
        if shown is None or not self.forward.numeric:
            return shown  # a word is its own score in either direction
        return self.forward.low + self.forward.high - shown

    def describe_values(self) -> str:
        return ", ".join(f"{w} (= {s})" for s, w in self.labels.items())

    def answer_instruction(self) -> str:
        if self.forward.numeric:
            return self.forward.answer_instruction()
        return "Answer ONLY with one of: " + ", ".join(f"'{w}'" for w in self.labels.values()) + ". Do not explain."


def reversed_template(scale: OrdinalScale) -> str:
    """The scale's default question with its ends (numbers) or its words (labels) in reversed order."""
    lo, hi = scale.low, scale.high
    if scale.family == "rating":
        return ('A customer said: "{perturbation}" How appealing is the product they are describing to you '
                f'personally, from {lo} (extremely appealing) to {hi} (not at all appealing)? '
                'Answer with a single whole number.')
    if scale.numeric:
        return ('A customer said: "{perturbation}" How likely would you personally be to buy the product they '
                f'are describing, from {lo} (definitely would buy) to {hi} (definitely would not buy)? '
                'Answer with a single whole number.')
    words = ", ".join(f"'{w}'" for w in reversed(list(scale.labels.values())))
    return ('A customer said: "{perturbation}" Would you personally buy the product they are describing? '
            f'Answer with one of: {words}.')
