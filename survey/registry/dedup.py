"""Exact and near-duplicate detection for paraphrases, reporting what was removed and why.

Two texts are
- **exact** duplicates when their normalised forms are equal: Unicode NFKC, typographic quotes made
  ASCII, case folded, punctuation dropped, whitespace collapsed ("I’d like boots." == "i'd like BOOTS");
- **near** duplicates when difflib's similarity ratio of the normalised forms (2·matches / total
  length, in [0, 1]) is at least the threshold.

The default threshold, 0.95, sits just above the most similar pair in the paper's own validated sets
(0.943: "I’d like to buy a pair of sneakers." vs "I’d like to buy a new pair of sneakers."; the boots
maximum is 0.862), so it keeps every paraphrase the paper accepted and removes typo, plural or
punctuation variants of one sentence. Lower it to be stricter about one-word variants.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from difflib import SequenceMatcher

NEAR_THRESHOLD = 0.95
_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"', "′": "'"})
_PUNCT = re.compile(r"[^\w\s]")


def normalise(text: str) -> str:
    """The form compared for duplicates (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    return " ".join(_PUNCT.sub("", text).split())


def similarity(a: str, b: str) -> float:
    """difflib's ratio of the normalised texts: 1.0 for exact duplicates, 0.0 for nothing in common."""
    return SequenceMatcher(None, normalise(a), normalise(b), autojunk=False).ratio()


@dataclass(frozen=True)
class Removal:
    """A text that was dropped: why ('exact' or 'near'), which kept text it duplicates, and how closely."""

    text: str
    reason: str
    duplicate_of: str
    similarity: float

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Deduplicator:
    """Incremental de-duplication: offer texts one at a time; the first of each group is kept.

    `existing` texts count as already kept (e.g. the paraphrases of earlier generation rounds) but are
    not returned in `kept`.
    """

    threshold: float = NEAR_THRESHOLD
    existing: Iterable[str] = ()
    kept: list[str] = field(default_factory=list)
    removed: list[Removal] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"similarity threshold must be in (0, 1], got {self.threshold}")
        self._seen: dict[str, str] = {}  # normalised -> original, for every kept or existing text
        for t in self.existing:
            self._seen.setdefault(normalise(t), t)

    def offer(self, text: str) -> Removal | None:
        """Keep `text` unless it duplicates a kept one; returns the Removal when it is dropped."""
        norm = normalise(text)
        if norm in self._seen:
            removal = Removal(text, "exact", self._seen[norm], 1.0)
        else:
            removal = self._nearest(text, norm)
        if removal is None:
            self._seen[norm] = text
            self.kept.append(text)
        else:
            self.removed.append(removal)
        return removal

    def _nearest(self, text: str, norm: str) -> Removal | None:
        best, best_ratio = None, 0.0
        matcher = SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(norm)  # difflib caches details about seq2, so the new text goes there
        for other_norm, other in self._seen.items():
            matcher.set_seq1(other_norm)
            # The cheap upper bounds skip most pairs before the quadratic ratio() is computed.
            if matcher.real_quick_ratio() < self.threshold or matcher.quick_ratio() < self.threshold:
                continue
            r = matcher.ratio()
            if r >= self.threshold and r > best_ratio:
                best, best_ratio = other, r
        return Removal(text, "near", best, round(best_ratio, 4)) if best is not None else None


@dataclass
class DedupResult:
    kept: list[str]
    removed: list[Removal]

    def to_dict(self) -> dict:
        return {"kept": self.kept, "removed": [r.to_dict() for r in self.removed]}


def dedupe(texts: Iterable[str], *, threshold: float = NEAR_THRESHOLD, existing: Iterable[str] = ()) -> DedupResult:
    """Drop exact and near duplicates from `texts` (first occurrence wins), saying what went and why."""
    d = Deduplicator(threshold=threshold, existing=existing)
    for t in texts:
        d.offer(t)
    return DedupResult(d.kept, d.removed)


def near_duplicate_pairs(texts: list[str], threshold: float = NEAR_THRESHOLD) -> list[tuple[int, int, float]]:
    """(i, j, similarity) for every pair at or above the threshold: a check for an existing set."""
    norms = [normalise(t) for t in texts]
    pairs = []
    for j in range(len(norms)):
        m = SequenceMatcher(None, autojunk=False)
        m.set_seq2(norms[j])
        for i in range(j):
            m.set_seq1(norms[i])
            if m.real_quick_ratio() >= threshold and m.quick_ratio() >= threshold:
                r = m.ratio()
                if r >= threshold:
                    pairs.append((i, j, round(r, 4)))
    return pairs
