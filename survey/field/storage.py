"""The field server's writes to the study's store (tables in survey.data.fielded): sessions, the balanced
assignment, and each completed response committed in one transaction.

Every count the server acts on (conditions' balance, quota cells, completes) is read from SQLite inside
the transaction that acts on it, so a restarted server resumes them and no two respondents take the last
place of a cell. One connection, used by one request at a time (a lock): the writes are short.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from survey.data.fielded import FIELD_SCHEMA, fielded_rows
from survey.data.store import Store

ABANDONED_AFTER = timedelta(minutes=30)  # a session idle this long no longer holds its place in the balance


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Session:
    token_hash: str
    respondent: str
    panel: dict
    condition: str
    assignment: dict
    status: str
    attributes: dict | None
    started_at: str
    updated_at: str  # while answering the questions: when they answered about themselves


class FieldStore:
    """The study's store opened for fielding (its tables created if missing)."""

    def __init__(self, path: str | Path, study: str):
        Store(path).close()  # a usable survey store, its schema in place
        self.study = study
        self.db = sqlite3.connect(Path(path), isolation_level=None, timeout=30, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(FIELD_SCHEMA)
        self.lock = threading.Lock()

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self):
        with self.lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    # -- sessions ------------------------------------------------------------------------------

    def session(self, token: str | None) -> Session | None:
        if not token:
            return None
        with self.lock:
            row = self.db.execute("SELECT token_hash, respondent, panel, condition, assignment, status, attributes, "
                                  "started_at, updated_at FROM field_sessions WHERE token_hash = ? AND study = ?",
                                  (token_hash(token), self.study)).fetchone()
        return None if row is None else _session(row)

    def status_of(self, respondent: str) -> str | None:
        with self.lock:
            row = self.db.execute("SELECT status FROM field_sessions WHERE study = ? AND respondent = ?",
                                  (self.study, respondent)).fetchone()
        return row[0] if row else None

    def start(self, token: str, respondent: str, panel: dict, least_used, pick, limit: int | None):
        """A new session in one of the least-used conditions (``least_used`` takes the respondents per condition
        and names them; ``pick`` breaks the tie and builds the assignment: (condition, assignment));
        "answered" / "started" when the respondent already has a session, "full" when ``limit`` completes are in."""
        with self.transaction() as db:
            row = db.execute("SELECT status FROM field_sessions WHERE study = ? AND respondent = ?",
                             (self.study, respondent)).fetchone()
            if row is not None:
                return "answered" if row[0] == "complete" else "started"
            if limit is not None and self._completes(db) >= limit:
                return "full"
            condition, assignment = pick(least_used(self._counts(db)))
            t = now()
            db.execute("INSERT INTO field_sessions (token_hash, study, respondent, panel, condition, assignment, "
                       "status, started_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'started', ?, ?)",
                       (token_hash(token), self.study, respondent, json.dumps(panel, sort_keys=True), condition,
                        json.dumps(assignment), t, t))
        return "new"

    def save_attributes(self, session: Session, attributes: dict) -> None:
        with self.transaction() as db:
            db.execute("UPDATE field_sessions SET attributes = ?, updated_at = ? WHERE token_hash = ? "
                       "AND status = 'started'", (json.dumps(attributes), now(), session.token_hash))

    def quota_full(self, session: Session) -> None:
        """The respondent fell in a full cell: their session closes, kept as a partial response."""
        with self.transaction() as db:
            db.execute("UPDATE field_sessions SET status = 'quota_full', updated_at = ? WHERE token_hash = ? "
                       "AND status = 'started'", (now(), session.token_hash))

    def complete(self, session: Session, rows: list[dict], attention_ok: bool, cell_full, limit: int | None) -> str:
        """The response's human rows and the session's completion in ONE transaction: "complete", or
        "answered" (already complete: nothing written twice), "quota_full" (a cell or the study filled
        while they answered: kept as a partial response)."""
        with self.transaction() as db:
            status = db.execute("SELECT status FROM field_sessions WHERE token_hash = ?",
                                (session.token_hash,)).fetchone()
            if status is None or status[0] != "started":
                return "answered" if status and status[0] == "complete" else "quota_full"
            full = (limit is not None and self._completes(db) >= limit) or cell_full(self._cells(db))
            t = now()
            if full:
                db.execute("UPDATE field_sessions SET status = 'quota_full', updated_at = ? WHERE token_hash = ?",
                           (t, session.token_hash))
                return "quota_full"
            start, about, end = (datetime.fromisoformat(x) for x in (session.started_at, session.updated_at, t))
            timings = {"about_you": round((about - start).total_seconds(), 3),
                       "questions": round((end - about).total_seconds(), 3)}
            common = dict(study=self.study, respondent=session.respondent, attributes=json.dumps(session.attributes),
                          panel=json.dumps(session.panel, sort_keys=True), condition=session.condition,
                          attention_ok=int(attention_ok), seconds=(end - start).total_seconds(),
                          timings=json.dumps(timings), started_at=session.started_at, completed_at=t)
            db.executemany(
                "INSERT INTO field_answers (study, respondent, question, position, scale, message, perturbation, "
                "shown, answer, answer_text, attributes, panel, condition, attention_ok, seconds, timings, started_at, "
                "completed_at) VALUES (:study, :respondent, :question, :position, :scale, :message, :perturbation, "
                ":shown, :answer, :answer_text, :attributes, :panel, :condition, :attention_ok, :seconds, :timings, "
                ":started_at, :completed_at)", [{**common, **r} for r in rows])
            db.execute("UPDATE field_sessions SET status = 'complete', completed_at = ?, updated_at = ? "
                       "WHERE token_hash = ?", (t, t, session.token_hash))
        return "complete"

    # -- counts --------------------------------------------------------------------------------

    def _counts(self, db) -> Counter:
        """Respondents per condition that the balance counts: complete, or answering now (active within
        ABANDONED_AFTER); a session turned away by a quota, or left idle, gives its place back (it may still
        complete, and then counts again), so abandonments do not starve a condition of completes."""
        idle = (datetime.now(UTC) - ABANDONED_AFTER).isoformat(timespec="milliseconds")
        return Counter(dict(db.execute(
            "SELECT condition, COUNT(*) FROM field_sessions WHERE study = ? AND (status = 'complete' OR "
            "(status = 'started' AND updated_at > ?)) GROUP BY condition", (self.study, idle)).fetchall()))

    def _completes(self, db) -> int:
        return db.execute("SELECT COUNT(*) FROM field_sessions WHERE study = ? AND status = 'complete'",
                          (self.study,)).fetchone()[0]

    def _cells(self, db) -> list[dict]:
        """The attributes of every complete respondent (what quota cells count)."""
        return [json.loads(a or "{}") for (a,) in db.execute(
            "SELECT attributes FROM field_sessions WHERE study = ? AND status = 'complete'", (self.study,))]

    def completed_attributes(self) -> list[dict]:
        with self.lock:
            return self._cells(self.db)

    def counters(self) -> dict:
        """For the admin page and tests: sessions per status and per condition, completes per condition."""
        with self.lock:
            rows = self.db.execute("SELECT condition, status, COUNT(*) FROM field_sessions WHERE study = ? "
                                   "GROUP BY condition, status", (self.study,)).fetchall()
        out: dict = {"assigned": Counter(), "complete": Counter(), "status": Counter()}
        for condition, status, n in rows:
            out["status"][status] += n
            if status != "quota_full":
                out["assigned"][condition] += n
            if status == "complete":
                out["complete"][condition] += n
        return {k: dict(v) for k, v in out.items()}

    def answers(self):
        with self.lock:
            return fielded_rows(self.db, self.study)


def _session(row) -> Session:
    th, rid, panel, condition, assignment, status, attributes, started, updated = row
    return Session(th, rid, json.loads(panel or "{}"), condition, json.loads(assignment), status,
                   json.loads(attributes) if attributes else None, started, updated)
