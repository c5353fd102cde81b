"""A study's rows read from a store for analysis, in one pass: the columns an analysis needs and every
row's key, status and error code (what completeness counts), without the provenance columns (reply
text, log-probabilities JSON, prompt hashes, timestamps, token counts) that exports and reports show.

Why: a 1.5-million-row store read through Python's sqlite3 with every column (23 of them, JSON
included), a per-row backend lookup and a second query for the completeness took 27 s of CPU and
2.7 GB, five times the same answers read from a Parquet file; even the lean columns cost ~10 s as
Python objects (one tuple and one string per value). Here Apache Arrow's ADBC SQLite driver reads the
columns straight into Arrow arrays (no Python object per value), Arrow sorts them into the store's
order, and the backend is looked up per model. NULLs come back as sentinels (``COALESCE``) because
the driver infers each column's type from its first rows, and a column that starts NULL would
otherwise be typed from nothing. ``Store.read_study`` and survey.data.sources.load_source use it; the
JSON ``extra`` column is read only for scales whose columns come from it (rating distributions,
forced choice).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from survey.data.scale_columns import add_scale_columns
from survey.responses import response_type

_KEYS = ("model", "message", "perturbation", "persona", "question")
# a NULL answer is an invalid reply, a NULL p_yes no exact score, a NULL seq a row without a design place
_SQL = """SELECT model, message, perturbation, persona, replicate, {question} AS question,
                 COALESCE({position}, -1) AS position, status, COALESCE(error_code, '') AS error_code,
                 {answer} AS answer, COALESCE(p_yes, -1.0) AS p_yes, COALESCE(seq, -1) AS seq{extra}
          FROM responses WHERE study = ?"""


def _arrow_rows(path: Path, study: str, with_extra: bool, question: str, position: str,
                answer: str = "COALESCE(answer, -32768)"):
    """The study's rows as an Arrow table, read by the ADBC SQLite driver (read-only: ``mode=ro``). ``question``,
    ``position``: the SQL that reads them (a store from before the question axis has neither column)."""
    import adbc_driver_sqlite.dbapi as adbc

    with adbc.connect(f"{path.resolve().as_uri()}?mode=ro") as con, con.cursor() as cur:
        cur.adbc_statement.set_options(**{"adbc.sqlite.query.batch_rows": "16384"})  # fewer, fuller Arrow batches
        cur.execute(_SQL.format(extra=", COALESCE(extra, '') AS extra" if with_extra else "", question=question,
                                position=position, answer=answer), (study,))
        return cur.fetch_arrow_table()


def read_study(path: Path, study: str, scales: dict[str, str], backends: dict[tuple[str, str], str], *,
               question: str = "question", position: str = "position") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the study's answered rows as the long table's analysis columns, every row's key, status and
    error_code), from one query. ``scales``: each question's response type name (Store.scales);
    ``backends``: Store.backends(); ``question``, ``position``: the SQL reading them (Store.q)."""
    import pyarrow.compute as pc

    with_extra = any(s != "binary" for s in scales.values())  # the JSON column feeds only other types' columns
    # numbers (a numeric question) are read as REAL: the driver types a column from its first rows
    dtypes = {response_type(s).answer_dtype for s in scales.values()}
    answer_dtype = dtypes.pop() if len(dtypes) == 1 else "Float64"
    rows = _arrow_rows(path, study, with_extra, question, position,
                       "CAST(COALESCE(answer, -32768) AS REAL)" if answer_dtype == "Float64" else
                       "COALESCE(answer, -32768)")
    # the store's order: model, then the design's order (rows without one last), then the key
    rows = rows.append_column("no_seq", pc.equal(rows["seq"], -1))
    order = pc.sort_indices(rows, [(c, "ascending") for c in ("model", "no_seq", "seq", "message", "persona",
                                                              "perturbation", "replicate", "question")])
    columns = {}
    for name in rows.column_names[:-1]:  # one column at a time, each dropped once sorted: never two copies
        column = rows.column(name).take(order)
        if name in _KEYS:  # as categories: the keys are few, and categories keep the peak memory down
            column = pc.dictionary_encode(column)
        columns[name] = column.to_pandas()  # text stays Arrow strings: no object per value
        rows = rows.drop_columns([name])
    del rows
    df = pd.DataFrame(columns)
    del columns
    if df.empty:  # the driver types the columns of an empty result from nothing
        df = df.astype({c: "str" for c in (*_KEYS, "status", "error_code")}).astype({"replicate": "int64",
                                                                                     "position": "int64"})
    states = df[[*_KEYS, "replicate", "status"]]  # shares the columns (pandas copies on write, and none is written)
    states.insert(len(states.columns), "error_code", df["error_code"].astype(object).where(df["error_code"] != "", None))
    columns = [*_KEYS, "replicate", "position", "answer", "p_yes", "status", "seq"] + (["extra"] if with_extra else [])
    ok = df["status"] == "ok"
    table = df[columns] if ok.all() else df.loc[ok, columns].reset_index(drop=True)  # usually every row is ok
    del df
    table["replicate"] = table["replicate"].astype("int64")
    table["answer"] = table["answer"].astype(answer_dtype).mask(table["answer"] == -32768)
    p_yes = table["p_yes"].to_numpy(dtype=float)
    table["p_yes"] = np.where(p_yes < 0, np.nan, p_yes)  # a new, writable array (Arrow's are read-only)
    table["seq"] = table["seq"].astype("Int64").mask(table["seq"] == -1)
    table["study"] = pd.Series(study, index=table.index, dtype="str")
    first = next(iter(scales.values()))
    table["scale"] = table["question"].astype(str).map(lambda q: scales.get(q, first)).astype(object)
    if (table["position"] >= 0).any():  # a conversation: each question's place in it
        table["position"] = table["position"].astype("Int64").mask(table["position"] < 0)
    else:
        table = table.drop(columns="position")
    # the backend each model ran on, looked up once per model (None: run before the record existed)
    per_model = {m: backends.get((study, m)) for m in table["model"].unique()}
    table["backend"] = table["model"].map(per_model).astype(object)
    if with_extra:
        table["extra"] = table["extra"].astype(object).where(table["extra"] != "", None)
    add_scale_columns(table)
    if with_extra:
        table = table.drop(columns="extra")
    return table, states
