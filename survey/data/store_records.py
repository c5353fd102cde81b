"""The store's bookkeeping of studies and models (survey.data.store.Store inherits it): renaming a study,
deleting rows the user asked to drop, the backend each model ran on, and the per-model summary."""

from __future__ import annotations

import json
from collections.abc import Iterable

from survey.data.store_batches import utc_now
from survey.data.store_questions import KEY_COLS, key_row
from survey.errors import SurveyError
from survey.responses import response_type


class StoreRecords:
    """Methods of a store (``self.db``: its SQLite connection; ``self.path``; ``context``, ``scale``, ``batch_jobs``
    and ``_atomic`` from the Store)."""

    def rename_study(self, old: str, new: str) -> int:
        """Give a study's rows and records (response type, backends, context, batch jobs) another study
        name, e.g. to keep replies collected with an earlier prompt as a study of their own. Refused when
        ``new`` is taken or ``old`` has open batch jobs. Returns the rows moved; atomic."""
        from survey.common.names import ID_RULE, NAME_RE

        if not NAME_RE.match(new):
            raise SurveyError(f"'{new}' is not a valid study name; {ID_RULE}")
        taken = self.db.execute("SELECT 1 FROM responses WHERE study = ? UNION SELECT 1 FROM studies WHERE study = ? "
                                "UNION SELECT 1 FROM contexts WHERE study = ?", (new, new, new)).fetchone()
        if taken:
            raise SurveyError(f"{self.path} already has a study '{new}'; choose another name for the old rows")
        (rows,) = self.db.execute("SELECT COUNT(*) FROM responses WHERE study = ?", (old,)).fetchone()
        if not rows:
            raise SurveyError(f"{self.path} has no stored rows of study '{old}' to rename")
        if self.batch_jobs(old, open_only=True):
            raise SurveyError(f"study '{old}' has open batch jobs; run it until they are collected, then rename")
        ctx = self.context(old)
        with self._atomic("rename_study"):
            for table in ("responses", "models", "studies", "contexts", "batch_jobs"):
                self.db.execute(f"UPDATE {table} SET study = ? WHERE study = ?", (new, old))
            if ctx is not None:
                self.db.execute("UPDATE contexts SET context = ? WHERE study = ?",
                                (json.dumps({**ctx, "study": new}, sort_keys=True, default=str), new))
        return rows

    def delete_rows(self, keys: Iterable[tuple]) -> int:
        """Delete the rows with these keys (study, model, message, perturbation, persona, replicate), atomically;
        returns how many were deleted. Only ever called when the user asked for it."""
        where = " AND ".join(f"{c} = ?" for c in KEY_COLS)
        with self._atomic("delete_rows"):
            return sum(self.db.execute(f"DELETE FROM responses WHERE {where}", tuple(key_row(k).values())).rowcount
                       for k in keys)

    def record_backend(self, study: str, model: str, backend: str) -> None:
        """Record the registry name of the backend a study's model runs on (the latest run wins)."""
        self.db.execute("INSERT INTO models VALUES (?, ?, ?, ?) ON CONFLICT (study, model) DO UPDATE SET "
                        "backend = excluded.backend, recorded_at = excluded.recorded_at",
                        (study, model, backend, utc_now()))

    def backends(self) -> dict[tuple[str, str], str]:
        """(study, model) -> backend name, for the models whose backend was recorded."""
        return {(s, m): b for s, m, b in self.db.execute("SELECT study, model, backend FROM models")}

    def summary(self, study: str | None = None) -> list[dict]:
        """Per (study, model): replies, valid/invalid answers (free-text replies count as text), failures, tokens."""
        sql = """SELECT study, model, SUM(status = 'ok'), SUM(status = 'ok' AND answer IS NOT NULL),
                        SUM(status = 'ok' AND answer IS NULL), SUM(status = 'failed'),
                        COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0),
                        MIN(created_at), MAX(updated_at)
                 FROM responses {where} GROUP BY study, model ORDER BY study, model"""
        rows = self.db.execute(sql.format(where="WHERE study = ?" if study else ""), (study,) if study else ())
        names = ["study", "model", "replies", "valid", "invalid", "failed", "prompt_tokens",
                 "completion_tokens", "first", "last"]
        out = [dict(zip(names, r, strict=True)) for r in rows]
        scales = {s: self.scale(s) for s in {d["study"] for d in out}}
        for d in out:
            d["scale"] = scales[d["study"]]
            d["text"] = 0
            if not response_type(d["scale"]).scored:  # no answer expected: not invalid, just text
                d["text"], d["valid"], d["invalid"] = d["replies"], 0, 0
        return out

    def errors(self, study: str, model: str | None = None) -> list[dict]:
        """Failed rows grouped by error code and message, most frequent first."""
        sql = ("SELECT model, error_code, error, COUNT(*) FROM responses WHERE study = ? AND status = 'failed'"
               + (" AND model = ?" if model else "") + " GROUP BY model, error_code, error ORDER BY 4 DESC")
        args = (study, model) if model else (study,)
        return [{"model": m, "code": c, "error": e, "rows": n} for m, c, e, n in self.db.execute(sql, args)]

