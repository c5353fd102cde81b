"""Rating scales: K labelled points (``likert``) and numeric ranges (``rating``), scored by their points.

A scale's name says its scores, so a table's ``scale`` column is enough to validate answers:
``likert5`` (scores 1..5), ``likert0-4`` (consecutive scores 0..4, e.g. a Likert scored from 0),
``rating0-10``, ``rating1-7``. Labels are the words a model answers with: the scores' digits by
default (one token each for most tokenizers, so exact mode can read them), or the study's own
words ("Definitely not", ...). The mean score per paraphrase is what the A/B tests compare;
top-2-box (the two highest points) is what marketers read.

Numbers are parsed as numbers: a reply counts when it starts with a whole number that is one of the
scale's points. "4." and "4/5" are 4; "0" on a 1-7 scale, "4.5", "-1" and "11" on 0-10 are invalid,
never clipped or rounded (Helm & Priebe (2026) count unparseable replies; they never coerce them).
A reply naming two points ("2 or 3", "1-5", "3. Or maybe 4") is invalid too (survey.responses.hedges);
the scale's own range before a colon names the scale ("1-5: 4" is 4).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from types import MappingProxyType

from survey.errors import SurveyError
from survey.responses.base import ResponseType
from survey.responses.hedges import answer_after_range, numbers_hedged

POINTS_MAX = 101  # a 0-100 slider is the widest scale a first-token distribution can sensibly cover
_SIGNED_NUMBER = re.compile(r"[-+\u2212]?\d+(?:[.,]\d+)?")


def skip_to_number(text: str) -> str:
    """Drop leading whitespace, quotes, asterisks and brackets, but keep a sign: "-1" is not "1"."""
    i = 0
    while i < len(text) and not (text[i].isalnum() or text[i] in "-+\u2212"):
        i += 1
    return text[i:]


class NumericLabels(ResponseType):
    """Labels that are whole numbers ("1".."5", "0".."10"): a reply's leading number is its answer."""

    def parse(self, text: str | None) -> int | None:
        if not text:
            return None
        rest = skip_to_number(text)
        match = _SIGNED_NUMBER.match(rest)
        if not match:
            return None
        token = match.group().replace("\u2212", "-")
        # "4.5" or "4,5" is not a point of the scale; only a bare whole number can be
        if not re.fullmatch(r"[-+]?\d+", token):
            return None
        after = rest[match.end():match.end() + 1]
        if after.isalpha():  # "5th", "1st": words, not answers
            return None
        value = int(token)
        if value not in self.labels:
            return None
        # "2 or 3", "1-5": a second point is a hedge; "4/5", "7 out of 10" name the scale (ordered scales only),
        # and so does its range before a colon: "1-5: 4" answers 4
        top = max(self.labels) if self.ordered else None
        if top is not None and (answer := answer_after_range(rest[match.end():], value, min(self.labels), top)):
            return NumericLabels.parse(self, answer)
        return None if numbers_hedged(rest[match.end():], value, self.labels, top) else value


class OrdinalScale(ResponseType):
    """K ordered points with consecutive whole-number scores; ``family`` is "likert" or "rating"."""

    kind = "ordinal"
    ordered = True
    states_distribution = True
    family: str  # "likert" or "rating"

    def __init__(self, kind: str, scores: Sequence[int], labels: Sequence[str] | None, template: str | None,
                 max_tokens: int | None = None):
        if len(scores) > POINTS_MAX:  # before building anything: a range of a billion points is one len()
            raise SurveyError(f"a {kind} scale needs 2 to {POINTS_MAX} points; got {len(scores):,}")
        scores = [int(s) for s in scores]
        if len(scores) < 2 or len(scores) > POINTS_MAX:
            raise SurveyError(f"a {kind} scale needs 2 to {POINTS_MAX} points; got {len(scores)}")
        if scores != list(range(scores[0], scores[0] + len(scores))):
            raise SurveyError(f"{kind} scores must be consecutive whole numbers in increasing order, "
                              f"e.g. 1, 2, 3, 4, 5; got {', '.join(map(str, scores))}")
        words = [str(s) for s in scores] if labels is None else [str(w).strip() for w in labels]
        if len(words) != len(scores):
            raise SurveyError(f"{kind} scale: {len(words)} labels for {len(scores)} points; give one label per point")
        if any(not w for w in words) or len({w.casefold() for w in words}) != len(words):
            raise SurveyError(f"{kind} scale: labels must be distinct and non-empty; got {words}")
        self.family = kind
        self.numeric = labels is None or all(w == str(s) for w, s in zip(words, scores, strict=True))
        self.labels = MappingProxyType(dict(zip(scores, words, strict=True)))
        lo, hi = scores[0], scores[-1]
        self.scale = (f"{kind}{len(scores)}" if kind == "likert" and lo == 1 else f"{kind}{lo}-{hi}")
        self.template = template or self.default_template()
        # digits: one or two tokens (and a period); words may take several
        self.max_tokens = max_tokens or (3 if self.numeric else max(8, 2 * max(len(w.split()) for w in words)))

    def parse(self, text: str | None) -> int | None:
        return NumericLabels.parse(self, text) if self.numeric else ResponseType.parse(self, text)

    def describe_values(self) -> str:
        return ", ".join(map(str, self.labels)) if self.numeric else super().describe_values()

    @property
    def low(self) -> int:
        return min(self.labels)

    @property
    def high(self) -> int:
        return max(self.labels)

    @property
    def points(self) -> int:
        return len(self.labels)

    @property
    def top_box(self) -> frozenset[int]:
        """The two highest points (top-2-box); empty for scales of fewer than four points, where the
        two highest are half the scale or more and the share says nothing the mean does not."""
        return frozenset((self.high, self.high - 1)) if self.points >= 4 else frozenset()

    def answer_instruction(self) -> str:
        if self.numeric:
            return f"Answer ONLY with a whole number from {self.low} to {self.high}. Do not explain."
        return "Answer ONLY with one of: " + ", ".join(f"'{w}'" for w in self.labels.values()) + ". Do not explain."

    def default_template(self) -> str:
        if self.family == "rating":
            return ('A customer said: "{perturbation}" How appealing is the product they are describing to you '
                    f'personally, from {self.low} (not at all appealing) to {self.high} (extremely appealing)? '
                    'Answer with a single whole number.')
        if self.numeric:
            return ('A customer said: "{perturbation}" How likely would you personally be to buy the product they '
                    f'are describing, from {self.low} (definitely would not buy) to {self.high} (definitely would '
                    'buy)? Answer with a single whole number.')
        words = ", ".join(f"'{w}'" for w in self.labels.values())
        return ('A customer said: "{perturbation}" Would you personally buy the product they are describing? '
                f'Answer with one of: {words}.')


def likert(points: int = 5, labels: Sequence[str] | None = None, scores: Sequence[int] | None = None,
           template: str | None = None, max_tokens: int | None = None) -> OrdinalScale:
    """A K-point Likert scale, scored 1..K unless ``scores`` says otherwise."""
    if labels is not None and scores is None and points != len(labels):
        points = len(labels)
    scores = scores if scores is not None else range(1, int(points) + 1)
    return OrdinalScale("likert", scores, labels, template, max_tokens)


def rating(low: int = 0, high: int = 10, template: str | None = None, max_tokens: int | None = None) -> OrdinalScale:
    """A numeric rating from ``low`` to ``high`` (whole numbers), e.g. 0-10."""
    if int(high) <= int(low):
        raise SurveyError(f"a rating needs low < high; got {low} to {high}")
    return OrdinalScale("rating", range(int(low), int(high) + 1), None, template, max_tokens)


_NAME = re.compile(r"^(likert)(\d+)$|^(likert|rating)(-?\d+)-(-?\d+)$")


def points_named(scale: str) -> int | None:
    """How many points a rating-family name ("likert5", "rating0-10") spells out, without building it."""
    match = _NAME.match(scale) if isinstance(scale, str) else None
    if not match:
        return None
    return int(match.group(2)) if match.group(1) else int(match.group(5)) - int(match.group(4)) + 1


def from_name(scale: str) -> OrdinalScale | None:
    """The scale a name like "likert5", "likert0-4" or "rating0-10" stands for; None if it is no such name."""
    match = _NAME.match(scale)
    if not match:
        return None
    if match.group(1):
        return likert(int(match.group(2)))
    kind, lo, hi = match.group(3), int(match.group(4)), int(match.group(5))
    if hi <= lo:
        raise SurveyError(f"scale '{scale}': the range must go from low to high, e.g. {kind}0-10")
    if hi - lo + 1 > POINTS_MAX:
        raise SurveyError(f"scale '{scale}' has {hi - lo + 1} points; at most {POINTS_MAX}")
    return likert(scores=range(lo, hi + 1)) if kind == "likert" else rating(lo, hi)
