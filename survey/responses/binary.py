"""Turning a reply into an answer: 1 (Yes), 0 (No) or None (invalid, raw text kept elsewhere).

The paper keeps replies that start with "Yes" or "No". We skip leading whitespace and punctuation
(quotes, asterisks, brackets: models like **Yes**) and compare case-insensitively, but require a
word boundary after the word: "Yesterday" or "Not sure" are not answers, they are invalid.
"""

from __future__ import annotations

import math
import unicodedata

_WORDS = {"yes": 1, "no": 0}


def _skip_noise(text: str) -> str:
    """Drop leading whitespace, punctuation and symbols (Unicode categories Z*, P*, S*, C*)."""
    i = 0
    while i < len(text) and unicodedata.category(text[i])[0] in "ZPSC":
        i += 1
    return text[i:]


def parse_answer(text: str | None) -> int | None:
    """1 for a reply starting with Yes, 0 for No, None for anything else (including None/empty)."""
    if not text:
        return None
    rest = _skip_noise(text).casefold()
    for word, value in _WORDS.items():
        if rest.startswith(word):
            after = rest[len(word):len(word) + 1]
            if not after or not after.isalnum():
                return value
    return None


def p_yes_from_logprobs(logprobs: dict[str, float] | None) -> float | None:
    """P(Yes | Yes or No) from first-token top log-probabilities.

    Every top token that parses as Yes (" Yes", "yes", "YES") adds to P(Yes), likewise for No;
    None when neither appears among the top tokens.
    """
    if not logprobs:
        return None
    mass = [0.0, 0.0]
    for token, lp in logprobs.items():
        ans = parse_answer(token)
        if ans is not None and lp is not None and math.isfinite(lp):
            mass[ans] += math.exp(lp)
    total = mass[0] + mass[1]
    return mass[1] / total if total > 0 else None
