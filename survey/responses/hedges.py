"""Hedged replies: a reply that names two or more of the scale's labels is not an answer.

"Option 1 and 2", "1-5", "2 or 3", "Yes and no", "1, 2, 3" (to a best-worst question) hedge between
answers. Coding them as their first label would bias exactly what the position-bias and top-box tests
read (the first position, the low end of the range), so every scored type counts them as invalid, as it
counts any other reply that is not one of its labels (Helm & Priebe (2026) count unparseable replies and
never coerce them).

The rule reads what follows the leading label: separators and joining words ("or", "and", "to",
"maybe", ",", "-", "/", "(") and then a different label. A number followed by "out of" or "/" and the
top of its scale names the scale, not a second answer ("4/5", "7 out of 10"); so does the scale's range
before a colon ("1-5: 4" is 4 on a 1-5 scale; "1-4: 3" on it still hedges). A sentence's end does not
end a hedge when the next one starts with "or" or "maybe" ("3. Or maybe 4"). For word labels a comma or
dash before a second label counts only when that label ends the clause, so "Yes, no doubt" stays Yes
while "Yes, no." hedges; "or" and "/" always hedge ("Yes or no", "Yes/No"). A next sentence that is just
another label names it too ("Yes. No.", "3. 4."), while one that goes on stays the first label's ("Yes. No
doubt.", "3. 4 friends of mine would").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# What may stand between two labels of a hedge. "." and ":" are not here: a sentence or a clause ended.
_SEPARATOR = re.compile(r"[\s,;\-\u2013\u2014/&+(\[*'\"]+")
_JOINER = re.compile(r"(?:and/or|or|and|nor|to|through|till|until|versus|vs\.?|maybe|perhaps|possibly)(?![^\W_])",
                     re.IGNORECASE)
_ALWAYS = re.compile(r"/|\bor\b|\band/or\b|\bnor\b|\bmaybe\b|\bperhaps\b|\bpossibly\b|\bvs\b|\bversus\b",
                     re.IGNORECASE)
_OPTION = re.compile(r"options?\b[\s:#]*", re.IGNORECASE)
_NUMBER = re.compile(r"[-+\u2212]?\d+(?!\d)(?![.,]\d)")
_OUT_OF = re.compile(r"\s*(?:/|out\s+of\b|of\b)\s*(\d+)(?!\d)", re.IGNORECASE)
_RANGE_THEN_ANSWER = re.compile(r"\s*(?:-|\u2013|\u2014|to\b)\s*(\d+)\s*:\s*", re.IGNORECASE)
# a sentence ended, and the next one goes on hedging: "3. Or maybe 4", "Yes. Or no."
_SENTENCE_THEN_HEDGE = re.compile(r"[.!?:;]+(?=\s*(?:or|maybe|perhaps|possibly)(?![^\W_]))", re.IGNORECASE)
# a sentence ended: what starts the next one; and a label that is a whole sentence ("No." / "4" at the end)
_NEXT_SENTENCE = re.compile(r"[.!?]+[\s*_'\"]*")
_SENTENCE_ENDS = re.compile(r"[^\w.!?]*(?:[.!?]|$)")


def _continuations(after: str):
    """(what was skipped, what follows) at each point where a second label could start: after one or more
    separators and joining words. A joining word that is itself a label ("Maybe") is tried as a label first."""
    pos = 0
    while True:
        step = _SEPARATOR.match(after, pos) or _JOINER.match(after, pos) or _SENTENCE_THEN_HEDGE.match(after, pos)
        if step is None:
            return
        pos = step.end()
        yield after[:pos], after[pos:]


def answer_after_range(after: str, value: int, low: int, high: int) -> str | None:
    """The text after "low-high:" when a reply starts with the scale's exact range and a colon ("1-5: 4", "0 to
    10: 7"): what follows is the answer. None when it does not (``after`` follows the leading number ``value``)."""
    named = _RANGE_THEN_ANSWER.match(after) if value == low else None
    return after[named.end():] if named and int(named.group(1)) == high else None


def numbers_hedged(after: str, value: int, points: Iterable[int], top: int | None = None) -> bool:
    """True when ``after`` (the text after a leading number ``value``) goes on to name another of ``points``.

    ``top``: the scale's highest point, which "/ top" or "out of top" names as the scale ("4/5"); None
    for positions (pick one of k), where "1/3" is two options."""
    if top is not None:
        out_of = _OUT_OF.match(after)
        if out_of and int(out_of.group(1)) == top:
            after = after[out_of.end():]
    points = set(points)
    if next_sentence := _NEXT_SENTENCE.match(after):  # "3. 4.": the next sentence is another point
        rest = after[next_sentence.end():]
        option = _OPTION.match(rest)
        number = _NUMBER.match(rest, option.end() if option else 0)
        if number and _SENTENCE_ENDS.match(rest, number.end()) and \
                int(number.group().replace("\u2212", "-")) in points - {value}:
            return True
    for _, rest in _continuations(after):
        option = _OPTION.match(rest)
        number = _NUMBER.match(rest[option.end():] if option else rest)
        if number:
            other = int(number.group().replace("\u2212", "-"))
            if other != value and other in points:
                return True
    return False


def words_hedged(after: str, word: str, words: Iterable[str]) -> bool:
    """True when ``after`` (casefolded text after the leading label ``word``) goes on to name another label.

    ``words``: every label, casefolded."""
    others = sorted((w for w in words if w != word), key=len, reverse=True)  # "probably not" before "probably"
    if next_sentence := _NEXT_SENTENCE.match(after):  # "Yes. No.": the next sentence is another label
        start = next_sentence.end()
        other = next((w for w in others if after.startswith(w, start) and not after[start + len(w):][:1].isalnum()),
                     None)
        if other and _SENTENCE_ENDS.match(after, start + len(other)):  # not "Yes. No doubt."
            return True
    for joined, rest in _continuations(after):
        for other in others:
            if not rest.startswith(other):
                continue
            tail = rest[len(other):]
            if tail[:1].isalnum():
                continue  # "nothing" is not "no"
            ends_clause = not tail.lstrip()[:1].isalnum()
            return bool(_ALWAYS.search(joined)) or ends_clause
    return False
