"""The decision of a study collected sequentially, as a comparison reads it.

A study with a ``[sequential]`` section stops collecting by its sequential test (the group-sequential
sign-flip test of Helm & Priebe (2026), "When prompt perturbations break your A/B test", with Lan &
DeMets (1983) spending, or the test by betting of Waudby-Smith & Ramdas). On such data the ordinary
sign-flip test of the collected pairs treats them as a fixed design: its p-value is not valid for the
stopping rule (collecting until p <= alpha makes any fixed-design p-value too small). So the decision,
the headline and `survey analyze` are the sequential test's; the fixed-design p-value stays in the
result's tests, labelled as such.
"""

from __future__ import annotations

from dataclasses import dataclass

FIXED_DESIGN_NOTE = ("these data were collected sequentially (stopped by the sequential test), so the decision is "
                     "the sequential test's; the sign-flip p-value and the effect's interval treat the collected "
                     "pairs as a fixed design and are not valid for the stopping rule")


@dataclass(frozen=True)
class StoredSequential:
    """The sequential test a store recorded for one model: the deciding test of its comparison."""

    method: str  # "group-sequential" or "betting"
    decision: str  # reject | futility | max-reached | continue
    statistic: float  # in the order A - B of the comparison that reads it
    pvalue: float
    look: int
    pairs: int
    max_pairs: int
    alpha: float
    exact: bool = True

    @classmethod
    def from_doc(cls, doc: dict, flipped: bool = False) -> StoredSequential:
        """From the store's record (survey.stats.sequential.rule.SequentialResult.to_dict plus a, b);
        ``flipped``: the comparison reads B vs A, so the statistic changes sign."""
        stat = float(doc.get("statistic", float("nan")))
        return cls(str(doc.get("method", "group-sequential")), str(doc["decision"]), -stat if flipped else stat,
                   float(doc["pvalue"]), int(doc.get("look") or 0), int(doc.get("pairs") or 0),
                   int(doc.get("max_pairs") or 0), float(doc.get("alpha", 0.05)), bool(doc.get("exact", True)))

    @property
    def rejects(self) -> bool:
        return self.decision == "reject"

    def to_dict(self) -> dict:
        return {"method": self.method, "decision": self.decision, "statistic": self.statistic,
                "pvalue": self.pvalue, "look": self.look, "pairs": self.pairs, "max_pairs": self.max_pairs,
                "alpha": self.alpha, "exact": self.exact, "note": FIXED_DESIGN_NOTE}
