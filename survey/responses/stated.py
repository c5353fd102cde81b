"""Stated probabilities (``elicit = "distribution"``): the model is asked for a probability per answer option, as
one JSON object, instead of one answer.

Most hosted models give no log-probabilities, so exact mode (the expected score from the labels' probabilities,
free of replicate noise) is closed to them. Asking for the distribution in words opens a stand-in: the reply
``{"Yes": 0.7, "No": 0.3}`` is parsed strictly (every option named exactly as the question's labels, each a
number in [0, 1], the sum within SUM_TOLERANCE of 1 and then renormalised; anything else is an invalid answer
whose reason is stored) and stored as exact mode stores its distribution: the expected score as the row's
``expected`` (P(Yes) for Yes/No), the distribution over scores in ``distribution`` beyond Yes/No, and an answer
drawn from it with a uniform seeded by the row key (as exact mode draws replicates), so every analysis reads it
unchanged. Whether stated numbers track the model's own probabilities is measured in bench/stated_vs_logprob.py.

``StatedDistribution`` wraps a response type: the same scale, labels and analysis view (the analysis cannot
tell the difference), another question ending and reply length.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

SUM_TOLERANCE = 0.05  # |sum - 1| up to this is rounding, renormalised; beyond it the reply is invalid
ELICIT = ("answer", "distribution")


def request_text(labels: Mapping[int, str]) -> str:
    """The sentence appended to the question: the JSON object to reply with, its keys the labels."""
    example = json.dumps({w: 0.0 for w in labels.values()}, ensure_ascii=False).replace("0.0", "p")
    return ("Reply ONLY with a JSON object giving, for each possible answer, the probability (a number from 0 "
            f"to 1) that you would give it, the probabilities summing to 1: {example}")


def json_schema(labels: Mapping[int, str]) -> dict:
    """The reply's JSON schema for servers with structured output: every label a required number in [0, 1]."""
    return {"type": "object", "additionalProperties": False, "required": list(labels.values()),
            "properties": {w: {"type": "number", "minimum": 0, "maximum": 1} for w in labels.values()}}


def _json_text(text: str) -> str:
    """The reply without surrounding whitespace and a Markdown code fence (```json ... ```), which chat models
    put around JSON unasked; everything else must be the object itself."""
    body = text.strip()
    if body.startswith("```") and body.endswith("```") and len(body) >= 6:
        body = body[3:-3]
        if body[:4].casefold() == "json":
            body = body[4:]
        body = body.strip()
    return body


def _short(text: str) -> str:
    shown = " ".join(text.split())
    return repr(shown[:60] + ("..." if len(shown) > 60 else ""))


def parse_distribution(labels: Mapping[int, str], text: str | None) -> tuple[dict[int, float] | None, str | None]:
    """(score -> probability, None) for a valid stated distribution, else (None, the reason it is invalid)."""
    body = _json_text(text or "")
    if not body:
        return None, "empty reply"
    try:  # NaN and Infinity read as themselves, to be named in the reason; pairs kept to catch a repeated option
        obj = json.loads(body, parse_constant=float, object_pairs_hook=list)
    except ValueError:
        return None, f"not a JSON object: {_short(body)}"
    if not isinstance(obj, list) or not all(isinstance(pair, tuple) for pair in obj):
        return None, f"not a JSON object: {_short(body)}"
    keys = [k for k, _ in obj]
    repeated = [k for i, k in enumerate(keys) if k in keys[:i]]
    if repeated:  # JSON keeps the last silently: which probability was meant is not known
        return None, f"option {repeated[0]!r} is given twice"
    obj = dict(obj)
    by_word = {w: v for v, w in labels.items()}
    unknown = [k for k in obj if k not in by_word]
    if unknown:
        return None, (f"unknown option {unknown[0]!r}: the options are "
                      f"{', '.join(repr(w) for w in labels.values())}")
    missing = [w for w in labels.values() if w not in obj]
    if missing:
        return None, f"option {missing[0]!r} has no probability"
    mass: dict[int, float] = {}
    for word, p in obj.items():
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or not 0 <= p <= 1:
            return None, f"the probability of {word!r} is {json.dumps(p)}, not a number in [0, 1]"
        mass[by_word[word]] = float(p)
    total = sum(mass.values())
    if abs(total - 1) > SUM_TOLERANCE:
        return None, f"the probabilities sum to {total:g}, not 1 (within {SUM_TOLERANCE:g})"
    return {v: mass[v] / total for v in labels}, None


def row_uniform(key: tuple) -> float:
    """A uniform in [0, 1) from the row key: the same row always draws the same answer, rows differ."""
    blob = json.dumps(["stated", *key], default=str).encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "little") / 2.0 ** 64


class StatedDistribution:
    """A response type asked as a stated distribution: the wrapped type's scale, labels and analysis view, the
    question with request_text appended, a reply long enough for the JSON object, and ``read`` instead of
    ``parse`` (the engine stores what read returns)."""

    elicit = "distribution"

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name: str) -> Any:  # everything else is the wrapped type's
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"StatedDistribution({self.inner.scale})"

    @property
    def max_tokens(self) -> int:
        """Room for the object: braces, and per option its label, a number such as 0.25 and punctuation."""
        return 16 + sum(8 + len(w) // 2 for w in self.inner.labels.values())

    def answer_instruction(self) -> str:
        return "Answer ONLY with the JSON object the question asks for. Do not explain."

    def question(self, template: str) -> str:
        """The question template with the request appended (braces doubled: templates are formatted)."""
        return template + "\n\n" + request_text(self.inner.labels).replace("{", "{{").replace("}", "}}")

    def json_schema(self) -> dict:
        return json_schema(self.inner.labels)

    def parse(self, text: str | None) -> int | None:
        """The most probable option of a valid stated distribution (for callers that want one answer)."""
        mass, _ = parse_distribution(self.inner.labels, text)
        return None if mass is None else max(mass, key=mass.get)

    def read(self, text: str | None, key: tuple) -> tuple[int | None, float | None, dict]:
        """(answer, expected score, extra fields) of one reply, as exact mode stores a row: the answer drawn from
        the stated distribution with row_uniform(key); an invalid reply keeps its reason in ``invalid_reason``."""
        mass, reason = parse_distribution(self.inner.labels, text)
        if mass is None:
            return None, None, {"elicit": "distribution", "invalid_reason": reason}
        extra: dict = {"elicit": "distribution"}
        if not self.inner.p_yes_says_all:
            extra["distribution"] = mass
        return self.inner.draw(mass, row_uniform(key)), self.inner.exact_score(mass), extra


def stated(rtype, elicit: str, kind: str | None = None):
    """``rtype`` asked the way ``elicit`` says; a ValueError (the study file's error) naming ``kind`` (the type as
    the study wrote it) when its replies cannot be a stated distribution."""
    if elicit == "answer":
        return rtype
    if not getattr(rtype, "states_distribution", False):
        raise ValueError(f"elicit = 'distribution' asks for a probability per answer option; type = "
                         f"'{kind or rtype.scale}' has no single answer to state one for: remove elicit "
                         "(it applies to Yes/No, rating scales and forced choice)")
    return StatedDistribution(rtype)
