"""Several options ticked (``type = "checkbox"`` with ``options``, ``min_choices``, ``max_choices``): "which of
these describe the product?", the same options listed for every message.

The answer is a bit set, option i (1-based) adding 2^(i-1): "1, 3" is 5; none ticked is 0 (valid only with
min_choices = 0). The scale's name says the number of options and the bounds on how many may be ticked:
``checkbox5`` (1 to 5 of 5 options), ``checkbox5-0-2`` (0 to 2). Rows of a run also carry the option names
(column ``options``, joined by "|").

How a reply becomes an answer (docs/question-kinds.md lists these rules): anything up to a colon is skipped
("Answer: 1, 3"); the rest is split at commas, semicolons, slashes, line breaks and the words "and" / "&"; each
part, stripped of spaces, quotes, brackets, asterisks and a final full stop, must be an option's number or its
name (case-insensitive; a name holding a separator, "warm and dry", is kept whole), or both as the question
lists them ("3. good value", "3) good value"). "none" (or "none of these") is the empty set. A part that is neither, an option named
twice, or a count outside [min_choices, max_choices] makes the reply invalid.
"""

from __future__ import annotations

import math
import re
from functools import cached_property
from types import MappingProxyType

from survey.errors import SurveyError
from survey.responses.base import ResponseType
from survey.responses.view import AnalysisView

OPTIONS_MAX = 12  # the answer is a bit set in the long table's 16-bit answer column
_NAME = re.compile(r"^checkbox(\d+)(?:-(\d+)-(\d+))?$")
_SPLIT = re.compile(r"\s*(?:[,;/\n]|\band\b|&)\s*", re.IGNORECASE)
_STRIP = " \t\"'`*()[]{}.!"
_NONE = {"none", "none of these", "none of them", "none of the above"}
_NUMBERED = re.compile(r"^(\d+)\s*[.)\-:]\s*(.+)$")  # "3. good value", "3) good value": the list echoed


def check_options(options, min_choices: int, max_choices: int) -> tuple[str, ...]:
    """The options as given, or a SurveyError naming the one problem (one line)."""
    options = tuple(str(o).strip() for o in options)
    if not options:
        raise SurveyError("a checkbox question needs options: give at least 2, e.g. options = ['comfortable', "
                          "'stylish']")
    if len(options) < 2 or len(options) > OPTIONS_MAX:
        raise SurveyError(f"a checkbox question takes 2 to {OPTIONS_MAX} options; got {len(options)}")
    if any(not o for o in options):
        raise SurveyError("a checkbox option is empty; give every option a name")
    seen = [o.casefold() for o in options]
    dup = next((o for i, o in enumerate(options) if seen.index(o.casefold()) != i), None)
    if dup is not None:
        raise SurveyError(f"option '{dup}' is listed twice; give each option once")
    # "2" in a reply is the second option: an option named "2" elsewhere could not be told apart from it (a scale
    # built from its name, "checkbox4", names each option by its own number, which is no ambiguity)
    number = next((o for i, o in enumerate(options) if o.isdigit() and int(o) != i + 1), None)
    if number is not None:
        raise SurveyError(f"option '{number}' is a bare number, which a reply reads as an option's position: name it "
                          f"in words (e.g. '{number} pairs')")
    piped = next((o for o in options if "|" in o), None)
    if piped is not None:  # the table's `options` column joins the names with "|"
        raise SurveyError(f"option '{piped}' holds '|', which joins the option names in the table: use another "
                          "character")
    none = next((o for o in options if o.casefold() in _NONE), None)
    if none is not None:
        raise SurveyError(f"option '{none}' is what a reply says when it ticks nothing: name it otherwise, or allow "
                          "no tick with min_choices = 0")
    if max_choices < 1:
        raise SurveyError("max_choices = 0 lets no option be ticked, so every answer is 'none': allow at least 1")
    if not 0 <= min_choices <= max_choices:
        raise SurveyError(f"min_choices must be at most max_choices; got min_choices = {min_choices}, "
                          f"max_choices = {max_choices}")
    if max_choices > len(options):
        raise SurveyError(f"max_choices = {max_choices} is more than the {len(options)} options")
    return options


class CheckboxScale(ResponseType):
    """``options`` ticked, ``low`` to ``high`` of them; the answer a bit set (see the module's docstring)."""

    kind = "checkbox"
    ranged = False
    human_replies = True  # a human file says "1, 3" or "comfortable, good value", never the bit set

    def __init__(self, options, min_choices: int = 1, max_choices: int | None = None, template: str | None = None,
                 max_tokens: int | None = None):
        max_choices = len(tuple(options)) if max_choices is None else int(max_choices)
        self.options = check_options(options, int(min_choices), max_choices)
        self.k, self.low, self.high = len(self.options), int(min_choices), max_choices
        self.scale = f"checkbox{self.k}" + ("" if (self.low, self.high) == (1, self.k) else f"-{self.low}-{self.high}")
        listed = "\n".join(f"{i + 1}. {o}" for i, o in enumerate(self.options))
        self.template = (template or ('A customer said: "{perturbation}" Which of these describe the product?\n'
                                      "{choices}\nAnswer with the numbers of every option that applies, separated "
                                      "by commas.")).replace("{choices}", listed)
        self.max_tokens = max_tokens or 12
        self.reply_extra = {"options": list(self.options)}
        self.first_words = tuple(str(i + 1) for i in range(min(self.k, 9))) + (("none",) if self.low == 0 else ())

    @property
    def scored(self) -> bool:
        return True

    @cached_property
    def values(self) -> frozenset:
        return frozenset(mask for mask in range(1 << self.k) if self.low <= bin(mask).count("1") <= self.high)

    def fidelity_levels(self):
        """None: a bit set is no one level to set beside people's. People's checkbox answers are compared option by
        option, each option's ticked / not ticked a Yes/No answer (survey.kinds.checkbox.humans.checkbox_fidelity)."""
        return None

    def describe_values(self) -> str:
        return (f"a bit set of {self.low} to {self.high} of {self.k} options (option i adds 2^(i-1): options 1 and "
                "3 are 5)")

    def answer_instruction(self) -> str:
        return "Answer ONLY with the numbers of the options that apply, separated by commas. Do not explain."

    @property
    def named(self) -> bool:
        """Whether the options have names of their own (a scale built from its name alone calls them 1..k)."""
        return self.options != tuple(str(i + 1) for i in range(self.k))

    def describe_human_answers(self) -> str:
        count = f"{self.low} to {self.high}" if self.low != self.high else f"{self.low}"
        if not self.named:
            return (f"{count} of the options 1 to {self.k} by number, as a reply names them (\"1, 3\"); their names "
                    "are not known here: read the file against the study, or a store or table whose rows hold the "
                    "options (column 'options')")
        listed = ", ".join(f"{i + 1}. {o}" for i, o in enumerate(self.options))
        return (f"{count} of the options ({listed}) by number or name, as a reply names them (\"1, 3\" or "
                f"\"{self.options[0]} and {self.options[-1]}\")")

    def for_rows(self, rows) -> CheckboxScale:
        """This scale with the option names the rows stored (column ``options``, joined by "|"; the first list
        given, as the analysis labels the options: survey.kinds.checkbox.analysis), else as it is."""
        named = rows["options"].dropna() if "options" in getattr(rows, "columns", ()) else ()
        names = str(named.iloc[0]).split("|") if len(named) else []
        if len(names) != self.k or tuple(names) == self.options:
            return self
        try:
            return CheckboxScale(names, self.low, self.high)
        except SurveyError as exc:  # a table edited by hand: say where the options came from
            raise SurveyError(f"the rows' options ({' | '.join(names)}): {exc}") from None

    def parse(self, text: str | None) -> int | None:
        if not text or not text.strip():
            return None
        text = self._named_whole(text)
        rest = text.split(":", 1)[1] if ":" in text else text
        names = {o.casefold(): i for i, o in enumerate(self.options)}
        rest = self._protect_names(rest, names)
        parts = [p.strip(_STRIP).casefold() for p in _SPLIT.split(rest.strip())]
        parts = [p for p in parts if p]
        if len(parts) == 1 and parts[0] in _NONE:
            return 0 if self.low == 0 else None
        mask = 0
        for part in parts:
            numbered = _NUMBERED.match(part)
            if numbered and names.get(numbered.group(2).strip(_STRIP)) == int(numbered.group(1)) - 1:
                part = numbered.group(1)  # the option's number with its own name
            i = int(part) - 1 if part.isdigit() else names.get(part)
            if i is None or not 0 <= i < self.k or mask >> i & 1:
                return None
            mask |= 1 << i
        return mask if self.low <= bin(mask).count("1") <= self.high and parts else None

    def _protect_names(self, rest: str, names: dict) -> str:
        """``rest`` with every option name that holds a separator ("warm and dry", "light/airy") written as one
        token, so that the split below keeps it whole; the token maps back to the name in ``names``."""
        for name in sorted((n for n in names if _SPLIT.search(n)), key=len, reverse=True):
            token = f"option{names[name] + 1}name"
            names.setdefault(token, names[name])
            rest = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", token, rest, flags=re.IGNORECASE)
        return rest

    @cached_property
    def _joined_names(self) -> list[tuple[re.Pattern, str]]:
        """The options whose names hold a separator (",", "and", "/", ...) or a colon, longest first, each with
        the pattern that finds it named whole in a reply: a reply naming "black and white" means that option."""
        joined = [(i, o) for i, o in enumerate(self.options) if _SPLIT.search(o) or ":" in o]
        return [(re.compile(r"(?<!\w)" + re.escape(o) + r"(?!\w)", re.IGNORECASE), str(i + 1))
                for i, o in sorted(joined, key=lambda x: -len(x[1]))]

    def _named_whole(self, text: str) -> str:
        """``text`` with each option whose name holds a separator, where named whole, replaced by its number (the
        list echoed, "2. black and white", keeps its number only)."""
        for pattern, number in self._joined_names:
            text = re.sub(r"(?<!\d)" + number + r"\s*[.)\-:]\s*" + pattern.pattern, number, text,
                          flags=re.IGNORECASE)
            text = pattern.sub(number, text)
        return text

    def ticked(self, mask: int) -> list[str]:
        return [o for i, o in enumerate(self.options) if int(mask) >> i & 1]

    def simulated_reply(self, location: float, rng) -> str:
        """A simulated respondent ticks option i with probability expit(location + c_i), c_i spread from +1 for
        the first option to -1 for the last; ticks are then added (most likely first) or dropped (least likely
        first) to fit [min_choices, max_choices]."""
        c = [1.0 - 2.0 * i / max(self.k - 1, 1) for i in range(self.k)]
        p = [1.0 / (1.0 + math.exp(-(location + ci))) for ci in c]
        ticked = [i for i in range(self.k) if rng.random() < p[i]]
        by_p = sorted(range(self.k), key=lambda i: -p[i])
        while len(ticked) < self.low:
            ticked.append(next(i for i in by_p if i not in ticked))
        while len(ticked) > self.high:
            ticked.remove(min(ticked, key=lambda i: p[i]))
        return ", ".join(str(i + 1) for i in sorted(ticked)) if ticked else "none"

    @cached_property
    def view(self) -> AnalysisView:
        points = tuple(range(1, self.k + 1))
        return AnalysisView(self.kind, self.scale, "share choosing", 0.0, 1.0, points,
                            MappingProxyType(dict(zip(points, self.options, strict=True))), (), ranged=False,
                            averaged=False)  # the answer codes the boxes ticked


def from_name(scale: str) -> CheckboxScale | None:
    """The checkbox scale a name such as "checkbox5" or "checkbox5-0-2" gives (options named "1".."k"); None for
    another kind's name, a SurveyError for a checkbox name that is no scale ("checkbox13")."""
    match = _NAME.match(scale) if isinstance(scale, str) else None
    if match is None:
        return None
    k = int(match.group(1))
    low, high = (1, k) if match.group(2) is None else (int(match.group(2)), int(match.group(3)))
    try:
        return CheckboxScale([str(i + 1) for i in range(k)], low, high)
    except SurveyError as exc:  # "checkbox13", "checkbox4-3-2": refused in the kind's own words
        raise SurveyError(f"scale '{scale}': {exc}") from None
