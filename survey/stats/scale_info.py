"""What a table's response scale means for an analysis: which scale its rows are on, the unit an effect is
reported in, the range a difference of cell means can take, and the top-2-box of a rating scale.

Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid statistical test for
generative surveying", note that their sign-flip test needs only a perturbation-level summary, e.g. mean
ratings. On a Yes/No question the cell mean is P(Yes) and a difference lies in [-1, 1]; on a rating scale
from ``low`` to ``high`` the cell mean is the mean score and a difference lies in [-(high - low), high - low].
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from survey.errors import SurveyError
from survey.responses import DEFAULT_SCALE, response_type

CHOICE = "choice"


@dataclass(frozen=True)
class ScaleInfo:
    """One scale as the analyses use it."""

    scale: str  # the response type's name, e.g. "binary", "likert5", "choice"
    kind: str  # "binary", "ordinal", "choice" or "scored" (any other scored type)
    unit: str  # what an effect is measured in, for people: "P(Yes)", "mean score (1–5)"
    bounds: tuple[float, float]  # the range of a difference of two cell means
    top_box: frozenset[int]  # the two highest points of a rating scale of 4+ points, else empty
    low: float | None = None
    high: float | None = None

    def to_dict(self) -> dict:
        return {"scale": self.scale, "kind": self.kind, "unit": self.unit, "low": self.low, "high": self.high,
                "top_box": sorted(self.top_box)}


def scale_info(scale: str) -> ScaleInfo:
    """The ScaleInfo of a scale name (a SurveyError names the known scales for an unknown one)."""
    rtype = response_type(scale)
    name = rtype.scale
    if name == DEFAULT_SCALE:
        return ScaleInfo(name, "binary", "P(Yes)", (-1.0, 1.0), frozenset(), 0, 1)
    if name == CHOICE:
        return ScaleInfo(name, "choice", "share choosing A", (-1.0, 1.0), frozenset(), 1, 2)
    if not rtype.scored:
        raise SurveyError(f"scale '{name}' has no scores to compare (free text); compare the texts with "
                          "`survey dbpa` instead")
    low, high = min(rtype.values), max(rtype.values)
    span = float(high - low)
    if getattr(rtype, "ordinal", False):
        return ScaleInfo(name, "ordinal", f"mean score ({low}–{high})", (-span, span),
                         frozenset(rtype.top_box), low, high)
    return ScaleInfo(name, "scored", f"mean score ({low}–{high})", (-span, span), frozenset(), low, high)


def scales_in(df: pd.DataFrame) -> list[str]:
    """The scale names of a table's rows in order of appearance; a table without a scale column is Yes/No."""
    if "scale" not in df.columns:
        return [DEFAULT_SCALE]
    names = df["scale"].astype("string").fillna(DEFAULT_SCALE).replace("", DEFAULT_SCALE)
    return [str(s) for s in pd.unique(names)]


def table_scale(df: pd.DataFrame, what: str = "the table") -> str:
    """The one scale of ``df``'s rows; a SurveyError when they mix scales, which no one test compares."""
    found = scales_in(df)
    if len(found) > 1:
        raise SurveyError(f"{what} mixes scales ({', '.join(found)}); a test compares answers on one scale: "
                          "analyse each scale's rows on their own (filter the table by its 'scale' column)")
    return found[0] if found else DEFAULT_SCALE


__all__ = ["CHOICE", "ScaleInfo", "scale_info", "scales_in", "table_scale"]
