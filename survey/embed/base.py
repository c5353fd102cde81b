"""The one interface every text embedder implements; DBPA only ever sees this.

An embedder maps a list of texts to a float32 array of shape (len(texts), dim). Vectors need not be
normalised: DBPA works with cosine similarities and normalises itself. Provider failures raise
EmbedError (a SurveyError: the CLI prints one line), with the provider's message and the fix.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from survey.errors import SurveyError


class EmbedError(SurveyError):
    """An embedding call failed (bad key, quota, unreachable server, malformed reply)."""


@runtime_checkable
class Embedder(Protocol):
    name: str  # the cache key: changing the model or its preprocessing must change the name

    def embed(self, texts: list[str]) -> np.ndarray: ...


def as_matrix(vectors, n: int, who: str) -> np.ndarray:
    """Validate a provider reply: n finite vectors of one length."""
    try:
        arr = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbedError(f"{who}: the reply is not a list of equal-length vectors ({exc})") from exc
    if arr.ndim != 2 or arr.shape[0] != n:
        raise EmbedError(f"{who}: expected {n} vectors, got an array of shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise EmbedError(f"{who}: the reply contains NaN or infinite values")
    return arr


def batched(items: list, size: int):
    """Consecutive slices of at most ``size`` items (itertools.batched arrives in Python 3.12)."""
    for start in range(0, len(items), size):
        yield items[start:start + size]
