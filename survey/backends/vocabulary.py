"""A model file's vocabulary as bytes: rendered once per file, kept in the user's cache, read with numpy.

Rendering every token through llama.cpp (``llama_token_to_piece``, one ctypes call each) costs about
0.5 s of CPU for Gemma's 262 144 tokens and 0.1 s for SmolLM2's 49 152, and the local backend needs two
answers from the whole vocabulary: the single tokens that spell each answer label (``label_tokens``)
and the tokens that would continue a word or number (``continues``). So the tokens' bytes are rendered
once per model file and written to ``$XDG_CACHE_HOME/survey/vocab/`` (``~/.cache/survey/vocab/``),
keyed by the file's resolved path, size and modification time; a later process, or another model
object in the same one, reads them back in milliseconds. Both answers are computed with numpy over the
padded byte matrix for the ASCII tokens; only tokens with other bytes are decoded in Python.

The cache is an optimisation: a cache that cannot be read or written is ignored (the scan is redone),
and a file whose size or time changed gets a new key.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

FORMAT = 1  # bump when the cached arrays change meaning
_MEMO: dict[str, Vocabulary] = {}  # cache key -> vocabulary, for the process
# str.strip()'s whitespace among ASCII bytes, and str.isalnum() of each ASCII byte
_SPACE = np.array([chr(b).isspace() for b in range(128)] + [False] * 128)
_ALNUM = np.array([chr(b).isalnum() for b in range(128)] + [False] * 128)


def cache_dir() -> Path:
    """Where vocabularies are kept: $XDG_CACHE_HOME/survey/vocab, else ~/.cache/survey/vocab (the XDG
    base-directory rule: a relative XDG_CACHE_HOME is ignored)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "survey" / "vocab"


def cache_key(path: str | Path) -> str:
    """The model file's resolved path, size and modification time (nanoseconds), hashed."""
    path = Path(path).resolve()
    st = path.stat()
    return hashlib.sha256(f"{FORMAT}\0{path}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()[:32]


class Vocabulary:
    """Every token's bytes: token ``i`` is ``data[offsets[i]:offsets[i + 1]]``."""

    def __init__(self, data: np.ndarray, offsets: np.ndarray, continues: np.ndarray | None = None,
                 file: Path | None = None):
        self.data, self.offsets, self.file = data, offsets, file
        self._continues = continues
        self.n = offsets.size - 1
        lengths = np.diff(offsets)
        width = max(1, int(lengths.max(initial=0)))
        rows = np.repeat(np.arange(self.n), lengths)
        cols = np.arange(data.size) - np.repeat(offsets[:-1], lengths)
        self._matrix = np.zeros((self.n, width), dtype=np.uint8)  # zero-padded bytes, one row per token
        self._matrix[rows, cols] = data
        self._lengths = lengths
        self.ascii = (self._matrix < 128).all(axis=1)  # padding is 0, so only real bytes decide
        self._others = np.flatnonzero(~self.ascii)  # decoded in Python
        self._texts: list[str] | None = None
        self._cores: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._folded: dict[str, list[int]] | None = None

    def _other_texts(self) -> list[str]:
        """The text of each non-ASCII token (undecodable bytes dropped), in ``_others`` order."""
        if self._texts is None:
            raw, starts, ends = self.data.tobytes(), self.offsets[self._others], self.offsets[self._others + 1]
            self._texts = [raw[a:b].decode("utf-8", "ignore") for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        return self._texts

    def _ascii_cores(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per token, where its text stripped of whitespace starts and ends in its row, and the rows
        lower-cased (for ASCII, casefold() is lower())."""
        if self._cores is None:
            m = self._matrix
            solid = (np.arange(m.shape[1]) < self._lengths[:, None]) & ~_SPACE[m]  # bytes, not whitespace
            any_solid = solid.any(axis=1)
            start = np.where(any_solid, solid.argmax(axis=1), 0)
            end = np.where(any_solid, m.shape[1] - solid[:, ::-1].argmax(axis=1), 0)
            self._cores = start, end, np.where((m >= 65) & (m <= 90), m + 32, m)
        return self._cores

    def _folded_others(self) -> dict[str, list[int]]:
        """The non-ASCII tokens by their text stripped of whitespace and case-folded."""
        if self._folded is None:
            self._folded = {}
            for tok, text in zip(self._others.tolist(), self._other_texts(), strict=True):
                self._folded.setdefault(text.strip().casefold(), []).append(tok)
        return self._folded

    def piece(self, token: int) -> bytes:
        return self.data[self.offsets[token]:self.offsets[token + 1]].tobytes()

    def exactly(self, text: bytes) -> np.ndarray:
        """Ids of the tokens whose bytes are exactly ``text`` (ascending)."""
        if len(text) > self._matrix.shape[1]:
            return np.empty(0, dtype=np.int64)
        row = np.zeros(self._matrix.shape[1], dtype=np.uint8)
        row[:len(text)] = np.frombuffer(text, dtype=np.uint8)
        return np.flatnonzero((self._lengths == len(text)) & (self._matrix == row).all(axis=1))

    def starting_with(self, first: bytes) -> np.ndarray:
        """Ids of the tokens whose first byte is one of ``first`` (ascending)."""
        return np.flatnonzero((self._lengths > 0) & np.isin(self._matrix[:, 0], np.frombuffer(first, dtype=np.uint8)))

    def continues(self) -> np.ndarray:
        """Per token: does its text (undecodable bytes dropped) start with a letter or digit?"""
        if self._continues is None:
            out = np.zeros(self.n, dtype=bool)
            out[self.ascii] = (self._lengths[self.ascii] > 0) & _ALNUM[self._matrix[self.ascii, 0]]
            out[self._others] = [text[:1].isalnum() for text in self._other_texts()]
            self._continues = out
        return self._continues

    def label_tokens(self, labels: Mapping[int, str]) -> dict[int, np.ndarray]:
        """Per score, every token whose text, stripped of whitespace and case-folded, is its label
        (ascending ids; an empty array when none). Kept in the cache next to the vocabulary."""
        file = None
        if self.file is not None:
            digest = hashlib.sha256(repr(sorted(labels.items())).encode()).hexdigest()[:16]
            file = self.file.with_name(f"{self.file.stem}-labels-{digest}.npz")
            try:
                with np.load(file, allow_pickle=False) as z:
                    if sorted(z.files) == sorted(str(v) for v in labels):
                        return {v: z[str(v)].astype(np.int64) for v in labels}
            except (OSError, KeyError, ValueError):
                pass
        found = self._find_labels(labels)
        if file is not None:
            _save(file, {str(v): ids for v, ids in found.items()})
        return found

    def _find_labels(self, labels: Mapping[int, str]) -> dict[int, np.ndarray]:
        score_of = {label.strip().casefold(): value for value, label in labels.items()}
        found: dict[int, list[np.ndarray]] = {value: [] for value in labels}
        start, end, lower = self._ascii_cores()
        folded = self._folded_others()
        for text, value in score_of.items():
            if text in folded:
                found[value].append(np.array(folded[text], dtype=np.int64))
            want = text.encode()
            if not want.isascii():  # an ASCII token never folds to a non-ASCII label
                continue
            rows = np.flatnonzero(self.ascii & (end - start == len(want)))
            cols = start[rows, None] + np.arange(len(want))
            same = (lower[rows[:, None], cols] == np.frombuffer(want, dtype=np.uint8)).all(axis=1)
            found[value].append(rows[same])
        return {v: np.sort(np.concatenate(ids)).astype(np.int64) if ids else np.zeros(0, dtype=np.int64)
                for v, ids in found.items()}


def scan(n_vocab: int, piece: Callable[[int], bytes]) -> Vocabulary:
    """Render every token (the slow path: one call per token)."""
    pieces = [piece(tok) for tok in range(n_vocab)]
    offsets = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum([len(p) for p in pieces], out=offsets[1:])
    vocab = Vocabulary(np.frombuffer(b"".join(pieces), dtype=np.uint8).copy(), offsets)
    vocab.continues()  # kept in the cache with the bytes
    return vocab


def vocabulary(path: str | Path, n_vocab: int, piece: Callable[[int], bytes]) -> Vocabulary:
    """The vocabulary of the model file at ``path``: from the process, else the cache, else ``scan``
    (then written to the cache)."""
    key = cache_key(path)
    if key in _MEMO and _MEMO[key].n == n_vocab:
        return _MEMO[key]
    file = cache_dir() / f"{key}.npz"
    vocab = _read(file, n_vocab)
    if vocab is None:
        vocab = scan(n_vocab, piece)
        _save(file, {"data": vocab.data, "offsets": vocab.offsets, "continues": vocab.continues()})
        vocab.file = file
    _MEMO[key] = vocab
    return vocab


def _read(file: Path, n_vocab: int) -> Vocabulary | None:
    try:
        with np.load(file, allow_pickle=False) as z:
            data, offsets, continues = z["data"], z["offsets"], z["continues"]
    except (OSError, KeyError, ValueError):  # absent, unreadable, truncated or from another format
        return None
    if (offsets.size != n_vocab + 1 or continues.shape != (n_vocab,) or offsets[0] != 0
            or offsets[-1] != data.size or (np.diff(offsets) < 0).any()):
        return None
    return Vocabulary(data.astype(np.uint8, copy=False), offsets.astype(np.int64, copy=False),
                      continues.astype(bool, copy=False), file)


def _save(file: Path, arrays: dict[str, np.ndarray]) -> None:
    """Atomically (a temporary file renamed over the target): a concurrent reader sees all or nothing."""
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=file.parent, prefix=file.stem, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, **arrays)
            os.replace(tmp, file)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:  # a read-only or full cache: the scan is redone next time
        pass
