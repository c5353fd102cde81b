"""Forced choice: one prompt shows a paraphrase of each message and asks which the persona prefers.

Language models prefer positions, so the design asks every (persona, paraphrase pair) in both
orders (Helm & Priebe (2026) name joint presentation as future work; the design and tests here are
ours). A reply's answer is the POSITION chosen, 1 (shown first) or 2 (shown second): what the model
said, not an interpretation. The table's ``chosen`` column names the message that position held,
and the analysis averages the two orders, so position bias cancels out of the preference test and
is tested on its own.
"""

from __future__ import annotations

from functools import cached_property
from types import MappingProxyType

from survey.kinds.ordinal.parsing import NumericLabels
from survey.responses.view import AnalysisView

CHOICE_QUESTION = ('Two customers each described a product.\nOption 1: "{first}"\nOption 2: "{second}"\n'
                   'Which of the two products would you personally rather buy? Answer 1 or 2.')


class Choice(NumericLabels):
    """Two options shown in one prompt; the answer is the position chosen (1 or 2)."""

    scale = "choice"
    labels = MappingProxyType({1: "1", 2: "2"})
    template = CHOICE_QUESTION
    slots = ("first", "second")
    simulated_as_score = True
    states_distribution = True
    max_tokens = 2
    kind = "choice"
    quantity = "share choosing A"
    ranged = False

    @cached_property
    def view(self) -> AnalysisView:
        # the answers are positions 1 and 2; what is compared is the share of replies choosing A, in [0, 1]
        return AnalysisView("choice", self.scale, self.quantity, 0, 1, (1, 2), MappingProxyType(dict(self.labels)),
                            effect_quantity="share choosing {a} − share choosing {b}", per_message=False)

    def parse(self, text: str | None) -> int | None:
        # "Option 1" names the position as plainly as "1" does; the template calls them options
        rest = (text or "").lstrip(" \t\n*\"'(")
        if rest[:6].casefold() == "option":
            text = rest[6:]
        return super().parse(text)

    def describe_values(self) -> str:
        return "1 (the option shown first), 2 (the option shown second)"

    def answer_instruction(self) -> str:
        return "Answer ONLY '1' or '2'. Do not explain."


def from_name(scale: str) -> Choice | None:
    """The forced-choice type for its name (survey.responses registers one under "choice")."""
    return Choice() if scale == "choice" else None
