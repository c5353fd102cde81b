"""Forced choice from the long table: the counts of each (persona, pair, order) for survey.kinds.choice.statistics.

A forced-choice row's ``message``/``perturbation`` are what was shown first, ``second`` and
``second_perturbation`` what was shown second, and ``answer`` the position chosen (1 or 2, empty when
invalid). The tests themselves, and the preference they report, are survey.kinds.choice.statistics's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from survey.data.pairing import natural_key
from survey.errors import TableError
from survey.kinds.choice.statistics import ChoiceResult, choice_test
from survey.stats.comparison import persona_weights
from survey.stats.kinds.base import CompareOptions

CHOICE_SCALE = "choice"
_NEEDED = ("second", "second_perturbation")


def _pair_rows(sub: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """The rows of A vs B, each with its pair (A id, B id), its order ("AB": A shown first) and whether
    it chose the first-shown option; ``first`` is a probability in exact mode, else 0/1."""
    ab = sub[(sub["message"] == a) & (sub["second"] == b)]
    ba = sub[(sub["message"] == b) & (sub["second"] == a)]
    return pd.concat([
        ab.assign(a_id=ab["perturbation"], b_id=ab["second_perturbation"], order="AB"),
        ba.assign(a_id=ba["second_perturbation"], b_id=ba["perturbation"], order="BA"),
    ], ignore_index=True).astype({"a_id": str, "b_id": str})


def _check_disjoint(rows: pd.DataFrame, a: str, b: str) -> None:
    # The sign-flip test treats pairs as independent: a paraphrase in two pairs would tie them together.
    pairs = rows[["a_id", "b_id"]].drop_duplicates()
    for col, msg in (("a_id", a), ("b_id", b)):
        twice = pairs[col][pairs[col].duplicated()]
        if len(twice):
            pid = twice.iloc[0]
            partners = sorted(pairs.loc[pairs[col] == pid, "b_id" if col == "a_id" else "a_id"], key=natural_key)
            raise TableError(f"paraphrase '{pid}' of '{msg}' is paired with {', '.join(partners)}; the forced-choice "
                             "test needs each paraphrase in one pair (shown with one partner, in both orders)")


def compare_choice(df: pd.DataFrame, model: str, a: str, b: str, *, alternative: str = "two-sided",
                   alpha: float = 0.05, confidence: float | None = None, n_resamples: int = 9999, seed=0,
                   probabilities: bool = False, weights=None) -> ChoiceResult:
    """The forced-choice tests of A vs B for one model of a long table (``choice_test`` on its counts).

    A forced-choice row's ``message``/``perturbation`` are what was shown first, ``second`` and
    ``second_perturbation`` what was shown second, and ``answer`` the position chosen (1 or 2, empty
    when invalid). Pairs (A_j, B_j) come from the rows themselves, in natural order of the A ids. A pair
    asked in one order only is left out and named in ``pairs_one_order`` (averaging the orders is what
    cancels position bias); a pair without a valid reply in some order is in ``pairs_left_out``.
    ``probabilities``: use exact mode's ``expected`` position (2 - expected = P(first)) instead of answers.
    ``weights``: persona id -> weight, for a target population (survey.stats.segments.weights).
    """
    missing = [c for c in _NEEDED if c not in df.columns]
    if missing:
        raise TableError(f"missing column(s) {', '.join(missing)}: a forced-choice table names what was shown second")
    sub = df[df["model"] == model]
    if "scale" in sub.columns:
        sub = sub[sub["scale"] == CHOICE_SCALE]
    if sub.empty:
        raise TableError(f"no forced-choice rows for model '{model}'")
    rows = _pair_rows(sub, a, b)
    if rows.empty:
        shown = sorted({f"{x} vs {y}" for x, y in zip(sub["message"], sub["second"], strict=True)})
        raise TableError(f"model '{model}' has no forced-choice rows of '{a}' against '{b}'; it has {', '.join(shown)}")
    _check_disjoint(rows, a, b)
    if probabilities:
        if "expected" not in rows.columns:
            raise TableError("exact mode needs the 'expected' column")
        rows["first"] = 2 - pd.to_numeric(rows["expected"], errors="coerce")
    else:
        rows["first"] = pd.to_numeric(rows["answer"], errors="coerce").map({1: 1.0, 2: 0.0})
    orders = rows.groupby(["a_id", "b_id"])["order"].agg(lambda o: frozenset(o))
    complete = sorted((p for p, o in orders.items() if len(o) == 2), key=lambda p: (natural_key(p[0]), natural_key(p[1])))
    one_order = {p: ("A first only" if "AB" in o else "B first only")
                 for p, o in sorted(orders.items(), key=lambda x: natural_key(x[0][0])) if len(o) == 1}
    if not complete:
        raise TableError(f"model '{model}': no pair of '{a}' and '{b}' was asked in both orders")
    personas = list(pd.unique(rows["persona"]))
    used = rows.set_index(["a_id", "b_id"]).loc[complete].reset_index()
    cells = used.groupby(["order", "persona", "a_id", "b_id"])["first"].agg(["sum", "count", "size"])
    index = pd.MultiIndex.from_tuples(complete, names=["a_id", "b_id"])

    def grid(order: str, col: str) -> np.ndarray:
        part = cells.xs(order, level="order")[col].unstack(["a_id", "b_id"])
        return part.reindex(index=personas, columns=index).fillna(0).to_numpy(dtype=float)

    result = choice_test(grid("AB", "sum"), grid("AB", "count"), grid("BA", "sum"), grid("BA", "count"),
                         a=a, b=b, invalid=int(used["first"].isna().sum()), replicates=int(cells["size"].max()),
                         pairs=complete, weights=persona_weights(weights, personas),
                         options=CompareOptions(alternative=alternative, alpha=alpha, confidence=confidence,
                                                flips=n_resamples, seed=seed))
    result.pairs_one_order = one_order
    result.model = model
    if one_order:
        result.notes.append(f"{len(one_order)} pair(s) asked in one order only were left out, since only both "
                            f"orders cancel position bias: {', '.join(f'{x}/{y}' for x, y in one_order)}")
    return result
