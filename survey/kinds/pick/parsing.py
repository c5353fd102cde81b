"""Pick one of k: one prompt shows a paraphrase of each of the study's k messages, numbered 1..k, and asks
which the persona would rather buy.

Forced choice (survey.kinds.choice.parsing) for k >= 2. Language models favour positions (Brucks & Toubia
(2025), "Prompt architecture induces methodological artifacts in large language models"), so the design
(survey.study.design) asks every persona and paraphrase set in k arrangements, the rows of a Latin square,
and the analysis (survey.kinds.pick.statistics) averages over positions. A reply's answer is the POSITION chosen,
1..k: what the model said. The table's ``shown`` column says which message each position held and
``chosen`` names the one answered.

Scale names: ``pickK`` (K options), e.g. ``pick3``; labels are the single digits 1..K, so K <= 9 and exact
mode reads the distribution over positions from the digits' first-token mass.
"""

from __future__ import annotations

import re
from functools import cached_property
from types import MappingProxyType

from survey.errors import SurveyError
from survey.kinds.choice.parsing import Choice
from survey.responses.view import AnalysisView

PICK_MAX = 9  # single-digit labels: one token each, which exact mode reads
_NAME = re.compile(r"^pick(\d)$")


def pick_question(k: int) -> str:
    """The default question for k options; ``{options}`` is where the numbered paraphrases go."""
    return ("Customers each described a product.\n{options}\nWhich of these products would you personally "
            f"rather buy? Answer with its number only, 1 to {k}.")


def numbered_options(texts: list[str]) -> str:
    """The options as the prompt shows them: 'Option 1: "..."', one per line, in the order shown."""
    return "\n".join(f'Option {t}: "{text}"' for t, text in enumerate(texts, start=1))


class PickOne(Choice):
    """k options shown in one prompt; the answer is the position chosen (1..k). Replies parse as forced
    choice's do ("2", "Option 2")."""

    kind = "pick"
    quantity = "share chosen"
    ranged = False
    slots = ("options",)
    max_tokens = 2
    simulated_as_score = False  # the simulated respondent picks by its own rule, not as forced choice
    states_distribution = False  # the options are the messages shown, not answers of their own

    def __init__(self, k: int = 3, template: str | None = None, max_tokens: int | None = None):
        if not 2 <= int(k) <= PICK_MAX:
            raise SurveyError(f"pick one of k shows 2 to {PICK_MAX} messages (its answers are single digits); "
                              f"got {k}")
        self.k = int(k)
        self.n_options = self.k  # options shown per prompt
        self.scale = f"pick{self.k}"
        self.labels = MappingProxyType({t: str(t) for t in range(1, self.k + 1)})
        self.template = template or pick_question(self.k)
        self.max_tokens = max_tokens or PickOne.max_tokens

    @cached_property
    def view(self) -> AnalysisView:
        # the answers are positions; what is compared is the share of replies choosing each message, in [0, 1]
        return AnalysisView("pick", self.scale, self.quantity, 0, 1, tuple(self.labels),
                            MappingProxyType(dict(self.labels)),
                            effect_quantity="share choosing {a} − share choosing {b}", per_message=False)

    def render(self, texts: list[str], template: str | None = None) -> str:
        """The question showing ``texts`` in this order (``template`` defaults to the type's)."""
        return (template or self.template).format(options=numbered_options(texts))

    def describe_values(self) -> str:
        return f"1..{self.k}, the position of the option chosen"

    def answer_instruction(self) -> str:
        return f"Answer ONLY with the option's number, 1 to {self.k}. Do not explain."


def pick_from_name(scale: str) -> PickOne | None:
    """The type a ``pickK`` name stands for; None for any other name."""
    match = _NAME.match(scale) if isinstance(scale, str) else None
    return PickOne(int(match.group(1))) if match and int(match.group(1)) >= 2 else None
