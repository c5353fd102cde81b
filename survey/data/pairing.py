"""Which paraphrase of message A is compared with which paraphrase of B (the sign-flip test's pairs).

The sign-flip test is valid for any pairing fixed without looking at the answers, but the pairing
must not depend on which rows happen to be present. Pairing by order of first appearance in the
table did: when the first persona lacked one B row (a failed query), b1 appeared last and every
later pair shifted by one. Each message's paraphrases are now put in an order that depends on
their ids only, and the j-th of A is paired with the j-th of B:

1. **as given**: ``pairing=[(a_id, b_id), ...]`` (the registries' order is
   ``list(zip(set_a_ids, set_b_ids))``); paraphrases in no pair are left unpaired;
2. **design order**, when every row of both messages carries ``seq``, its query's position in the
   study design (a store's table does): within one persona the queries follow each set's file
   order, so a paraphrase's place is the number of paraphrases that precede it for some persona
   that has both; a missing row removes nothing from that count as long as each two paraphrases
   were both answered by some persona (ids break remaining ties, as in rule 3);
3. **natural order of the ids** otherwise: runs of digits compare as numbers ("b2" before "b10",
   "p007" with "p7" then by text), the rest as text.

With m_A != m_B the surplus ids at the end of the longer list are left unpaired and reported; the
unpaired test and the per-persona differences still use them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pydantic import TypeAdapter, ValidationError

from survey.errors import SurveyError, pydantic_message

DESIGN_ORDER = "design order, each set's paraphrase order from the store's query order"
NATURAL_ORDER = "natural order of the paraphrase ids, digits as numbers: b2 before b10"
AS_GIVEN = "as given"
_PAIRS = TypeAdapter(list[tuple[str, str]])


def natural_key(text: str) -> tuple:
    """Sort key that compares runs of digits as numbers: "b2" < "b10"; the text itself breaks ties."""
    parts = re.split(r"(\d+)", str(text))
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts), str(text)


def natural_order(values) -> list[str]:
    """The distinct values, naturally sorted."""
    return sorted(pd.unique(pd.Series(values, dtype=object)), key=natural_key)


def design_order(rows: pd.DataFrame) -> list[str] | None:
    """One message's paraphrases in design order from ``seq``, or None when some row lacks it."""
    if "seq" not in rows.columns or rows.empty:
        return None
    seq = pd.to_numeric(rows["seq"], errors="coerce")
    if seq.isna().any():
        return None
    place = seq.groupby([rows["persona"], rows["perturbation"]]).min().unstack("perturbation")
    ids, pos = list(place.columns), place.to_numpy(dtype=float)  # NaN: persona lacks it
    before = np.array([(pos[:, [x]] < pos).any(axis=0) for x in range(len(ids))])  # x before y
    preceded = dict(zip(ids, before.sum(axis=0).tolist(), strict=True))
    return sorted(ids, key=lambda p: (preceded[p], natural_key(p)))


@dataclass
class Pairing:
    """The (A, B) paraphrase pairs of a comparison, the ids left unpaired and the rule used."""

    a: str
    b: str
    pairs: list[tuple[str, str]]
    unpaired_a: list[str]
    unpaired_b: list[str]
    rule: str

    @property
    def order_a(self) -> list[str]:
        """A's ids, the paired ones first in pair order."""
        return [x for x, _ in self.pairs] + self.unpaired_a

    @property
    def order_b(self) -> list[str]:
        return [y for _, y in self.pairs] + self.unpaired_b

    def describe(self, show: int = 3) -> str:
        """One line for people: the rule, the first pairs and what was left unpaired."""
        shown = ", ".join(f"{x}/{y}" for x, y in self.pairs[:show])
        more = f", ... ({len(self.pairs)} pairs)" if len(self.pairs) > show else ""
        left = "; ".join(f"{msg} {', '.join(ids)}" for msg, ids in ((self.a, self.unpaired_a), (self.b, self.unpaired_b))
                         if ids)
        return f"pairing ({self.rule}): {shown}{more}" + (f"; unpaired: {left}" if left else "")

    def to_dict(self) -> dict:
        return {"pairing_rule": self.rule, "pairs": [list(p) for p in self.pairs],
                "unpaired_perturbations": {self.a: list(self.unpaired_a), self.b: list(self.unpaired_b)}}


def pair_perturbations(df: pd.DataFrame, model: str, a: str, b: str, pairing=None) -> Pairing:
    """Pair the paraphrases of messages ``a`` and ``b`` of ``model`` by the rules in the module docstring."""
    sub = df[df["model"] == model]
    rows_a, rows_b = sub[sub["message"] == a], sub[sub["message"] == b]
    if pairing is not None:
        return _given(pairing, a, b, natural_order(rows_a["perturbation"]), natural_order(rows_b["perturbation"]))
    ids_a, ids_b = design_order(rows_a), design_order(rows_b)
    rule = DESIGN_ORDER
    if ids_a is None or ids_b is None:
        ids_a, ids_b = natural_order(rows_a["perturbation"]), natural_order(rows_b["perturbation"])
        rule = NATURAL_ORDER
    k = min(len(ids_a), len(ids_b))
    return Pairing(a, b, list(zip(ids_a[:k], ids_b[:k], strict=True)), ids_a[k:], ids_b[k:], rule)


def _given(pairing, a: str, b: str, ids_a: list[str], ids_b: list[str]) -> Pairing:
    try:
        pairs = [(str(x), str(y)) for x, y in _PAIRS.validate_python(pairing)]
    except ValidationError as exc:
        raise SurveyError(pydantic_message(exc, "pairing (a list of (A id, B id) pairs)")) from None
    if not pairs:
        raise SurveyError("pairing needs at least one pair of paraphrase ids")
    for side, (message, known) in enumerate(((a, ids_a), (b, ids_b))):
        seen = set()
        for pair in pairs:
            pid = pair[side]
            if pid not in known:
                raise SurveyError(f"pairing: '{pid}' is not a perturbation of message '{message}'; "
                                  f"it has {', '.join(known)}")
            if pid in seen:
                raise SurveyError(f"pairing: '{pid}' appears in more than one pair")
            seen.add(pid)
    used_a, used_b = {x for x, _ in pairs}, {y for _, y in pairs}
    return Pairing(a, b, pairs, [p for p in ids_a if p not in used_a], [p for p in ids_b if p not in used_b],
                   AS_GIVEN)


def perturbation_order(rows: pd.DataFrame) -> list[str]:
    """One message's paraphrase ids in design order when ``seq`` allows, else in natural order."""
    return design_order(rows) or natural_order(rows["perturbation"])
