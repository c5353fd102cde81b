"""The analysis view of a response kind: what an analysis, a report or a message needs to know about it.

One descriptor per response type (``ResponseType.view``): which analysis kind handles it, the quantity
a cell summary and an effect are measured in, its range, its points and labels, and the top-2-box. Every
consumer (statistics, across-model and across-message comparisons, reports, the command line) reads the
kind's words and numbers here instead of re-deriving them from the scale's name.

Helm & Priebe (2026), "When prompt perturbations break your A/B test", note that their sign-flip test
needs only a paraphrase-level summary: P(Yes) on a Yes/No question, the mean score on a rating scale,
the share choosing A on a forced choice. ``quantity`` names that summary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType


@dataclass(frozen=True)
class AnalysisView:
    """One response kind as analyses and reports use it.

    - ``kind``: the analysis that handles it (the key of ``survey.stats.kinds``): e.g. "binary";
    - ``scale``: the response type's name, e.g. "likert5";
    - ``quantity``: what a cell summary is, for people: "P(Yes)", "mean score", "share choosing A";
    - ``low``/``high``: the range of that summary (0 and 1 for a share);
    - ``points``: the valid answers, lowest first; ``labels``: answer -> the word a model answers with;
    - ``top_box``: the two highest points of a rating scale of four or more points, else empty;
    - ``effect_quantity``: what an A - B effect is a difference of, when it is not the quantity's own
      difference, with {a} and {b} for the messages (forced choice: "share choosing {a} − share choosing {b}");
    - ``ranged``: whether the unit names its range ("mean score (1–5)");
    - ``ordered``: whether the points are ordered scores (a rating scale), as weighted agreement needs;
    - ``per_message``: whether a reply is about one message, so that per-message cell means exist
      (False for forced choice, whose reply compares two messages shown together).
    """

    kind: str
    scale: str
    quantity: str
    low: float
    high: float
    points: tuple[int, ...] = ()
    labels: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))
    top_box: tuple[int, ...] = ()
    effect_quantity: str | None = None
    ranged: bool = False
    ordered: bool = False  # the points are ordered scores (a rating scale): weighted agreement, ordinal fits
    per_message: bool = True  # a reply is about one message (False: it compares two shown together)
    averaged: bool = True  # an answer is a number to average (False: a code, such as a set of boxes ticked)

    @property
    def unit(self) -> str:
        """What a cell summary and an effect are measured in: "P(Yes)", "mean score (1–5)"."""
        return f"{self.quantity} ({_num(self.low)}–{_num(self.high)})" if self.ranged else self.quantity

    @property
    def effect_unit(self) -> str:
        """What an A - B effect is measured in (forced choice: a difference of two shares)."""
        return self.effect_of("A", "B") if self.effect_quantity else self.unit

    def effect_of(self, a: str, b: str) -> str:
        """An A - B effect of two named messages, for labels: "mean score(A) − mean score(B)"."""
        if self.effect_quantity:
            return self.effect_quantity.format(a=a, b=b)
        return f"{self.of(a)} − {self.of(b)}"

    @property
    def bounds(self) -> tuple[float, float]:
        """The range a difference of two cell summaries can take."""
        span = float(self.high - self.low)
        return (-span, span)

    @property
    def span(self) -> float:
        return float(self.high - self.low)

    def of(self, message: str) -> str:
        """The quantity of one message, for sentences: "P(Yes|A)", "mean score(A)"."""
        return f"P(Yes|{message})" if self.quantity == "P(Yes)" else f"{self.quantity}({message})"

    def top_box_words(self) -> str:
        return " and ".join(str(s) for s in self.top_box)

    def to_dict(self) -> dict:
        return {"scale": self.scale, "kind": self.kind, "quantity": self.quantity, "unit": self.unit,
                "low": self.low, "high": self.high, "points": list(self.points), "top_box": list(self.top_box)}


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"
