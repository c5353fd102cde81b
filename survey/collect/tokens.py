"""Token estimates from prompt lengths, for rate limits and cost before anything is sent (providers bill
real usage, which the store keeps)."""

from __future__ import annotations

from survey.backends.base import Query

CHARS_PER_TOKEN = 4  # rough estimate for rate limiting and cost; providers bill real usage


def estimate_tokens(q: Query) -> int:
    """Prompt tokens (+ chat-template overhead) plus the reply budget: the unit of a tpm limit."""
    return (len(q.system) + len(q.user)) // CHARS_PER_TOKEN + 8 + q.max_tokens


def prompt_tokens(system: str, user: str) -> int:
    """estimate_tokens without the reply budget, from the prompts' lengths."""
    return (len(system) + len(user)) // CHARS_PER_TOKEN + 8
