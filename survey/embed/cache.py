"""Embedding cache in the study's SQLite store file, keyed by (embedder, sha256 of the text).

It lives in its own table, ``embeddings``, so the store's schema is untouched; several readers and
one writer can share the file (sqlite locking, WAL). Vectors are stored as float32 bytes: rerunning
an analysis embeds nothing twice, and switching embedders never mixes vectors.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

import numpy as np

from survey.embed.base import Embedder, batched
from survey.errors import SurveyError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    embedder TEXT NOT NULL,
    text_hash TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (embedder, text_hash)
)"""


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.db = sqlite3.connect(self.path, timeout=30)
            self.db.execute(_SCHEMA)
            self.db.commit()
        except sqlite3.DatabaseError as exc:
            raise SurveyError(f"{self.path}: cannot use as an embedding cache ({exc})") from exc

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def get(self, embedder: str, hashes: list[str]) -> dict[str, np.ndarray]:
        found = {}
        for chunk in batched(hashes, 500):  # sqlite's bound-parameter limit
            marks = ",".join("?" * len(chunk))
            rows = self.db.execute(
                f"SELECT text_hash, vector FROM embeddings WHERE embedder = ? AND text_hash IN ({marks})",
                [embedder, *chunk])
            for h, blob in rows:
                found[h] = np.frombuffer(blob, dtype=np.float32)
        return found

    def put(self, embedder: str, items: dict[str, np.ndarray]) -> None:
        with self.db:  # one transaction per batch: an interrupted run keeps every finished batch
            self.db.executemany(
                "INSERT OR REPLACE INTO embeddings (embedder, text_hash, dim, vector) VALUES (?, ?, ?, ?)",
                [(embedder, h, int(v.size), np.asarray(v, np.float32).tobytes()) for h, v in items.items()])

    def count(self, embedder: str | None = None) -> int:
        if embedder is None:
            return self.db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0]
        return self.db.execute("SELECT COUNT(*) FROM embeddings WHERE embedder = ?", [embedder]).fetchone()[0]


def embed_texts(texts: list[str], embedder: Embedder, cache: EmbeddingCache | None = None,
                batch_size: int = 64, progress: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Embed ``texts`` (duplicates embedded once), reading and filling the cache; rows align with texts.

    ``progress(done, total)`` is called after each batch of distinct texts that had to be embedded.
    """
    texts = [str(t) for t in texts]
    hashes = [text_hash(t) for t in texts]
    unique = dict(zip(hashes, texts, strict=True))
    vectors = cache.get(embedder.name, list(unique)) if cache is not None else {}
    todo = [h for h in unique if h not in vectors]
    if progress:
        progress(0, len(todo))
    for start in range(0, len(todo), batch_size):
        chunk = todo[start:start + batch_size]
        arr = np.asarray(embedder.embed([unique[h] for h in chunk]), dtype=np.float32)
        new = dict(zip(chunk, arr, strict=True))
        if cache is not None:
            cache.put(embedder.name, new)
        vectors.update(new)
        if progress:
            progress(min(start + batch_size, len(todo)), len(todo))
    if not texts:
        return np.zeros((0, 0), np.float32)
    dims = {vectors[h].size for h in hashes}
    if len(dims) != 1:
        raise SurveyError(f"embedder {embedder.name} returned vectors of different lengths {sorted(dims)}")
    return np.stack([vectors[h] for h in hashes])
