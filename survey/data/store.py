"""The response store: SQLite in WAL mode, one row per query, committed as each reply arrives.

A row is keyed (study, model, message, perturbation, persona, replicate, question); a store written
before studies had several questions reads as question "q" and is migrated by the first run that writes
to it (survey.data.store_questions). A row with status 'ok'
holds a reply (valid or not) and is never sent again; a row with status 'failed' holds the last
non-retryable error and is retried by the next run. Batch jobs are recorded in ``batch_jobs``
before they are polled, so an interrupted batch run resumes its job instead of paying twice.
The backend each model last ran on is recorded in ``models``; the exported table carries it as the
``backend`` column, so a report can tell free models from paid ones without guessing from ids.
Each study's context (question, set files and their sha256, paraphrase texts, expected queries
per model) is recorded in ``contexts`` as JSON at run time; stores from before read it as None.
Each study's response type (survey.responses) is recorded in ``studies`` by its scale name, so
counts and exports know whether an empty answer is an invalid reply or free text. A store written
before that record existed reads as free text when its replies hold no answer at all and some
reply is longer than one token, otherwise as Yes/No.

WAL with synchronous=NORMAL survives a killed process (every commit is in the log); only a power
loss can drop the last commits. Secrets never reach this file: backends read keys from the
environment and nothing here stores options or headers.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from survey.common.names import DEFAULT_QUESTION
from survey.data import store_questions as questions
from survey.data.scale_columns import add_scale_columns
from survey.data.store_batches import TERMINAL_BATCH, BatchJobs, utc_now  # noqa: F401 - TERMINAL_BATCH: the engine imports it from here
from survey.data.store_questions import KEY_COLS, key_row  # noqa: F401  (re-exported: the row key)
from survey.data.store_records import StoreRecords
from survey.errors import SurveyError, path_error_message
from survey.responses import DEFAULT_SCALE, response_type

SCHEMA_VERSION = 2  # 2: the question axis (question in the key, position)

_RESPONSES = """
CREATE TABLE IF NOT EXISTS responses (
    study TEXT NOT NULL, model TEXT NOT NULL, message TEXT NOT NULL, perturbation TEXT NOT NULL,
    persona TEXT NOT NULL, replicate INTEGER NOT NULL, question TEXT NOT NULL DEFAULT 'q', position INTEGER,
    seq INTEGER,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    prompt_hash TEXT, requested_model TEXT, reported_model TEXT,
    response TEXT, answer INTEGER, logprobs TEXT, p_yes REAL,
    prompt_tokens INTEGER, completion_tokens INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0, error TEXT, error_code TEXT, batch_job TEXT, extra TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    PRIMARY KEY (study, model, message, perturbation, persona, replicate, question)
) WITHOUT ROWID"""
_SCHEMA = _RESPONSES + """;
CREATE TABLE IF NOT EXISTS batch_jobs (
    job_id TEXT PRIMARY KEY, study TEXT NOT NULL, model TEXT NOT NULL, status TEXT NOT NULL,
    n_queries INTEGER NOT NULL, custom_ids TEXT NOT NULL, ingested INTEGER NOT NULL DEFAULT 0,
    error TEXT, submitted_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS models (study TEXT NOT NULL, model TEXT NOT NULL, backend TEXT NOT NULL,
                                   recorded_at TEXT NOT NULL, PRIMARY KEY (study, model));
CREATE TABLE IF NOT EXISTS studies (study TEXT PRIMARY KEY, scale TEXT NOT NULL, recorded_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS contexts (study TEXT PRIMARY KEY, context TEXT NOT NULL, recorded_at TEXT NOT NULL);
""" + questions.QUESTION_SCHEMA

# Upsert that never overwrites a stored reply: a row that is 'ok' stays as it is.
_UPSERT = """
INSERT INTO responses (study, model, message, perturbation, persona, replicate, question, position, seq, status,
    prompt_hash, requested_model, reported_model, response, answer, logprobs, p_yes, prompt_tokens,
    completion_tokens, attempts, error, error_code, batch_job, extra, created_at, updated_at)
VALUES (:study, :model, :message, :perturbation, :persona, :replicate, :question, :position, :seq, :status,
    :prompt_hash, :requested_model, :reported_model, :response, :answer, :logprobs, :p_yes, :prompt_tokens,
    :completion_tokens, :attempts, :error, :error_code, :batch_job, :extra, :now, :now)
ON CONFLICT (study, model, message, perturbation, persona, replicate, question) DO UPDATE SET
    seq = COALESCE(excluded.seq, responses.seq), position = COALESCE(excluded.position, responses.position), status = excluded.status, prompt_hash = excluded.prompt_hash,
    requested_model = excluded.requested_model, reported_model = excluded.reported_model,
    response = excluded.response, answer = excluded.answer, logprobs = excluded.logprobs,
    p_yes = excluded.p_yes, prompt_tokens = excluded.prompt_tokens,
    completion_tokens = excluded.completion_tokens, attempts = responses.attempts + excluded.attempts,
    error = excluded.error, error_code = excluded.error_code, batch_job = excluded.batch_job,
    extra = excluded.extra, updated_at = excluded.updated_at
WHERE responses.status != 'ok'
"""

_RECORD_FIELDS = ("seq", "position", "status", "prompt_hash", "requested_model", "reported_model", "response", "answer", "p_yes",
                  "prompt_tokens", "completion_tokens", "error", "error_code", "batch_job")
# what Store.record takes beside the key and status
REPLY_FIELDS = (*(f for f in _RECORD_FIELDS if f != "status"), "logprobs", "attempts", "extra")


def _dumps(obj) -> str | None:
    return None if obj is None or obj == {} else json.dumps(obj, sort_keys=True, default=str)


class Store(BatchJobs, StoreRecords):
    """One SQLite file; safe to reopen at any time. Use as a context manager or call close()."""

    def __init__(self, path: str | Path, *, create: bool = True, read_only: bool = False):
        self.path = Path(path)
        if (read_only or not create) and not self.path.exists():
            raise SurveyError(f"{self.path}: no such store; `survey run STUDY.toml` creates it")
        if read_only:  # reading commands never write: not a table added to an unrelated file, not a byte
            self._open_read_only()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # e.g. a file where the store's folder should be
            raise SurveyError(f"store {self.path}: cannot create its folder: {path_error_message(exc)}") from exc
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(_SCHEMA)
            # a store from before the question axis gets its column now, every row kept as question "q"
            self.migrated = questions.migrate(self.db, _RESPONSES)
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            if self.migrated is not None:
                self.db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
        except sqlite3.DatabaseError as exc:
            raise SurveyError(f"{self.path}: not a usable survey store ({exc})") from exc
        self.q = "question"

    def _open_read_only(self) -> None:
        try:
            # A plain connection (it may replay a WAL a killed run left), then no writes through it: mode=ro
            # could not replay that WAL and read the file as empty.
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.db.execute("PRAGMA query_only = ON")
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise SurveyError(f"{self.path}: not a survey store ({exc})") from exc
        if not {"meta", "responses"} <= tables:
            self.db.close()
            what = "an empty SQLite file" if not tables else f"an SQLite file with other tables ({', '.join(sorted(tables)[:3])})"
            raise SurveyError(f"{self.path}: not a survey store ({what}); give a store written by `survey run`, "
                              "or a .csv/.parquet table")
        self.migrated = None
        self.q = questions.question_expr(self.db)  # "question", or "'q'" for a store from before the column

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def key_select(self) -> str:
        """The key columns to SELECT (a store from before the question axis reads as question "q")."""
        return ", ".join([*KEY_COLS[:-1], f"{self.q} AS question"])

    def reply_text(self, key: tuple) -> str | None:
        """The stored reply of one answered row (a conversation's earlier turn, reused as context), else None."""
        where = " AND ".join(f"{c} = ?" for c in KEY_COLS)
        row = self.db.execute(f"SELECT response FROM responses WHERE {where} AND status = 'ok'",
                              tuple(key_row(key).values())).fetchone()
        return None if row is None else (row[0] or "")

    # -- responses ---------------------------------------------------------------------------

    def record(self, key: tuple, *, status: str, **reply) -> bool:
        """Store one result and commit it. Returns False when the row already held a reply.

        ``reply``: what the reply carries, by name (``REPLY_FIELDS``: prompt_hash, requested_model,
        reported_model, response, answer, logprobs, p_yes, prompt_tokens, completion_tokens, attempts (default
        1), error, error_code, batch_job, extra); a name not among them is a TypeError. ``seq`` is the query's
        position in the study design; the export keeps that order, so perturbations appear (and pair up) in
        the order of their sets.
        """
        unknown = sorted(set(reply) - set(REPLY_FIELDS))
        if unknown:
            raise TypeError(f"record() got an unexpected keyword argument '{unknown[0]}'")
        row = key_row(key)
        row.update({c: reply.get(c) for c in _RECORD_FIELDS}, status=status, attempts=reply.get("attempts", 1),
                   logprobs=_dumps(reply.get("logprobs")), extra=_dumps(reply.get("extra")), now=utc_now())
        cur = self.db.execute(_UPSERT, row)  # autocommit: durable as soon as this returns
        return cur.rowcount > 0

    def record_many(self, rows: Iterable[dict]) -> int:
        """Store many results in one transaction, far faster than one commit each (imports, batch results,
        benchmarks): each row holds ``key`` and record()'s keyword arguments. A row that already holds a
        reply stays as it is. Returns how many rows were written; all or none of them are."""
        now = utc_now()

        def params():
            for r in rows:
                row = key_row(r["key"])
                row.update({c: r.get(c) for c in _RECORD_FIELDS}, attempts=r.get("attempts", 1), now=now,
                           logprobs=_dumps(r.get("logprobs")), extra=_dumps(r.get("extra")))
                yield row

        with self._atomic("record_many"):
            return self.db.executemany(_UPSERT, params()).rowcount

    @contextlib.contextmanager
    def _atomic(self, name: str):
        """All of the block's writes or none of them (a savepoint, so it also nests in a transaction)."""
        self.db.execute(f"SAVEPOINT {name}")
        try:
            yield
        except BaseException:
            self.db.execute(f"ROLLBACK TO {name}")
            raise
        finally:
            self.db.execute(f"RELEASE {name}")

    def done_keys(self, study: str, model: str | None = None) -> set[tuple]:
        """Keys of rows holding a reply (status 'ok'): these are never sent again."""
        return self.keys(study, model, "ok")

    def keys(self, study: str, model: str | None = None, status: str = "ok") -> set[tuple]:
        sql = f"SELECT {self.key_select} FROM responses WHERE study = ? AND status = ?"
        args: list = [study, status]
        if model is not None:
            sql += " AND model = ?"
            args.append(model)
        return {tuple(r) for r in self.db.execute(sql, args)}

    def unrated(self, study: str) -> list[tuple[tuple, str | None]]:
        """(key, reply) of the replies a semantic-similarity rating has not scored yet (survey.collect.similarity_rating)."""
        sql = (f"SELECT {self.key_select}, response FROM responses WHERE study = ? AND status = 'ok' AND "
               "(extra IS NULL OR json_extract(extra, '$.rating') IS NULL) ORDER BY seq")
        return [(tuple(r[:-1]), r[-1]) for r in self.db.execute(sql, (study,))]

    def set_ratings(self, rows: list[tuple[tuple, int | None, float | None, dict]]) -> None:
        """Store ratings of stored replies in one transaction: (key, answer, expected score, fields merged into extra)."""
        where = " AND ".join(f"{c} = ?" for c in KEY_COLS)
        with self.db:  # the sqlite3 context manager commits on success and rolls back on an exception
            self.db.execute("BEGIN")
            self.db.executemany(f"UPDATE responses SET answer = ?, p_yes = ?, extra = json_patch(COALESCE(extra, "
                                f"'{{}}'), ?), updated_at = ? WHERE {where}",
                                [(a, e, _dumps(x), utc_now(), *key_row(key).values()) for key, a, e, x in rows])

    def prompt_hashes(self, study: str, model: str) -> dict[tuple, str]:
        rows = self.db.execute(f"SELECT {self.key_select}, prompt_hash FROM responses WHERE study = ? AND model = ? "
                               "AND status = 'ok'", (study, model))
        return {tuple(r[:-1]): r[-1] for r in rows}

    # -- studies ------------------------------------------------------------------------------

    def record_scale(self, study: str, scale: str, question: str = DEFAULT_QUESTION) -> None:
        """Record a study's response type (of one of its questions: each question keeps its own); a study or
        question already recorded with another one is refused."""
        if question != DEFAULT_QUESTION:
            questions.record_question_scale(self.db, self.path, study, question, scale)
            return
        self.db.execute("INSERT OR IGNORE INTO studies VALUES (?, ?, ?)", (study, scale, utc_now()))
        (stored,) = self.db.execute("SELECT scale FROM studies WHERE study = ?", (study,)).fetchone()
        if stored != scale:
            raise SurveyError(f"{self.path}: study '{study}' holds '{stored}' replies, not '{scale}'; "
                              "give the study another name (or use another store) to ask a different question")

    def scales(self, study: str) -> dict[str, str]:
        """Each question's response type, in the order recorded (a store of one unnamed question: {"q": scale})."""
        named = questions.question_scales(self.db, study)
        row = self.db.execute("SELECT 1 FROM studies WHERE study = ?", (study,)).fetchone()
        return {DEFAULT_QUESTION: self.scale(study), **named} if row or not named else named

    def scale(self, study: str) -> str:
        """A study's response type: the recorded one, else inferred for stores written before the record. A study
        of several named questions has one per question (``scales``); this is the first recorded."""
        row = self.db.execute("SELECT scale FROM studies WHERE study = ?", (study,)).fetchone()
        if row:
            return row[0]
        named = questions.question_scales(self.db, study)
        if named:
            return next(iter(named.values()))
        answered, longer = self.db.execute(
            "SELECT COUNT(answer), COALESCE(SUM(completion_tokens > 1), 0) FROM responses "
            "WHERE study = ? AND status = 'ok'", (study,)).fetchone()
        return "text" if not answered and longer else DEFAULT_SCALE

    def record_context(self, study: str, ctx: dict) -> None:
        """Record what a study's rows rest on (the latest run wins); survey.study.context builds it::

            {"study": NAME, "replicates": r,
             "question": {"id": "q", "type": "binary", "template": RESOLVED_TEMPLATE, "max_tokens": 1},  # primary
             "questions": [{"id": ..., "type": ..., ...}, ...], "primary": ID | None, "family": "holm" | "bh",
             "flow": "independent" | "conversation", "question_order": "fixed" | "random" (conversation only),
             "personas": {"set": NAME, "path": FILE, "sha256": HEX, "template": STUDY_OVERRIDE | None,
                          "ids": [persona ids used, in order], "attributes": {ID: {attribute: value}}},
             "messages": [{"id": MSG, "set": NAME, "path": FILE, "sha256": HEX,
                           "paraphrases": [{"id": ID, "text": TEXT}, ...]}, ...],   # registry order
             "models": [{"name": NAME, "backend": NAME, "model_id": ID, "expected_queries": n}, ...],
             "analysis": {"segments": BY | {NAME: FILTER}, "target": {"source": FILE, "margins": {...}}}}
                                                        # only for a study with [segments] or [target]

        Lists keep the study's order; readers should ignore keys they do not know."""
        self.db.execute("INSERT INTO contexts VALUES (?, ?, ?) ON CONFLICT (study) DO UPDATE SET "
                        "context = excluded.context, recorded_at = excluded.recorded_at",
                        (study, json.dumps(ctx, sort_keys=True, default=str), utc_now()))

    def context(self, study: str) -> dict | None:
        """The study's recorded context, or None (stores written before the record, or never run)."""
        row = self.db.execute("SELECT context, recorded_at FROM contexts WHERE study = ?", (study,)).fetchone()
        if row is None:
            return None
        ctx = json.loads(row[0])
        ctx.setdefault("recorded_at", row[1])
        return ctx

    def states(self, study: str) -> pd.DataFrame:
        """Every row's key, status and error code (no replies): what completeness counts."""
        cols = ", ".join([*KEY_COLS[1:-1], f"{self.q} AS question"])
        return pd.read_sql_query(f"SELECT {cols}, status, error_code FROM responses WHERE study = ?",
                                 self.db, params=(study,))

    def studies(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT DISTINCT study FROM responses ORDER BY study")]

    def read_study(self, study: str | None = None) -> tuple[str | None, pd.DataFrame, pd.DataFrame]:
        """(the study, its answered rows with the columns an analysis needs, every row's key, status and
        error_code for completeness), in one pass over the store (survey.data.store_table); no provenance
        columns (reply text, log-probabilities, hashes, timestamps: ``to_long_table`` has them). ``study``
        as in to_long_table; a store without rows gives (None, an empty table, no states)."""
        from survey.data.store_table import read_study

        study = self._study(study)
        if study is None:
            return None, self.to_long_table(), pd.DataFrame()
        table, states = read_study(self.path, study, self.scales(study), self.backends(), question=self.q,
                                   position=questions.position_expr(self.db))
        return study, table, states

    def _study(self, study: str | None) -> str | None:
        """The study asked for, or the only one; an error names the choices when that is ambiguous."""
        studies = self.studies()
        if study is None:
            if len(studies) > 1:
                raise SurveyError(f"{self.path} holds several studies ({', '.join(studies)}); pick one with `study=`")
            return studies[0] if studies else None
        if study not in studies:
            raise SurveyError(f"{self.path} has no study '{study}'; it has {', '.join(studies) or 'none'}")
        return study

    def to_long_table(self, study: str | None = None, include_failed: bool = False) -> pd.DataFrame:
        """The contract table (survey.data.table) with provenance columns, in the store's key order.

        Failed calls (no reply) are left out unless ``include_failed``: they are not invalid
        answers, they are queries that never got one. ``seq`` (the query's place in the design)
        lets the analysis pair paraphrases in their sets' order whatever rows are missing.
        """
        if study is not None or self._study(None) is not None:
            study = self._study(study)
        where = ["1 = 1"] if study is None else ["study = ?"]
        if not include_failed:
            where.append("status = 'ok'")
        sql = f"""SELECT model, message, perturbation, persona, replicate, {self.q} AS question,
                         {questions.position_expr(self.db)} AS position, answer, response, p_yes,
                         status, error, reported_model AS model_id, requested_model, prompt_tokens,
                         completion_tokens, attempts, prompt_hash, logprobs, extra, batch_job, study,
                         created_at, updated_at, seq
                  FROM responses WHERE {' AND '.join(where)}
                  ORDER BY model, seq IS NULL, seq, message, persona, perturbation, replicate, question"""
        df = pd.read_sql_query(sql, self.db, params=() if study is None else (study,))
        scales = {(s, q): scale for s in df["study"].unique() for q, scale in self.scales(s).items()}
        fallback = {s: self.scale(s) for s in df["study"].unique()}
        df["scale"] = pd.Series([scales.get(k, fallback.get(k[0])) for k in zip(df["study"], df["question"],
                                                                                 strict=True)],
                                index=df.index, dtype=object)
        df["position"] = df["position"].astype("Int64")
        if df["position"].isna().all():  # only a conversation's rows have a place in it
            df = df.drop(columns="position")
        dtypes = {response_type(s).answer_dtype for s in pd.unique(df["scale"])}
        df["answer"] = df["answer"].astype(dtypes.pop() if len(dtypes) == 1 else "Float64")
        add_scale_columns(df)
        df["replicate"] = df["replicate"].astype("int64")
        for col in ("prompt_tokens", "completion_tokens", "seq"):
            df[col] = df[col].astype("Int64")
        backends = self.backends()  # None for models run before the record existed
        df["backend"] = pd.Series([backends.get(k) for k in zip(df["study"], df["model"], strict=True)],
                                  index=df.index, dtype=object)
        return df
