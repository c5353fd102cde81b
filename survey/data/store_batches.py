"""The store's record of provider batch jobs (survey.data.store.Store inherits it): a job is recorded
before it is polled, so an interrupted batch run resumes its job instead of paying twice."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime

TERMINAL_BATCH = {"SUCCESS", "FAILED", "TIMEOUT_EXCEEDED", "CANCELLED", "EXPIRED"}


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class BatchJobs:
    """The ``batch_jobs`` table of a store (``self.db``: its SQLite connection)."""

    def add_batch_job(self, job_id: str, study: str, model: str, custom_ids: Iterable[str],
                      status: str = "SUBMITTED") -> None:
        ids = list(custom_ids)
        now = utc_now()
        self.db.execute("INSERT INTO batch_jobs VALUES (?, ?, ?, ?, ?, ?, 0, NULL, ?, ?)",
                        (job_id, study, model, status, len(ids), json.dumps(ids), now, now))

    def update_batch_job(self, job_id: str, *, status: str | None = None, ingested: bool | None = None,
                         error: str | None = None) -> None:
        sets, args = ["updated_at = ?"], [utc_now()]
        for col, val in (("status", status), ("ingested", None if ingested is None else int(ingested)),
                         ("error", error)):
            if val is not None:
                sets.append(f"{col} = ?")
                args.append(val)
        self.db.execute(f"UPDATE batch_jobs SET {', '.join(sets)} WHERE job_id = ?", (*args, job_id))

    def batch_jobs(self, study: str | None = None, model: str | None = None,
                   open_only: bool = False) -> list[dict]:
        """Batch jobs, oldest first; ``open_only`` keeps the ones not yet ingested."""
        where, args = ["1 = 1"], []
        for col, val in (("study", study), ("model", model)):
            if val is not None:
                where.append(f"{col} = ?")
                args.append(val)
        if open_only:
            where.append("ingested = 0")
        rows = self.db.execute(f"SELECT job_id, study, model, status, n_queries, custom_ids, ingested, error, "
                               f"submitted_at, updated_at FROM batch_jobs WHERE {' AND '.join(where)} "
                               "ORDER BY submitted_at", args)
        names = ["job_id", "study", "model", "status", "n_queries", "custom_ids", "ingested", "error",
                 "submitted_at", "updated_at"]
        out = []
        for r in rows:
            d = dict(zip(names, r, strict=True))
            d["custom_ids"] = json.loads(d["custom_ids"])
            d["ingested"] = bool(d["ingested"])
            out.append(d)
        return out
