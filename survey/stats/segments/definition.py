"""Which personas form which segment: a persona attribute (``gender``), bins of a numeric attribute
(``age:18-34,35-54,55+``) or named filters (``{"young_high": "age < 35 and income == 'high'"}``).

Segments are defined on the personas' attributes alone, before any answer is read, so that a segment's
test is the same sign-flip test over paraphrase pairs as the pooled one (Helm & Priebe (2026), "When
prompt perturbations break your A/B test"), restricted to the segment's personas.

Bins: ``LO-HI`` holds LO <= x <= HI, ``LO+`` holds x >= LO, ``-HI`` holds x <= HI; a bin's label is the text
that defined it. Overlapping bins, a bin or segment without a persona and an unknown attribute are errors.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import pandas as pd

from survey.errors import SurveyError

_BIN = re.compile(r"^\s*(?P<lo>-?\d+(?:\.\d+)?)?\s*(?P<op>-|\+)\s*(?P<hi>\d+(?:\.\d+)?)?\s*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_ .+<>=-]*$")


@dataclass(frozen=True)
class Bin:
    """One interval of a numeric attribute, closed at both ends (an open end is infinite)."""

    label: str
    low: float
    high: float

    def holds(self, values: pd.Series) -> pd.Series:
        return (values >= self.low) & (values <= self.high)


def parse_bin(text: str) -> Bin:
    """'18-34' -> [18, 34]; '55+' -> [55, inf); '-17' -> (-inf, 17]. A SurveyError says what a bin looks like."""
    m = _BIN.match(text)
    lo, op, hi = (m.group("lo"), m.group("op"), m.group("hi")) if m else (None, None, None)
    if m is None or (op == "+" and (lo is None or hi is not None)) or (op == "-" and lo is None and hi is None):
        raise SurveyError(f"bin '{text}' is not a range: write LOW-HIGH (18-34), LOW+ (55+) or -HIGH (-17)")
    low = float(lo) if lo is not None else -math.inf
    high = float(hi) if hi is not None else math.inf
    if low > high:
        raise SurveyError(f"bin '{text}' runs backwards: write the lower bound first")
    return Bin(text.strip(), low, high)


def check_bins(bins: list[Bin], attribute: str) -> None:
    """Refuse overlapping bins: a persona would count in two segments of one attribute."""
    ordered = sorted(bins, key=lambda b: (b.low, b.high))
    for x, y in zip(ordered, ordered[1:], strict=False):
        if y.low <= x.high:
            raise SurveyError(f"bins '{x.label}' and '{y.label}' of {attribute} overlap; a persona must fall in one "
                              "bin (e.g. 18-34,35-54,55+)")


@dataclass
class Segmentation:
    """The segments of one definition: name -> persona ids (in the personas' order), and what was left out.

    ``by``: the definition as given; ``left_out``: personas in no segment (outside every bin, or a missing
    attribute value); ``disjoint``: whether no persona is in two segments (named filters may overlap)."""

    by: str
    segments: dict[str, list[str]]
    left_out: list[str] = field(default_factory=list)
    disjoint: bool = True
    attribute: str | None = None  # the attribute segmented by (None for named filters)

    @property
    def sizes(self) -> dict[str, int]:
        return {s: len(ids) for s, ids in self.segments.items()}

    def to_dict(self) -> dict:
        return {"by": self.by, "attribute": self.attribute, "segments": self.sizes, "left_out": len(self.left_out), "disjoint": self.disjoint}


def _column(attributes: pd.DataFrame, name: str) -> pd.Series:
    if name not in attributes.columns:
        known = ", ".join(sorted(map(str, attributes.columns))) or "none"
        raise SurveyError(f"no persona attribute '{name}'; the personas have: {known}")
    return attributes[name]


def _numeric(col: pd.Series, name: str) -> pd.Series:
    values = pd.to_numeric(col, errors="coerce")
    bad = col[values.isna() & col.notna()]
    if len(bad):
        raise SurveyError(f"attribute '{name}' is not numeric (e.g. '{bad.iloc[0]}'), so it cannot be binned; "
                          f"segment by its values with by='{name}'")
    return values


def segment_by(attributes: pd.DataFrame, by: str | dict[str, str]) -> Segmentation:
    """The segments of ``by`` over the personas of ``attributes`` (index: persona id; one column per attribute).

    ``by``: an attribute name (one segment per value, in order of first appearance), ``NAME:BIN,BIN,...``
    (one segment per bin of a numeric attribute), or a dict of named filters, each a pandas query on the
    attributes. Every segment must hold a persona."""
    if isinstance(by, dict):
        return _named_filters(attributes, by)
    if not isinstance(by, str) or not by.strip():
        raise SurveyError("segments: give an attribute (by='gender'), bins (by='age:18-34,35-54,55+') or named "
                          "filters ({'young': 'age < 35'})")
    name, colon, spec = by.partition(":")
    name = name.strip()
    col = _column(attributes, name)
    if colon and not spec.strip(",; \t"):
        raise SurveyError(f"segments '{by}': name at least one bin after the colon (e.g. {name}:18-34,35+), or drop "
                          f"the colon for one segment per value ({name})")
    if not colon:
        segs = {str(v): [str(i) for i in col.index[col == v]] for v in pd.unique(col.dropna())}
        left = [str(i) for i in col.index[col.isna()]]
        return Segmentation(by, segs, left, attribute=name)
    bins = [parse_bin(part) for part in spec.split(",") if part.strip()]
    check_bins(bins, name)
    values = _numeric(col, name)
    segs = {b.label: [str(i) for i in values.index[b.holds(values)]] for b in bins}
    _require_members(segs, f"{name} in ", values)
    inside = set().union(*map(set, segs.values()))
    return Segmentation(by, segs, [str(i) for i in values.index if str(i) not in inside], attribute=name)


def _require_members(segs: dict[str, list[str]], what: str, values: pd.Series | None = None) -> None:
    empty = [s for s, ids in segs.items() if not ids]
    if empty:
        seen = f" (the personas' values run from {values.min():g} to {values.max():g})" if values is not None else ""
        raise SurveyError(f"segment {', '.join(what + s for s in empty)} holds no persona{seen}; drop it or widen it")


def _named_filters(attributes: pd.DataFrame, filters: dict[str, str]) -> Segmentation:
    if not filters:
        raise SurveyError("segments: the named filters are empty; give at least one, e.g. {'young': 'age < 35'}")
    segs: dict[str, list[str]] = {}
    for name, expr in filters.items():
        if not isinstance(name, str) or not _NAME.match(name):
            raise SurveyError(f"segment name {name!r}: use letters, digits and _ (e.g. young_high)")
        if not isinstance(expr, str) or not expr.strip():
            raise SurveyError(f"segment '{name}': give a filter such as \"age < 35 and income == 'high'\"")
        try:
            mask = attributes.eval(expr, engine="python")
        except pd.errors.UndefinedVariableError as exc:
            known = ", ".join(sorted(map(str, attributes.columns)))
            raise SurveyError(f"segment '{name}': {exc}; the personas have: {known}") from None
        except Exception as exc:  # a filter that does not parse: name it, never a traceback
            raise SurveyError(f"segment '{name}': the filter {expr!r} does not parse ({exc}); write it like "
                              "\"age < 35 and income == 'high'\"") from None
        if not isinstance(mask, pd.Series) or mask.dtype != bool:
            raise SurveyError(f"segment '{name}': the filter {expr!r} is not a true/false condition on each persona")
        segs[name] = [str(i) for i in attributes.index[mask.to_numpy()]]
    _require_members(segs, "")
    members = [i for ids in segs.values() for i in ids]
    inside = set(members)
    return Segmentation(", ".join(filters), segs, [str(i) for i in attributes.index if str(i) not in inside],
                        disjoint=len(members) == len(inside))


__all__ = ["Bin", "Segmentation", "check_bins", "parse_bin", "segment_by"]
