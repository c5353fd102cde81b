"""Answer labels as token paths: the probability that a local model's reply spells each label.

A label may take several tokens: SmolLM2 and Gemma-3 write every digit as its own token, so "10"
is "1" then "0" and " 3" is " " then "3"; "Definitely not" is "Def" "initely" " not" for SmolLM2.
So each label is a set of token paths, kept in one trie:

- every single token whose text, stripped of whitespace and case-folded, is the label (" Yes", "yes");
- the tokenizer's own tokens of the label as written, case-folded and capitalised, each with and
  without a leading space.

The probability of a path is the chain rule, P(t1) P(t2 | t1) ..., one forward pass per inner node
of the trie (the prompt's KV cache is reused, so a pass evaluates a few tokens). A path that ends a
label but is also the start of another ("1" and "10" on a 0-10 rating; "Probably" and
"Probably not") counts only when the reply ENDS there: it is weighted by P(end | path) = 1 minus the
mass of the next tokens that continue it (a token starting with a letter or digit, which the parsers
read as part of the same number or word, or a token on the path to the longer label). A label that
no other label extends is scored by its path alone, like the Yes/No first-token rule: one pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

Path_ = tuple[int, ...]
LogprobsAfter = Callable[[Path_], np.ndarray]  # next-token log-probabilities after prompt + path


@dataclass(frozen=True)
class LabelPaths:
    """The trie of one label set on one vocabulary."""

    scores: tuple[int, ...]  # in the response type's label order
    ends: Mapping[Path_, int]  # a path that spells a whole label -> its score
    children: Mapping[Path_, tuple[int, ...]]  # a path -> the tokens extending it toward some label
    continues: np.ndarray  # bool per token: its text starts with a letter or digit

    @property
    def inner(self) -> list[Path_]:
        """Paths after which the model must be evaluated again (the root, the prompt itself, excluded)."""
        return [p for p in self.children if p]

    @property
    def single_token(self) -> bool:
        """Every label is one token and none extends another: the first token decides."""
        return not self.inner

    def ending(self, path: Path_, logprobs: np.ndarray) -> float:
        """P(the reply ends after ``path``): 1 minus the mass of tokens that would continue it."""
        if path not in self.children:
            return 1.0
        mask = self.continues.copy()
        mask[list(self.children[path])] = True
        return max(0.0, 1.0 - float(np.exp(logprobs[mask]).sum()))


def build(scores: tuple[int, ...], variants: Mapping[int, np.ndarray], spellings: Mapping[int, list[Path_]],
          continues: np.ndarray) -> LabelPaths:
    """The trie from single-token ``variants`` (score -> token ids) and ``spellings`` (score -> token
    paths). The first path found for a token sequence keeps it; variants go first so the root's
    tokens keep the label order."""
    ends: dict[Path_, int] = {}
    for score in scores:
        for tok in variants.get(score, ()):
            ends.setdefault((int(tok),), score)
    for score in scores:
        for path in spellings.get(score, ()):
            if path:
                ends.setdefault(tuple(int(t) for t in path), score)
    children: dict[Path_, dict[int, None]] = {(): {}}
    for path in ends:
        for i in range(len(path)):
            children.setdefault(path[:i], {})[path[i]] = None
    return LabelPaths(scores=tuple(scores), ends=ends,
                      children={p: tuple(kids) for p, kids in children.items()}, continues=continues)


def path_mass(paths: LabelPaths, first: np.ndarray, logprobs_after: LogprobsAfter) -> dict[Path_, float]:
    """Per label path, the probability that the reply is that path (and, where another label extends
    it, ends there): the chain rule over the trie, see the module docstring.

    ``first`` is the log-probability of the first token after the prompt; ``logprobs_after(path)``
    evaluates the model on prompt + path. Paths of probability 0 (T = 0 off the argmax) cost nothing.
    """
    mass: dict[Path_, float] = {}
    stack: list[tuple[Path_, float, np.ndarray]] = [((), 0.0, first)]
    while stack:
        path, lp_path, lp = stack.pop()
        for tok in paths.children[path]:
            child = (*path, tok)
            lp_child = lp_path + float(lp[tok])
            if lp_child == -math.inf:
                continue
            if child not in paths.children:  # a leaf always ends a label
                mass[child] = math.exp(lp_child)
                continue
            lp_next = logprobs_after(child)
            if child in paths.ends:
                mass[child] = math.exp(lp_child) * paths.ending(child, lp_next)
            stack.append((child, lp_child, lp_next))
    return mass


def label_mass(paths: LabelPaths, mass: Mapping[Path_, float]) -> dict[int, float]:
    """Per score, the summed probability of its label's paths."""
    out = dict.fromkeys(paths.scores, 0.0)
    for path, m in mass.items():
        out[paths.ends[path]] += m
    return out


def choose(p: np.ndarray, rng: np.random.Generator, top_p: float = 1.0) -> int:
    """Index drawn from weights ``p`` (nucleus ``top_p``); the largest weight when all are 0."""
    total = p.sum()
    if not total > 0:
        return int(np.argmax(p))
    idx = np.arange(p.size)
    if top_p < 1.0:
        order = np.argsort(-p, kind="stable")
        keep = np.cumsum(p[order]) / total - p[order] / total < top_p  # smallest set reaching top_p
        idx, p = order[keep], p[order[keep]]
    return int(idx[rng.choice(p.size, p=p / p.sum())])


def sample_path(mass: Mapping[Path_, float], rng: np.random.Generator, top_p: float = 1.0) -> Path_ | None:
    """Constrained decoding as rejection sampling: a reply drawn from the model and kept only when it
    spells a label, i.e. a path drawn with probability mass / total (nucleus ``top_p`` over paths).
    None when no path has any mass."""
    paths = list(mass)
    if not paths or not sum(mass.values()) > 0:
        return None
    return paths[choose(np.array([mass[p] for p in paths]), rng, top_p)]
