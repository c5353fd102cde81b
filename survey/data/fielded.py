"""Answers fielded to real people (`survey field`), kept in the study's own store beside the models' rows.

Two tables, created by the field server, never by a reading command:

- ``field_sessions``: one row per respondent who consented (keyed by the sha256 of their session token, the
  token itself never stored): the condition the server assigned, the panel's ids, the demographic answers
  given so far and the status (``started``, ``complete``, ``quota_full``). A session that is not
  ``complete`` is a partial response: it stays here and never reaches an analysis. The balance counters
  (how many respondents each condition got) are counted from this table, so a restarted server resumes them.
- ``field_answers``: the completed responses as human rows, one per respondent x question x item shown
  (message, paraphrase, answer, attributes, panel ids, and timings: seconds in all, and on the questions about
  them and on the study's questions), written with the session's completion in one transaction.

``fielded_humans`` reads the completed answers of one question as survey.data.humans.Humans (the same
object a human file gives), so `survey fidelity` and `survey analyze --humans` read fielded answers without
a file. Respondents who failed the attention check are left out of that analysis (counted in the admin page
and in the export).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd

from survey.responses import response_type

FIELD_SCHEMA = """
CREATE TABLE IF NOT EXISTS field_sessions (
    token_hash TEXT PRIMARY KEY, study TEXT NOT NULL, respondent TEXT NOT NULL, panel TEXT,
    condition TEXT NOT NULL, assignment TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('started', 'complete', 'quota_full')),
    attributes TEXT, started_at TEXT NOT NULL, updated_at TEXT NOT NULL, completed_at TEXT,
    UNIQUE (study, respondent)
);
CREATE TABLE IF NOT EXISTS field_answers (
    study TEXT NOT NULL, respondent TEXT NOT NULL, question TEXT NOT NULL, position INTEGER NOT NULL,
    scale TEXT NOT NULL, message TEXT NOT NULL, perturbation TEXT NOT NULL, shown TEXT,
    answer INTEGER, answer_text TEXT, attributes TEXT NOT NULL, panel TEXT, condition TEXT NOT NULL,
    attention_ok INTEGER NOT NULL, seconds REAL, timings TEXT, started_at TEXT NOT NULL, completed_at TEXT NOT NULL,
    PRIMARY KEY (study, respondent, question, position)
);
"""
ANSWER_COLUMNS = ("study", "respondent", "question", "position", "scale", "message", "perturbation", "shown",
                  "answer", "answer_text", "attributes", "panel", "condition", "attention_ok", "seconds",
                  "timings", "started_at", "completed_at")


def has_fielded(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'field_answers'").fetchone() is not None


def fielded_rows(db: sqlite3.Connection, study: str | None = None) -> pd.DataFrame:
    """The completed answers as a long table (attributes and panel ids as columns ``attr.*``, ``panel.*``
    flattened into their own columns named after the attribute), in completion order."""
    if not has_fielded(db):
        return pd.DataFrame(columns=list(ANSWER_COLUMNS))
    where, args = ("WHERE study = ?", (study,)) if study else ("", ())
    df = pd.read_sql_query(f"SELECT {', '.join(ANSWER_COLUMNS)} FROM field_answers {where} "
                           "ORDER BY completed_at, respondent, question, position", db, params=args)
    return df


def expanded(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with the attributes JSON spread into one column each (the persona template's fields) and the
    panel ids into ``panel_*`` columns: the shape an export or a human file has."""
    if rows.empty:
        return rows.drop(columns=["attributes", "panel"], errors="ignore")
    attrs = pd.DataFrame([json.loads(a or "{}") for a in rows["attributes"]], index=rows.index)
    panel = pd.DataFrame([json.loads(p or "{}") for p in rows["panel"]], index=rows.index).add_prefix("panel_")
    clash = [c for c in attrs.columns if c in rows.columns]
    attrs = attrs.rename(columns={c: f"attr_{c}" for c in clash})
    return pd.concat([rows.drop(columns=["attributes", "panel"]), attrs, panel], axis=1)


def _stored_rows(path, study: str | None) -> pd.DataFrame:
    """The fielded rows of ``study`` in the store at ``path``, read without writing (fielded_rows)."""
    db = sqlite3.connect(Path(path), isolation_level=None, timeout=30)
    try:
        db.execute("PRAGMA query_only = ON")
        return fielded_rows(db, study)
    finally:
        db.close()


def fielded_humans(path: str | Path, study: str | None, scale: str | None, messages=None,
                   question: str | None = None):
    """The fielded answers of one question in the store at ``path`` as Humans (survey.data.humans), or None
    when the store holds none for that question. ``question``: its id (default: the first fielded question asked
    on ``scale``, else the first). Only questions about one message at a time (Yes/No, rating scales) and
    rankings (one row per message ranked, its rank the answer) are human answers in that sense (None for the
    others); respondents who failed the attention check are left out."""
    from survey.data.humans import validate_humans

    rows = _stored_rows(path, study)
    if rows.empty:
        return None
    asked = list(dict.fromkeys(rows["question"]))
    if question is None:
        same = [q for q in asked if scale is None or (rows.loc[rows["question"] == q, "scale"] == scale).any()]
        question = (same or asked)[0]
    if question not in asked:
        return None
    rows = rows[(rows["question"] == question) & (rows["attention_ok"] == 1)]
    if rows.empty or not _about_one_message(str(rows["scale"].iloc[0])):
        return None
    spread = getattr(response_type(str(rows["scale"].iloc[0])), "rows_per_message", None)
    if spread is not None:  # one row per reply about the messages shown together (a ranking): one per message
        rows = spread(rows.reset_index(drop=True))
    table = expanded(rows)
    keep = ["respondent", "message", "perturbation", "answer",
            *[c for c in table.columns if c not in (*ANSWER_COLUMNS, "answer") and not c.startswith("panel_")]]
    people = validate_humans(table[keep].reset_index(drop=True), str(rows["scale"].iloc[0]), messages,
                             source=f"{path} (fielded answers to '{question}')", coded=True)
    people.path = f"{path} (fielded)"
    people.fielded_question = question  # Source.for_question reads another question's answers in its place
    return people


def fielded_gap(path, study: str | None) -> str:
    """Why a store that holds fielded responses gives no human answers (every respondent failed the attention
    check, or the question shows the messages together), or "" when it holds none (or is no store)."""
    if path is None or Path(str(path)).suffix != ".sqlite" or not Path(str(path)).exists():
        return ""
    rows = _stored_rows(path, study)
    if rows.empty:
        return ""
    n = rows["respondent"].nunique()
    held = f"the store holds {n} fielded response{'s' if n != 1 else ''}"
    if not (rows["attention_ok"] == 1).any():
        return f"{held}, but none passed the attention check (the admin page's export lists them)"
    scales = [str(sc) for sc in dict.fromkeys(rows["scale"])]
    if not any(_about_one_message(sc) for sc in scales):
        return (f"{held} on {', '.join(scales)}, which shows the messages together: fidelity and --humans compare "
                "answers about one message at a time (Yes/No, rating scales, numbers) or rankings; the admin page's "
                "export holds them")
    return ""


def _about_one_message(scale: str) -> bool:
    """Answers a human file could hold: scored, each about one message or spread to one row per message by the
    kind (a ranking's rank of each message; not free text, not a choice between messages shown together, whose
    rows stay in the export)."""
    rtype = response_type(scale)
    return rtype.scored and (rtype.view.per_message or hasattr(rtype, "rows_per_message"))


__all__ = ["ANSWER_COLUMNS", "FIELD_SCHEMA", "expanded", "fielded_gap", "fielded_humans", "fielded_rows", "has_fielded"]
