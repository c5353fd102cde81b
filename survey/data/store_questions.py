"""The store's question axis: the ``question`` column of ``responses`` (part of the row key), the
``position`` column (a conversation's order), the scale of each question, and the migration of stores
written before studies had several questions.

A store from before has no ``question`` column. Reading it never writes: its rows read as question
"q" (``question_expr`` gives the SQL to select). The first writable open migrates it in one
transaction: a new ``responses`` table with the column in its primary key, every row copied with
question "q", the row count checked before the old table is dropped; an error rolls all of it back.
"""

from __future__ import annotations

import sqlite3

from survey.common.names import DEFAULT_QUESTION
from survey.data.store_batches import utc_now
from survey.errors import SurveyError

KEY_COLS = ("study", "model", "message", "perturbation", "persona", "replicate", "question")


def key_row(key: tuple) -> dict:
    """A row key as columns; a key of six (from before the question axis) is question "q"."""
    key = tuple(key)
    if len(key) == len(KEY_COLS) - 1:
        key = (*key, DEFAULT_QUESTION)
    return dict(zip(KEY_COLS, key, strict=True))


QUESTION_SCHEMA = """
CREATE TABLE IF NOT EXISTS question_scales (study TEXT NOT NULL, question TEXT NOT NULL, scale TEXT NOT NULL,
                                            recorded_at TEXT NOT NULL, PRIMARY KEY (study, question));
"""


def columns(db: sqlite3.Connection) -> set[str]:
    return {r[1] for r in db.execute("PRAGMA table_info(responses)")}


def question_expr(db: sqlite3.Connection) -> str:
    """The SQL that reads a row's question: the column, or "q" for a store written before it existed."""
    return "question" if "question" in columns(db) else f"'{DEFAULT_QUESTION}'"


def position_expr(db: sqlite3.Connection) -> str:
    return "position" if "position" in columns(db) else "NULL"


def migrate(db: sqlite3.Connection, schema: str) -> int | None:
    """Give a store written before the question axis its ``question`` (every row "q") and ``position``
    columns; returns the rows kept, or None when the store needed nothing. ``schema``: the current
    ``responses`` table's CREATE statement."""
    have = columns(db)
    if not have or "question" in have:
        return None
    (before,) = db.execute("SELECT COUNT(*) FROM responses").fetchone()
    old = [c for c in _column_order(db) if c not in ("question", "position")]
    cols = ", ".join(old)
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute("ALTER TABLE responses RENAME TO responses_before_questions")
        db.execute(schema)
        db.execute(f"INSERT INTO responses ({cols}, question) SELECT {cols}, '{DEFAULT_QUESTION}' "
                   "FROM responses_before_questions")
        (after,) = db.execute("SELECT COUNT(*) FROM responses").fetchone()
        if after != before:
            raise SurveyError(f"store migration copied {after} of {before} rows; nothing was changed")
        db.execute("DROP TABLE responses_before_questions")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return int(before)


def _column_order(db: sqlite3.Connection) -> list[str]:
    return [r[1] for r in db.execute("PRAGMA table_info(responses)")]


def record_question_scale(db: sqlite3.Connection, path, study: str, question: str, scale: str) -> None:
    """Record one question's response type; a question already recorded with another one is refused."""
    db.execute("INSERT OR IGNORE INTO question_scales VALUES (?, ?, ?, ?)", (study, question, scale, utc_now()))
    (stored,) = db.execute("SELECT scale FROM question_scales WHERE study = ? AND question = ?",
                           (study, question)).fetchone()
    if stored != scale:
        raise SurveyError(f"{path}: question '{question}' of study '{study}' holds '{stored}' replies, not "
                          f"'{scale}'; give the question another id (or the study another name) to ask it differently")


def question_scales(db: sqlite3.Connection, study: str) -> dict[str, str]:
    """The recorded response type of each question of a study (empty for stores of one unnamed question)."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "question_scales" not in tables:
        return {}
    return dict(db.execute("SELECT question, scale FROM question_scales WHERE study = ?", (study,)))


def recorded_questions(ctx: dict) -> tuple[dict, ...]:
    """The questions a context records ({"id", "scale", ...} each); a context from before several questions
    has its one question as "q"."""
    if ctx.get("questions"):
        return tuple({**q, "id": str(q["id"]), "scale": q.get("scale") or q.get("type")} for q in ctx["questions"])
    q = ctx.get("question")
    if not q:
        return ()
    return ({**q, "id": str(q.get("id", DEFAULT_QUESTION)), "scale": q.get("scale") or q.get("type")},)
