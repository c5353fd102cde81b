"""A fast, deterministic stand-in for a text embedder (survey.embed's interface), for tests that rate text."""

from __future__ import annotations

import numpy as np


class WordHashEmbedder:
    """Counts of hashed words in 64 dimensions (plus a constant, so that no text is the zero vector)."""

    name = "word-hash-64"

    def embed(self, texts):
        out = np.zeros((len(texts), 64), np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().replace(",", " ").replace(".", " ").replace("!", " ").split():
                out[i, sum(map(ord, w)) * 7 % 64] += 1.0
            out[i, 63] += 0.5
        return out
