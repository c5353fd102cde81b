"""Yes/No answers, the paper's question: 1 (Yes), 0 (No), empty (invalid, raw text kept)."""

from __future__ import annotations

from types import MappingProxyType

from survey.responses.base import ResponseType

PAPER_QUESTION = ('A customer said: "{perturbation}" Based on this, would you personally be '
                  'interested in buying the product they are describing?')


class Binary(ResponseType):
    """Helm & Priebe (2026): one token, Yes or No; the exact score is P(Yes | Yes or No)."""

    scale = "binary"
    labels = MappingProxyType({1: "Yes", 0: "No"})  # Yes first: the local backend's draw is Yes iff u < P(Yes)
    template = PAPER_QUESTION
    max_tokens = 1
    kind = "binary"
    quantity = "P(Yes)"
    ranged = False
    p_yes_says_all = True
    states_distribution = True


def from_name(scale: str) -> Binary | None:
    """The Yes/No type for its name (survey.responses registers one under "binary")."""
    return Binary() if scale == "binary" else None
