"""The long table's question axis (survey.data.table): the ``question`` column, part of the row key ("q" for a
table without one), a conversation's ``position``, and the check of a table's questions against a study's; with
the two helpers every key column's check uses (``key_text``, ``row_labels``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from survey.common.names import DEFAULT_QUESTION, NAME_RE
from survey.errors import TableError


def question_column(out: pd.DataFrame, rows: str) -> None:
    """The ``question`` column as text, "q" for a table without one (one question); ``position`` (a conversation's
    order) as whole numbers when present."""
    if "question" not in out.columns:
        out["question"] = DEFAULT_QUESTION
        return
    if out["question"].isna().any():
        raise TableError(f"column 'question' is empty in {row_labels(out.index[out['question'].isna()], rows)}; every row "
                         "needs the id of the question it answers")
    out["question"] = key_text(out["question"])
    bad = [q for q in pd.unique(out["question"]) if not NAME_RE.match(str(q))]
    if bad:
        raise TableError(f"column 'question' holds '{bad[0]}', not a question id (letters, digits, '_', '.', '-')")
    if "position" in out.columns:
        pos = pd.to_numeric(out["position"], errors="coerce")
        if (pos.dropna() < 0).any() or (pos.dropna() != np.floor(pos.dropna())).any():
            raise TableError("column 'position' must hold whole numbers >= 0 (a question's place in its conversation)")
        out["position"] = pos.astype("Int64")


def check_questions(df: pd.DataFrame, questions: list[str], what: str = "the table") -> None:
    """Refuse a table whose ``question`` values are not the study's question ids (one line naming both)."""
    found = questions_in(df)
    unknown = [q for q in found if q not in questions]
    if unknown:
        raise TableError(f"{what}'s question column holds {', '.join(unknown)}, which the study does not ask (its "
                         f"questions: {', '.join(questions)}); fix the column or give the study's own table")


def questions_in(df: pd.DataFrame) -> list[str]:
    """The question ids of a table in order of appearance ("q" for a table without the column)."""
    return [str(q) for q in pd.unique(df["question"])] if "question" in df.columns else [DEFAULT_QUESTION]


def key_text(col: pd.Series) -> pd.Series:
    """A key column as text. Categories of text (a store read for analysis) are decoded in Arrow, which at a
    million rows takes a fiftieth of the time pandas' own conversion does."""
    if not (isinstance(col.dtype, pd.CategoricalDtype) and col.cat.categories.inferred_type == "string"):
        return col.astype(str)
    import pyarrow as pa

    codes = col.cat.codes.to_numpy()
    decoded = pa.DictionaryArray.from_arrays(pa.array(codes, mask=codes < 0),
                                             pa.array(col.cat.categories.to_numpy(dtype=object), pa.large_string()))
    return pd.Series(pa.chunked_array([decoded.cast(pa.large_string())]).to_pandas().array, index=col.index,
                     name=col.name)


def row_labels(index, noun: str = "row", limit: int = 5) -> str:
    """'row(s) 0, 3' by index label; 'line(s) 2, 5 (the header is line 1)' for a CSV file."""
    idx = list(index[:limit])
    more = f" and {len(index) - limit} more" if len(index) > limit else ""
    where = {"line": " of the file (the header is line 1)", "data row": " (counting from 1)"}.get(noun, "")
    return f"{noun}(s) " + ", ".join(str(i) for i in idx) + more + where
