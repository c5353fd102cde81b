"""The batch API the OpenAI and Mistral fakes share: uploaded files and jobs answered after a few polls."""

from __future__ import annotations

import itertools

from aiohttp import web

from .common import FakeServer


class BatchFake(FakeServer):
    """A fake with a batch API (OpenAI, Mistral): uploaded files, and jobs that stay in a ``PENDING`` state
    (reading ``RUNNING`` once polled) until polled ``batch_polls`` times, then run at once (_run_job).
    Subclasses name their job states and give their 404 messages and body (not_found)."""

    PENDING: tuple[str, ...] = ()
    RUNNING = ""
    NOT_FOUND = {"file": "", "job": ""}

    def __init__(self, *, batch_polls: int = 2, **kw):
        super().__init__(**kw)
        self.batch_polls = batch_polls
        self.files: dict[str, dict] = {}
        self.jobs: dict[str, dict] = {}
        self.jobs_created = 0
        self._ids = itertools.count(1)

    def not_found(self, message: str) -> web.Response:
        raise NotImplementedError

    def _run_job(self, job: dict) -> None:
        raise NotImplementedError

    def add_batch_routes(self, app: web.Application, jobs: str) -> None:
        """The file routes and the job routes under ``jobs`` (e.g. "/v1/batches")."""
        app.router.add_post("/v1/files", self._upload)
        app.router.add_get("/v1/files/{file_id}/content", self._download)
        app.router.add_post(jobs, self._create_job)
        app.router.add_get(jobs, self._list_jobs)
        app.router.add_get(jobs + "/{job_id}", self._get_job)
        app.router.add_post(jobs + "/{job_id}/cancel", self._cancel_job)

    @staticmethod
    def job_view(job: dict) -> dict:
        return {k: v for k, v in job.items() if not k.startswith("_")}

    def keep_file(self, rec: dict, content: bytes) -> dict:
        with self._lock:
            self.files[rec["id"]] = {"meta": rec, "content": content}
        return rec

    def keep_job(self, job: dict) -> web.Response:
        with self._lock:
            self.jobs[job["id"]] = job
            self.jobs_created += 1
        return web.json_response(self.job_view(job))

    async def _download(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "files")) is not None:
            return denied
        rec = self.files.get(request.match_info["file_id"])
        if rec is None:
            return self.not_found(self.NOT_FOUND["file"])
        return web.Response(body=rec["content"], content_type="application/octet-stream")

    def requested_job(self, request: web.Request) -> tuple[dict | None, web.Response | None]:
        """The job a request names, or the response refusing the request (a fault or a 404)."""
        if (denied := self._admit(request, "batch")) is not None:
            return None, denied
        job = self.jobs.get(request.match_info["job_id"])
        return (job, None) if job is not None else (None, self.not_found(self.NOT_FOUND["job"]))

    async def _get_job(self, request: web.Request) -> web.Response:
        job, refused = self.requested_job(request)
        if refused is not None:
            return refused
        if job["status"] in self.PENDING:
            job["_polls"] += 1
            if job["_polls"] >= self.batch_polls:
                self._run_job(job)
            else:
                job["status"] = self.RUNNING
        return web.json_response(self.job_view(job))
