"""A bounded number (``type = "numeric"`` with ``min``, ``max``, ``unit``): willingness to pay, a 0-100
probability, a count. The scale's name says its bounds and what a cell summary is computed on, so a table's
``scale`` column is enough to validate its answers: ``numeric0to100``, ``numeric0to1.5``, ``numeric-10to10``;
``numeric0to500_log`` compares the mean of log(1 + value) (needs min >= 0), ``numeric0to500_trimmed`` the mean
of the values winsorized at the 5th and 95th percentiles of both messages' valid answers pooled.

How a reply becomes a number (the first number in it; docs/question-kinds.md lists these rules):

* leading words and signs are skipped: "about $12", "I'd pay €12.50", "Roughly 40%" give 12, 12.5 and 40;
* a comma followed by groups of exactly three digits separates thousands ("1,200" is 1200); any other comma
  ends the number ("1,5" is 1); a space never joins digits ("1 200" is 1);
* a ``k`` right after the number multiplies it by 1000 ("$12k" is 12000); other letters right after the number
  make the reply invalid ("3rd", "12x");
* a range "12-15", "12 - 15", "$12–$15" or "12 to 15" is its midpoint (13.5);
* a minus sign right before the digits makes the number negative ("-5"), unless it follows a number (a range);
* a value outside [min, max] is invalid, never clipped; a reply without a number is invalid.

Answers are stored as floating-point numbers (the long table's ``answer`` is Float64 for this kind).
"""

from __future__ import annotations

import math
import re
from functools import cached_property
from types import MappingProxyType

import numpy as np

from survey.errors import SurveyError
from survey.responses.base import ResponseType
from survey.responses.view import AnalysisView

SUMMARIES = ("mean", "log", "trimmed")
TRIM = 0.05  # the trimmed summary winsorizes at these pooled quantiles (and 1 - TRIM)
LEVELS = 10  # human fidelity compares the numbers' distributions over tenths of the range
NOISE = 0.5  # a simulated reply's own noise on the latent logit scale (survey.kinds.numeric.power)
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_FIRST = re.compile(rf"(?P<sign>[-\u2212])?(?P<num>{_NUM})(?P<k>[kK](?![A-Za-z]))?")
_RANGE = re.compile(rf"\s*(?:-|\u2013|\u2014|to)\s*[$€£¥]?\s*(?P<num>{_NUM})(?P<k>[kK](?![A-Za-z]))?")
_NAME = re.compile(r"^numeric(-?\d+(?:\.\d+)?)to(-?\d+(?:\.\d+)?)(?:_(log|trimmed))?$")


def _number(match) -> float:
    value = float(match.group("num").replace(",", ""))
    return value * 1000 if match.group("k") else value


def first_number(text: str | None) -> float | None:
    """The first number of a reply by the rules in the module's docstring (a range gives its midpoint), or None."""
    if not text:
        return None
    match = _FIRST.search(text)
    if match is None:
        return None
    end = match.end()
    if end < len(text) and text[end].isalpha():  # "3rd", "12x": not a number answer
        return None
    sign = -1.0 if match.group("sign") and (match.start() == 0 or not text[match.start() - 1].isalnum()) else 1.0
    value = sign * _number(match)
    rng = _RANGE.match(text, end)
    if rng is not None and not text[rng.end():rng.end() + 1].isalpha():
        value = (value + _number(rng)) / 2
    return value if math.isfinite(value) else None


BOUND = 1e15  # past this a float no longer holds every whole number, and the scale's name grows without end


def number_text(x: float) -> str:
    """The shortest digits that read back as x, never an exponent: the scale's name must parse back to its bounds."""
    return np.format_float_positional(float(x), trim="-")


class NumericScale(ResponseType):
    """A number in [low, high]; ``summary`` what a cell summary is computed on ("mean", "log", "trimmed")."""

    kind = "numeric"
    answer_dtype = "Float64"
    first_words = (*"0123456789", "$", "€", "£")
    simulated_as_score = False

    def __init__(self, low: float, high: float, summary: str = "mean", unit: str = "", template: str | None = None,
                 max_tokens: int | None = None):
        low, high = float(low), float(high)
        if not (math.isfinite(low) and math.isfinite(high)):
            raise SurveyError(f"a numeric question needs finite min and max; got {low} and {high}")
        if max(abs(low), abs(high)) > BOUND:
            raise SurveyError(f"min and max must lie within ±{BOUND:,.0f}; got min = {low:g}, max = {high:g} "
                              "(give the answer in a larger unit)")
        if low >= high:
            raise SurveyError(f"min must be below max; got min = {number_text(low)}, max = {number_text(high)}")
        if summary not in SUMMARIES:
            raise SurveyError(f"summary must be one of {', '.join(SUMMARIES)}; got '{summary}'")
        if summary == "log" and low < 0:
            raise SurveyError(f"summary = 'log' compares log(1 + value) and needs min >= 0; got min = {number_text(low)}")
        self.low, self.high, self.summary, self.unit = low, high, summary, unit
        if unit:  # stored with every reply: the table's `unit` column, which the analysis and text name
            self.reply_extra = {"unit": unit}
        self.scale = f"numeric{number_text(low)}to{number_text(high)}" + ("" if summary == "mean" else f"_{summary}")
        words = f" in {unit}" if unit else ""
        self.template = template or ('A customer said: "{perturbation}" How much would you pay for it' + words
                                     + f"? Answer with one number between {number_text(low)} and {number_text(high)}.")
        self.max_tokens = max_tokens or 8

    @property
    def scored(self) -> bool:
        return True

    @property
    def values(self) -> frozenset:
        return frozenset()  # every number in the range: valid_answers checks the range

    def valid_answers(self, answers):
        return answers.between(self.low, self.high)

    def fidelity_levels(self):
        """The tenths of [low, high], each at its midpoint in the answer's unit, so that a mean over them (the levels
        table's "human mean") is a number on the question's scale, not a tenth's index."""
        return self._tenth_midpoints, True

    @cached_property
    def _tenth_midpoints(self) -> tuple[float, ...]:
        width = (self.high - self.low) / LEVELS
        return tuple(self.low + (i + 0.5) * width for i in range(LEVELS))

    def fidelity_labels(self) -> dict:
        width = (self.high - self.low) / LEVELS
        return {mid: f"{self.low + i * width:g}–{self.low + (i + 1) * width:g}"
                for i, mid in enumerate(self._tenth_midpoints)}

    def fidelity_level(self, answers):
        """The midpoint of the tenth of [low, high] each number falls in (the top edge in the last); an invalid
        answer (NaN) stays missing, as the other kinds' invalid answers do."""
        tenth = ((answers.astype(float) - self.low) / (self.high - self.low) * LEVELS).clip(0, LEVELS - 1)
        index = np.floor(tenth.to_numpy(dtype=float, na_value=np.nan))
        known = ~np.isnan(index)
        out = np.full(len(index), np.nan)
        out[known] = np.asarray(self._tenth_midpoints)[index[known].astype(int)]
        return answers.__class__(out, index=answers.index, dtype=float)

    def describe_values(self) -> str:
        return f"a number from {number_text(self.low)} to {number_text(self.high)}"

    def answer_instruction(self) -> str:
        return f"Answer ONLY with one number between {number_text(self.low)} and {number_text(self.high)}. Do not explain."

    def parse(self, text: str | None) -> float | None:
        value = first_number(text)
        return value if value is not None and self.low <= value <= self.high else None

    def simulated_reply(self, location: float, rng) -> str:
        """A simulated respondent's reply at a cell's latent ``location`` (survey.kinds.numeric.power's model)."""
        value = self.low + (self.high - self.low) / (1.0 + math.exp(-(location + rng.normal(0.0, NOISE))))
        return f"{value:.2f}"

    @cached_property
    def view(self) -> AnalysisView:
        lo, hi = (math.log1p(self.low), math.log1p(self.high)) if self.summary == "log" else (self.low, self.high)
        quantity = {"mean": "mean", "log": "mean log(1 + value)", "trimmed": "trimmed mean"}[self.summary]
        return AnalysisView(self.kind, self.scale, quantity, lo, hi, (self.low, self.high),
                            MappingProxyType({}), (), ranged=True, ordered=False)


def from_name(scale: str) -> NumericScale | None:
    """The numeric scale a name such as "numeric0to100" or "numeric0to500_log" gives; None for another kind's name,
    a SurveyError for a numeric name that is no scale ("numeric5to1")."""
    match = _NAME.match(scale) if isinstance(scale, str) else None
    if match is None:
        return None
    try:
        return NumericScale(float(match.group(1)), float(match.group(2)), match.group(3) or "mean")
    except SurveyError as exc:  # "numeric5to1": refused in the kind's own words
        raise SurveyError(f"scale '{scale}': {exc}") from None
