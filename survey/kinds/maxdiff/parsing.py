"""Best–worst scaling (MaxDiff): one prompt shows a subset of the study's messages, numbered, and asks which
the persona would most and least like to buy.

Subsets come from a cyclic block design on the v messages (``cyclic_blocks``): block i shows the messages
order[(i + d) mod v] for d in a base block D containing 0, in that order, on a message order drawn at random
per paraphrase set. Every message is in s blocks per set and, because block i starts at i, takes every
position 1..s exactly once. The base block is the one of size s whose differences d - d' (mod v) are the
most even; when they are all equal it is a difference set and the design is a balanced incomplete block
design (v = 4, s = 3: all four triples; v = 7, s = 3: {0, 1, 3}, the Fano plane).

A reply names two positions, best first ("2 3", "Best: 2, Worst: 3"); its answer is coded 10 * best + worst
(23); a reply naming a third position ("1, 2, 3") or hedging ("1 or 2") is invalid (survey.responses.hedges).
The table's ``best`` and ``worst`` columns name the messages. The labels are the replies the question asks for, "b w" ("1 2", "1 3", ...), so the local backend's exact mode reads each pair's probability by the chain
rule over its tokens and stores the distribution over the codes. Scale names: ``maxdiffS`` (S options
shown), e.g. ``maxdiff3``.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from functools import cached_property
from types import MappingProxyType

import numpy as np

from survey.errors import SurveyError
from survey.kinds.pick.parsing import PICK_MAX, numbered_options
from survey.responses.base import ResponseType
from survey.responses.hedges import numbers_hedged
from survey.responses.view import AnalysisView

_NAME = re.compile(r"^maxdiff(\d)$")
_TWO = re.compile(r"\D*([1-9])(\D+?)([1-9])(?!\d)")
_HEDGE = re.compile(r"\b(?:or|to|through|nor|maybe|perhaps|possibly)\b", re.IGNORECASE)


def maxdiff_question(s: int) -> str:
    return ("Customers each described a product.\n{options}\nWhich of these products would you personally most like "
            "to buy, and which least? Answer with two numbers only, the best first, then the worst "
            f"(e.g. \"1 {s}\").")


def base_block(v: int, s: int) -> tuple[int, ...]:
    """The base block of size s on Z_v (containing 0) whose differences are the most even: a difference set
    (every non-zero difference equally often, a balanced design) when one exists; the first in lexical order."""
    best, spread = None, None
    for rest in itertools.combinations(range(1, v), s - 1):
        block = (0, *rest)
        counts = np.bincount([(x - y) % v for x in block for y in block if x != y], minlength=v)[1:]
        if spread is None or counts.max() - counts.min() < spread:
            best, spread = block, counts.max() - counts.min()
    return best


def cyclic_blocks(v: int, s: int, salt: str, j: int) -> list[list[int]]:
    """The v blocks of paraphrase set j: block i shows order[(i + d) % v] for d in base_block(v, s), in that
    order; ``order`` a random permutation of the messages seeded by ``salt`` and j (see the module docstring)."""
    digest = hashlib.sha256(f"maxdiff-order\x1f{salt}\x1f{j}".encode()).digest()
    order = np.random.default_rng(int.from_bytes(digest[:16], "little")).permutation(v)
    return [[int(order[(i + d) % v]) for d in base_block(v, s)] for i in range(v)]


class BestWorst(ResponseType):
    """S options shown in one prompt; the answer names the best and the worst position (coded 10 b + w)."""

    kind = "maxdiff"
    quantity = "best-minus-worst score"
    ranged = False
    best_worst = True  # the simulated backend draws a best and a worst
    slots = ("options",)
    max_tokens = 6

    def __init__(self, s: int = 3, template: str | None = None, max_tokens: int | None = None):
        if not 3 <= int(s) <= PICK_MAX:
            raise SurveyError(f"best-worst scaling shows subsets of 3 to {PICK_MAX} messages; got {s}")
        self.s = int(s)
        self.n_options = self.s  # options shown per prompt
        self.scale = f"maxdiff{self.s}"
        self.labels = MappingProxyType({10 * b + w: f"{b} {w}" for b, w in itertools.permutations(range(1, s + 1), 2)})
        self.template = template or maxdiff_question(self.s)
        self.max_tokens = max_tokens or BestWorst.max_tokens

    @cached_property
    def view(self) -> AnalysisView:
        return AnalysisView("maxdiff", self.scale, self.quantity, -1, 1, tuple(self.labels),
                            MappingProxyType(dict(self.labels)),
                            effect_quantity="score {a} − score {b}", per_message=False)

    def arrangements(self, v: int, salt: str, j: int) -> list[list[int]]:
        """The blocks of paraphrase set j (survey.study.design asks them)."""
        if not self.s <= v:
            raise SurveyError(f"best-worst subsets of {self.s} need at least {self.s} messages; the study has {v}")
        return cyclic_blocks(v, self.s, salt, j)

    def render(self, texts: list[str], template: str | None = None) -> str:
        return (template or self.template).format(options=numbered_options(texts))

    def parse(self, text: str | None) -> int | None:
        """10 * best + worst from the first two numbers of the reply; None unless two different positions."""
        match = _TWO.match(text or "")
        if not match:
            return None
        b, between, w = int(match.group(1)), match.group(2), int(match.group(3))
        if b == w or max(b, w) > self.s or _HEDGE.search(between):
            return None  # "1 or 2" hedges over the best
        # "1, 2, 3": a third position is a hedge, not a best and a worst
        return None if numbers_hedged(text[match.end():], w, range(1, self.s + 1)) else 10 * b + w

    def describe_values(self) -> str:
        return f"two positions 1..{self.s}, best then worst (coded 10 * best + worst)"

    def answer_instruction(self) -> str:
        return f"Answer ONLY with two numbers from 1 to {self.s}: the best option, then the worst. Do not explain."


def maxdiff_from_name(scale: str) -> BestWorst | None:
    match = _NAME.match(scale) if isinstance(scale, str) else None
    return BestWorst(int(match.group(1))) if match and int(match.group(1)) >= 3 else None
