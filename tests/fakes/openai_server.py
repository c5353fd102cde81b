"""A fake OpenAI-compatible server on 127.0.0.1 that the real ``openai`` SDK talks to (``base_url=fake.base_url``).

Routes: POST /v1/chat/completions, GET /v1/models (the run's preflight; route "models"),
POST /v1/files (multipart), GET /v1/files/{id}/content, POST|GET /v1/batches, GET /v1/batches/{id},
POST /v1/batches/{id}/cancel. Batch jobs advance one status per poll (validating -> in_progress ->
completed after ``batch_polls`` polls) and answer their lines with the same respondent and fault rules
as chat (route "batch" for line faults); failed lines go to the error file as OpenAI writes them.

``logprobs_style`` imitates what servers send back for ``logprobs``:
  "openai": top_logprobs as asked, with ``bytes``;
  "vllm": like openai, but tokens it rules out come back as -9999.0 (vLLM clamps -inf);
  "llamacpp": nothing unless ``top_logprobs >= 1`` (llama-cpp-python's server), ``bytes`` null;
  "none": never any (servers without logprobs support).
Fault kinds are those of fakes.common plus "filtered": a 200 whose finish_reason is content_filter and
whose text is empty (OpenAI/Azure output filtering; "content_filter" is the 400 request refusal).

Run standalone (benchmarks): ``PYTHONPATH=tests python -m fakes.openai_server --latency 0.1``.
"""

from __future__ import annotations

import json
import time
import uuid

from aiohttp import web

from .batch import BatchFake
from .common import Cell, Rule, chat_cell, jsonl, serve_forever


def _error(status: int, message: str, etype: str, code: str | None) -> tuple[int, dict]:
    return status, {"error": {"message": message, "type": etype, "param": None, "code": code}}


_ERRORS = {  # kind -> (status, body), in OpenAI's error shape
    "rate_limit": _error(429, "Rate limit reached for requests", "requests", "rate_limit_exceeded"),
    "server_error": _error(500, "The server had an error while processing your request.", "server_error", None),
    "unavailable": _error(503, "The engine is currently overloaded, please try again later", "server_error",
                          "service_unavailable"),
    "content_filter": _error(400, "The response was filtered due to the prompt triggering the content "
                             "management policy.", "invalid_request_error", "content_filter"),
    "bad_key": _error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"),
    "invalid_param": _error(400, "Invalid value for 'temperature': must be <= 2.", "invalid_request_error",
                            "invalid_value"),
    "insufficient_quota": _error(429, "You exceeded your current quota, please check your plan and billing "
                                 "details.", "insufficient_quota", "insufficient_quota"),
    "not_found": _error(404, "The model does not exist or you do not have access to it.",
                        "invalid_request_error", "model_not_found"),
}


class OpenAIFake(BatchFake):
    """``reported`` maps requested model ids to the id the fake reports (default: "-latest" -> "-2025-08-07").
    ``served_models``: the ids GET /v1/models lists (default: none, so that no model name is checked)."""

    name = "openai"
    errors = _ERRORS
    PENDING, RUNNING = ("validating", "in_progress"), "in_progress"
    NOT_FOUND = {"file": "No such File object", "job": "No batch found"}

    def __init__(self, *, logprobs_style: str = "openai", reported: dict | None = None,
                 served_models: list[str] | None = None, **kw):
        super().__init__(**kw)
        if logprobs_style not in ("openai", "vllm", "llamacpp", "none"):
            raise ValueError(f"logprobs_style {logprobs_style!r}")
        self.logprobs_style = logprobs_style
        self.reported = reported or {}
        self.served_models = served_models or []  # none listed: the preflight checks no name
        self.bodies: list[dict] = []  # chat request bodies, in arrival order (tests read the wire)

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models", self._models)
        self.add_batch_routes(app, "/v1/batches")

    def reported_model(self, model: str) -> str:
        return self.reported.get(model, model.replace("-latest", "-2025-08-07"))

    # ---- chat ----
    @staticmethod
    def cell_of(body: dict) -> Cell:
        return chat_cell(body.get("model", ""), body, "seed")

    def _logprobs(self, body: dict, first: str, top_of) -> dict | None:
        k = body.get("top_logprobs") or 0
        if not body.get("logprobs") or self.logprobs_style == "none" or (self.logprobs_style == "llamacpp" and k < 1):
            return None
        cands = top_of(k)
        if self.logprobs_style == "vllm":  # a ruled-out token, clamped instead of -inf
            cands = (cands + [(" No", -9999.0)])[:max(k, 1)]
        with_bytes = self.logprobs_style != "llamacpp"
        top = [{"token": t, "logprob": lp, "bytes": list(t.encode()) if with_bytes else None} for t, lp in cands]
        chosen = next((e["logprob"] for e in top if e["token"] == first), -5.0)
        return {"content": [{"token": first, "logprob": chosen, "bytes": list(first.encode()) if with_bytes else None,
                             "top_logprobs": top if k else []}], "refusal": None}

    def completion(self, body: dict, cell: Cell, text: str | None, filtered: bool = False) -> dict:
        answer, top_of = self.answer(cell)
        text = answer if text is None else text
        finish = "content_filter" if filtered else ("length" if body.get("max_tokens") == 1 else "stop")
        choice: dict = {"index": 0, "finish_reason": finish,
                        "message": {"role": "assistant", "content": "" if filtered else text, "refusal": None},
                        "logprobs": None if filtered else self._logprobs(body, text.split()[0] if text.split()
                                                                         else text, top_of)}
        prompt_tokens = (len(cell[1]) + len(cell[2])) // 4 + 8
        return {"id": f"chatcmpl-{uuid.uuid4().hex[:16]}", "object": "chat.completion", "created": int(time.time()),
                "model": self.reported_model(body.get("model", "")), "system_fingerprint": "fp_fake",
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 1, "total_tokens": prompt_tokens + 1},
                "choices": [choice]}

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        if (denied := self._admit(request, "chat")) is not None:
            return denied
        body = await request.json()
        with self._lock:
            self.bodies.append(body)
        cell = self.cell_of(body)
        # "filtered" is a 200: take it here so chat_flow's fault path does not see it
        filtered = self.take_fault("chat-filtered", body, f"{cell[1]}\n{cell[2]}") is not None
        return await self.chat_flow(request, body, cell, lambda text: self.completion(body, cell, text, filtered),
                                    malformed=b'{"id": "chatcmpl-1", "choices": [{"message": ')

    def inject(self, kind: str, times: int | None = 1, match=None, route: str = "chat", **kw) -> Rule:
        if kind == "filtered":  # a reply, not an error response: its own route
            kind, route = "filtered", "chat-filtered" if route == "chat" else route
        return super().inject(kind, times, match, route, **kw)

    # ---- models ----
    async def _models(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "models")) is not None:
            return denied
        if (rule := self.take_fault("models", {}, "")) is not None:
            return self.error_response(rule)
        return web.json_response({"object": "list", "data": [
            {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.served_models]})

    # ---- files ----
    def _file_record(self, name: str, content: bytes, purpose: str) -> dict:
        fid = f"file-{uuid.uuid4().hex[:24]}"
        rec = {"id": fid, "object": "file", "bytes": len(content), "created_at": int(time.time()),
               "filename": name, "purpose": purpose, "status": "processed"}
        return self.keep_file(rec, content)

    async def _upload(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "files")) is not None:
            return denied
        form = await request.post()
        field = form["file"]
        return web.json_response(self._file_record(field.filename, field.file.read(), str(form.get("purpose"))))

    def not_found(self, message: str) -> web.Response:
        status, body = _error(404, message, "invalid_request_error", None)
        return web.json_response(body, status=status)

    # ---- batches ----

    async def _create_job(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "batch")) is not None:
            return denied
        body = await request.json()
        if (rule := self.take_fault("batch-create", body, "")) is not None:
            return self.error_response(rule)
        fid = body.get("input_file_id")
        if fid not in self.files:
            status, err = _error(404, f"input file {fid} not found", "invalid_request_error", None)
            return web.json_response(err, status=status)
        lines = [json.loads(x) for x in self.files[fid]["content"].splitlines() if x.strip()]
        job_id = f"batch_{next(self._ids)}{uuid.uuid4().hex[:12]}"
        job = {"id": job_id, "object": "batch", "endpoint": body["endpoint"], "errors": None,
               "input_file_id": fid, "completion_window": body.get("completion_window"), "status": "validating",
               "output_file_id": None, "error_file_id": None, "created_at": int(time.time()),
               "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
               "metadata": body.get("metadata"), "_lines": lines, "_polls": 0}
        return self.keep_job(job)

    async def _list_jobs(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "batch")) is not None:
            return denied
        data = [self.job_view(j) for j in reversed(list(self.jobs.values()))][: int(request.query.get("limit", 20))]
        return web.json_response({"object": "list", "data": data, "first_id": data[0]["id"] if data else None,
                                  "last_id": data[-1]["id"] if data else None, "has_more": False})

    async def _cancel_job(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "batch")) is not None:
            return denied
        job = self.jobs.get(request.match_info["job_id"])
        if job is not None and job["status"] in ("validating", "in_progress"):
            job["status"] = "cancelled"
        return web.json_response(self.job_view(job) if job else {})

    def _run_job(self, job: dict) -> None:
        """Answer every line; a faulted line goes to the error file with its HTTP status and body."""
        out, err = self.answer_lines(job["_lines"])
        if out:
            job["output_file_id"] = self._file_record(f"{job['id']}_output.jsonl", jsonl(out), "batch_output")["id"]
        if err:
            job["error_file_id"] = self._file_record(f"{job['id']}_error.jsonl", jsonl(err), "batch_output")["id"]
        job.update(status="completed", completed_at=int(time.time()),
                   request_counts={"total": len(job["_lines"]), "completed": len(out), "failed": len(err)})

    def run_batch_file(self, requests: bytes) -> bytes:
        """What vLLM's offline ``run-batch`` writes for a requests file: one result line per request,
        errors included, in the same file (no server needed; fault rules on route "batch" apply)."""
        out, err = self.answer_lines([json.loads(x) for x in requests.splitlines() if x.strip()])
        return jsonl(out + err)

    def answer_lines(self, lines: list[dict]) -> tuple[list[dict], list[dict]]:
        out, err = [], []
        for line in lines:
            body = line.get("body", {})
            cell = self.cell_of(body)
            self.count(cell, served=False)
            rule = self.take_fault("batch", body, f"{cell[1]}\n{cell[2]}")
            rid = f"batch_req_{uuid.uuid4().hex[:16]}"
            if rule is not None and rule.kind == "empty_choices":  # a 200 line that holds no answer
                out.append({"id": rid, "custom_id": line.get("custom_id"), "error": None, "response": {
                    "status_code": 200, "request_id": rid,
                    "body": self.without_choices(self.completion(body, cell, None))}})
                continue
            if rule is not None and rule.kind not in ("text", "filtered"):
                status, ebody = _ERRORS.get(rule.kind, _ERRORS["server_error"])
                err.append({"id": rid, "custom_id": line.get("custom_id"),
                            "response": {"status_code": status, "request_id": rid, "body": ebody}, "error": None})
                continue
            self.count(cell, served=True)
            text = rule.text if rule is not None and rule.kind == "text" else None
            reply = self.completion(body, cell, text, filtered=rule is not None and rule.kind == "filtered")
            out.append({"id": rid, "custom_id": line.get("custom_id"),
                        "response": {"status_code": 200, "request_id": rid, "body": reply}, "error": None})
        return out, err


def main() -> None:
    serve_forever(OpenAIFake, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
