"""The response-type extension point: how a reply becomes a score, and which scores are valid.

A response type is one question format: Yes/No (``binary``), rating scales (``likert5``,
``rating0-10``), forced choice (``choice``), free text (``text``). Everything downstream asks the
study's type instead of assuming Yes/No: the engine parses replies with it, the store records it per
study, the table validator checks answers against its values, the local backend reads the next-token
mass of its labels, and analyses and reports read its ``view`` (survey.responses.view.AnalysisView):
the quantity compared, its unit and range. A new type is one subclass (its scale name, labels,
default question, reply length and analysis ``kind``) plus one ``register`` call in
survey/responses/__init__.py; its analysis is one module of survey.stats.kinds.

Parsing follows Helm & Priebe (2026), "When prompt perturbations break your A/B test": a reply
counts when it starts with one of the labels. We skip leading whitespace and punctuation (quotes,
asterisks, brackets: models like **Yes**) and compare case-insensitively, but require a word
boundary after the label: "Yesterday" or "Not sure" are not answers, they are invalid. A reply that
names two labels ("Yes and no") hedges and is invalid too (survey.responses.hedges).
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from functools import cached_property
from types import MappingProxyType

from survey.responses.hedges import words_hedged
from survey.responses.view import AnalysisView


def skip_noise(text: str) -> str:
    """Drop leading whitespace, punctuation and symbols (Unicode categories Z*, P*, S*, C*)."""
    i = 0
    while i < len(text) and unicodedata.category(text[i])[0] in "ZPSC":
        i += 1
    return text[i:]


UNSEEN_MASS_MAX = 1e-3  # mass outside a provider's top tokens below which an unseen label counts as 0


class ResponseType:
    """One question format. Subclasses set the four attributes; the methods work from ``labels``.

    - ``scale``: the type's name: the study's ``[question] type``, the store's record, the table's
      optional ``scale`` column;
    - ``labels``: score -> the word a model answers with, in the order the local backend draws them
      (empty: the reply is kept as text and never scored);
    - ``template``: the default question, with ``{perturbation}`` where the paraphrase goes;
    - ``max_tokens``: the default reply length.

    Optional: ``slots`` (the template's placeholders; forced choice shows two paraphrases),
    ``top_box`` (the points whose share marketers read), ``answer_instruction()`` (the system
    prompt's last sentence, which says how to answer), and the analysis view: ``kind`` (the
    survey.stats.kinds module that analyses it), ``quantity`` (what a cell summary is called) and
    ``ranged`` (whether its unit names the range).
    """

    scale: str
    labels: Mapping[int, str] = MappingProxyType({})
    template: str
    max_tokens: int
    slots: tuple[str, ...] = ("perturbation",)
    top_box: frozenset[int] = frozenset()
    kind: str = "scored"
    quantity: str = "mean score"
    ranged: bool = True
    ordered: bool = False
    direction: str = "forward"  # a reversed rating scale (survey.kinds.ordinal.balanced) says "reversed"
    rated_text: bool = False  # replies are free text rated onto the view's points after collection (ssr)
    # the exact score is P(first label) and says it all: no distribution over scores is stored (Yes/No)
    p_yes_says_all: bool = False
    # a simulated respondent answers with a drawn score, as on an ordered scale (forced choice's position)
    simulated_as_score: bool = False
    # how the question is asked (survey.responses.stated): "answer" (one label) or "distribution" (a stated
    # probability per label, as JSON); a type whose reply is one of its labels may be asked for a distribution
    elicit: str = "answer"
    states_distribution: bool = False
    # the long table's answer column: whole-number scores ("Int16"); a kind whose answers are numbers says
    # "Float64" (the store, the table and human files read answers in it)
    answer_dtype: str = "Int16"
    # a type whose simulated respondent answers in its own words from the cell's latent location (a number, the
    # options ticked) defines simulated_reply(location, rng) -> text; None: the simulated backend's own models
    simulated_reply = None
    reply_extra: Mapping = MappingProxyType({})  # stored with every reply (checkbox: its option names)
    # a type without labels (a number, options ticked) that a local model can still be held to: the words one of
    # which its reply's first token must be when sampling is constrained (digits, currency signs)
    first_words: tuple[str, ...] = ()
    human_replies: bool = False  # a human file's answers are read as replies, numbers too (not as stored codes)

    @cached_property
    def view(self) -> AnalysisView:
        """What this type means to an analysis (survey.responses.view)."""
        points = tuple(sorted(self.labels))
        low, high = (points[0], points[-1]) if points else (0, 0)
        return AnalysisView(self.kind, self.scale, self.quantity, low, high, points,
                            MappingProxyType(dict(self.labels)), tuple(sorted(self.top_box)), ranged=self.ranged,
                            ordered=self.ordered)

    def question(self, template: str) -> str:
        """The question template as asked (a stated distribution appends its request)."""
        return template

    def answer_instruction(self) -> str:
        """How the persona prompt tells the model to answer; Yes/No's sentence is the persona sets' own."""
        words = " or ".join(f"'{w}'" for w in self.labels.values())
        return f"Answer ONLY {words}. Do not explain." if words else ""

    @property
    def values(self) -> frozenset[int]:
        """The valid scores; an answer outside them (or empty) is invalid."""
        return frozenset(self.labels)

    @property
    def scored(self) -> bool:
        """False for free text: replies have no score, so they are neither valid nor invalid."""
        return bool(self.labels)

    def fidelity_levels(self) -> tuple[tuple, bool] | None:
        """(the points human fidelity compares the answers' distributions over, whether they are ordered), or
        None when no comparison of levels with humans applies to this type; ``fidelity_level`` maps answers there."""
        return tuple(self.view.points), bool(self.view.ordered) or len(self.view.points) == 2

    def fidelity_labels(self) -> dict:
        """How the comparison with people names each point of ``fidelity_levels`` ("Yes", "4", "0–30"): by default
        the type's labels."""
        return dict(self.view.labels)

    def fidelity_level(self, answers):
        """The point of ``fidelity_levels`` each answer (a pandas Series) counts as: by default the answer itself."""
        return answers

    def valid_answers(self, answers):
        """Which of ``answers`` (a numeric pandas Series) are valid answers: by default one of ``values``."""
        return answers.isin(sorted(self.values))

    def describe_values(self) -> str:
        """The valid answers for messages, e.g. "1 (Yes), 0 (No)"."""
        return ", ".join(f"{v} ({label})" for v, label in self.labels.items())

    def describe_human_answers(self) -> str:
        """What a human file's ``answer`` may hold (survey.data.humans names it when an answer is not one)."""
        return f"{self.describe_values()} (the scores or the words of {self.scale})"

    def for_rows(self, rows) -> ResponseType:
        """This type as the rows that hold its replies describe it (a long table: what a run stored beside each
        reply, e.g. a checkbox question's option names), so that human answers given in those words are read as a
        model's reply is; by default the type itself, which its scale name says all of."""
        return self

    def parse(self, text: str | None) -> int | None:
        """The score of a reply that starts with a label; None for anything else (including None/empty)."""
        if not text:
            return None
        rest = skip_noise(text).casefold()
        words = [label.casefold() for label in self.labels.values()]
        for value, word in zip(self.labels, words, strict=True):
            if rest.startswith(word):
                after = rest[len(word):]
                if not after[:1].isalnum():
                    # "Yes and no", "Probably or probably not": two labels are a hedge, not an answer
                    return None if words_hedged(after, word, words) else value
        return None

    def exact_score(self, mass: Mapping[int, float]) -> float | None:
        """The expected score given a valid answer, from each score's probability mass.

        For Yes/No that is P(Yes | Yes or No); None when no label has any mass.
        """
        total = sum(mass.values())
        if not total > 0:
            return None
        return sum(value * p for value, p in mass.items()) / total

    def distribution_from_logprobs(self, logprobs: Mapping[str, float] | None) -> dict[int, float] | None:
        """Each score's share of the label mass among first-token top log-probabilities.

        Every top token that parses as a label adds to that label's mass (" Yes", "yes", "YES" all
        count as Yes); None when no label appears among the top tokens, or when one of them is a label
        that another label extends (see logprobs_note).
        """
        if not logprobs or not self.labels or self.logprobs_note(logprobs):
            return None
        mass = dict.fromkeys(self.labels, 0.0)
        for token, lp in logprobs.items():
            value = self.parse(token)
            if value is not None and lp is not None and math.isfinite(lp):
                mass[value] += math.exp(lp)
        total = sum(mass.values())
        return {v: m / total for v, m in mass.items()} if total > 0 else None

    def logprobs_note(self, logprobs: Mapping[str, float] | None) -> str | None:
        """Why first-token log-probabilities give no exact score, or None when they can.

        A top token that is exactly a label which another label starts with ("1" on a 0-10 rating may
        be the start of "10"; "Probably" of "Probably not") is ambiguous: its mass belongs to either,
        and only the tokens after it would tell. "1." or "1 " ended the number and are not ambiguous.
        """
        words = [w.casefold() for w in self.labels.values()]
        unseen = self.unseen_labels(logprobs)
        if unseen:
            return unseen
        for token, lp in (logprobs or {}).items():
            rest = skip_noise(token).casefold()
            if rest in words and lp is not None and math.isfinite(lp):
                longer = [w for w in words if w != rest and w.startswith(rest)]
                if longer:
                    return (f"first token {token!r} may begin {longer[0]!r}: no exact score from first-token "
                            f"log-probabilities on {self.scale}")
        return None

    def unseen_labels(self, logprobs: Mapping[str, float] | None) -> str | None:
        """Why top log-probabilities that miss a label give no exact score, or None.

        A provider returns only its top-k first tokens. A label absent from them has an unknown
        probability, at most the mass outside the top tokens; storing it as 0 biased expected scores
        (on likert5 through llama.cpp's server, 0.04-0.10 points low in every cell, when the missing
        labels held 4.6%). Up to UNSEEN_MASS_MAX outside the top tokens the error is negligible and the
        label counts as 0; beyond it the row gets no exact score and this note bounds the missing mass."""
        if not logprobs or not self.labels:
            return None
        probs = [math.exp(lp) for lp in logprobs.values() if lp is not None and math.isfinite(lp)]
        seen = {self.parse(token) for token, lp in logprobs.items() if lp is not None and math.isfinite(lp)}
        missing = [label for value, label in self.labels.items() if value not in seen]
        outside = max(0.0, 1.0 - sum(probs))
        if not missing or not probs or outside <= UNSEEN_MASS_MAX:
            return None
        return (f"label(s) {', '.join(repr(w) for w in missing)} not among the {len(probs)} top first tokens: their "
                f"probability is unknown (together at most {outside:.3g}, the mass outside the top tokens; each at "
                f"most {min(probs):.3g}), so no exact score: ask the server for more top log-probabilities")

    def score_from_logprobs(self, logprobs: Mapping[str, float] | None) -> float | None:
        """exact_score from first-token top log-probabilities (see distribution_from_logprobs)."""
        dist = self.distribution_from_logprobs(logprobs)
        return None if dist is None else self.exact_score(dist)

    def draw(self, mass: Mapping[int, float], u: float) -> int:
        """The score a uniform draw ``u`` picks from the labels' distribution (inverse CDF, label order).

        For Yes/No: Yes when u < P(Yes | Yes or No), else No. ``mass`` must have positive total.
        """
        total = sum(mass.values())
        cumulative = 0.0
        values = list(self.labels)
        for value in values[:-1]:
            cumulative += mass[value] / total
            if u < cumulative:
                return value
        return values[-1]
