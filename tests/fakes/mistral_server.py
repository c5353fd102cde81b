"""A fake Mistral API on 127.0.0.1 that the real mistralai SDK talks to (``server_url=fake.url``).

Routes: POST /v1/chat/completions, GET /v1/models/{id} (the run's preflight; route "models": a model id in
``unknown_models`` gets Mistral's 404), POST /v1/embeddings, POST /v1/files (multipart),
GET /v1/files/{id}/content, POST|GET /v1/batch/jobs, GET /v1/batch/jobs/{id}, POST .../cancel.
Batch jobs advance one status per poll (QUEUED -> RUNNING -> SUCCESS after ``batch_polls`` polls) and
answer their lines with the same respondent and fault rules as chat (route "batch" for line faults).

Run standalone (benchmarks): ``PYTHONPATH=tests python -m fakes.mistral_server --latency 0.1``.
"""

from __future__ import annotations

import json
import time
import uuid

from aiohttp import web

from .batch import BatchFake
from .common import (
    Cell,
    chat_cell,
    fake_embedding,
    jsonl,
    serve_forever,
    token_id,
)

_ERRORS = {  # kind -> (status, body); bodies follow the shapes Mistral's API returns
    "rate_limit": (429, {"object": "error", "message": "Requests rate limit exceeded", "type": "rate_limited",
                         "param": None, "code": "1300"}),
    "server_error": (500, {"object": "error", "message": "Internal server error", "type": "internal_server_error",
                           "param": None, "code": "3000"}),
    "unavailable": (503, {"object": "error", "message": "Service unavailable", "type": "service_unavailable",
                          "param": None, "code": "3001"}),
    "content_filter": (400, {"object": "error", "message": "Request blocked by content moderation",
                             "type": "invalid_request_message_moderation", "param": None, "code": "3051"}),
    "bad_key": (401, {"message": "Unauthorized", "request_id": "fake"}),
    "payment_required": (402, {"object": "error", "message": "You have insufficient credits to process this request.",
                               "type": "billing_error", "param": None, "code": "3402"}),
    "invalid_param": (422, {"detail": [{"type": "less_than_equal", "loc": ["body", "temperature"],
                                        "msg": "Input should be less than or equal to 1.5", "input": 3}]}),
}


class MistralFake(BatchFake):
    """``reasoning=True`` answers with content chunks (thinking + text) like Magistral models.
    ``pinned`` maps requested model ids to the id the fake reports (default: '-latest' -> '-2509')."""

    name = "mistral"
    errors = _ERRORS
    PENDING, RUNNING = ("QUEUED", "RUNNING"), "RUNNING"
    NOT_FOUND = {"file": "File not found", "job": "Batch job not found"}

    def __init__(self, *, reasoning: bool = False, embed_dim: int = 1024, pinned: dict[str, str] | None = None,
                 **kw):
        super().__init__(**kw)
        self.reasoning = reasoning
        self.embed_dim = embed_dim
        self.pinned = pinned or {}
        self.unknown_models: set[str] = set()
        self.bodies: list[dict] = []  # chat request bodies, in arrival order (tests read the wire)

    def add_routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_get("/v1/models/{model_id}", self._model_card)
        app.router.add_post("/v1/embeddings", self._embeddings)
        self.add_batch_routes(app, "/v1/batch/jobs")

    def reported_model(self, model: str) -> str:
        return self.pinned.get(model, model.replace("-latest", "-2509"))

    # ---- chat ----
    @staticmethod
    def cell_of(model: str, body: dict) -> Cell:
        return chat_cell(model, body, "random_seed")

    def completion(self, model: str, body: dict, cell: Cell, text: str | None) -> dict:
        answer, top_of = self.answer(cell)
        text = answer if text is None else text
        choice: dict = {"index": 0, "finish_reason": "length" if body.get("max_tokens") == 1 else "stop",
                        "message": {"role": "assistant", "tool_calls": None, "content": text}}
        if self.reasoning:
            choice["message"]["content"] = [
                {"type": "thinking", "thinking": [{"type": "text", "text": "The persona weighs the offer."}]},
                {"type": "text", "text": text}]
        if body.get("logprobs"):
            first = text.split()[0] if text.split() else text
            top = [{"token": t, "logprob": lp, "bytes": list(t.encode()), "token_id": token_id(t)}
                   for t, lp in top_of(body.get("top_logprobs") or 0)]
            chosen = next((e["logprob"] for e in top if e["token"] == first), -5.0)
            choice["logprobs"] = {"content": [{"token": first, "logprob": chosen, "bytes": list(first.encode()),
                                               "token_id": token_id(first),
                                               "top_logprobs": top if body.get("top_logprobs") else None}]}
        prompt_tokens = (len(cell[1]) + len(cell[2])) // 4 + 8
        return {"id": f"cmpl-{uuid.uuid4().hex[:16]}", "object": "chat.completion",
                "model": self.reported_model(model), "created": int(time.time()),
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 1, "total_tokens": prompt_tokens + 1},
                "choices": [choice]}

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        if (denied := self._admit(request, "chat")) is not None:
            return denied
        body = await request.json()
        with self._lock:
            self.bodies.append(body)
        model = body.get("model", "")
        cell = self.cell_of(model, body)
        return await self.chat_flow(request, body, cell, lambda text: self.completion(model, body, cell, text),
                                    malformed=b'{"id": "cmpl-1", "choices": [{"message": ')

    # ---- models ----
    async def _model_card(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "models")) is not None:
            return denied
        model = request.match_info["model_id"]
        if (rule := self.take_fault("models", {"model": model}, model)) is not None:
            return self.error_response(rule)
        if model in self.unknown_models:
            return web.json_response({"detail": f"Model {model} not found"}, status=404)
        return web.json_response({
            "id": model, "object": "model", "created": int(time.time()), "owned_by": "mistralai",
            "type": "base", "capabilities": {"completion_chat": True, "function_calling": True}})

    # ---- embeddings ----
    async def _embeddings(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "embeddings")) is not None:
            return denied
        body = await request.json()
        inputs = body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else inputs
        if (rule := self.take_fault("embeddings", body, "\n".join(inputs))) is not None:
            return self.error_response(rule)
        dim = body.get("output_dimension") or self.embed_dim
        tokens = sum(len(t) // 4 + 1 for t in inputs)
        return web.json_response({
            "id": f"emb-{uuid.uuid4().hex[:12]}", "object": "list", "model": body.get("model", ""),
            "usage": {"prompt_tokens": tokens, "completion_tokens": 0, "total_tokens": tokens},
            "data": [{"object": "embedding", "embedding": fake_embedding(t, dim), "index": i}
                     for i, t in enumerate(inputs)]})

    # ---- files ----
    def _file_record(self, name: str, content: bytes, purpose: str, sample_type: str, source: str) -> dict:
        fid = str(uuid.uuid4())
        rec = {"id": fid, "object": "file", "bytes": len(content), "created_at": int(time.time()),
               "filename": name, "purpose": purpose, "sample_type": sample_type, "source": source,
               "num_lines": content.count(b"\n"), "mimetype": "application/jsonl"}
        return self.keep_file(rec, content)

    async def _upload(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "files")) is not None:
            return denied
        form = await request.post()
        field = form["file"]
        content = field.file.read()
        rec = self._file_record(field.filename, content, str(form.get("purpose", "batch")), "batch_request", "upload")
        return web.json_response(rec)

    def not_found(self, message: str) -> web.Response:
        return web.json_response({"detail": message}, status=404)

    # ---- batch jobs ----

    async def _create_job(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "batch")) is not None:
            return denied
        body = await request.json()
        lines = []
        for fid in body.get("input_files", []):
            if fid not in self.files:
                return web.json_response({"detail": f"input file {fid} not found"}, status=404)
            lines += [json.loads(x) for x in self.files[fid]["content"].splitlines() if x.strip()]
        job_id = f"job-{next(self._ids)}-{uuid.uuid4().hex[:8]}"
        job = {"id": job_id, "object": "batch", "input_files": body.get("input_files", []),
               "endpoint": body["endpoint"], "model": body.get("model"), "metadata": body.get("metadata"),
               "errors": [], "status": "QUEUED", "created_at": int(time.time()), "total_requests": len(lines),
               "completed_requests": 0, "succeeded_requests": 0, "failed_requests": 0,
               "output_file": None, "error_file": None, "_lines": lines, "_polls": 0}
        return self.keep_job(job)

    async def _list_jobs(self, request: web.Request) -> web.Response:
        if (denied := self._admit(request, "batch")) is not None:
            return denied
        known = {"page", "page_size", "model", "agent_id", "created_after", "created_by_me", "status", "order_by"}
        meta = {k: v for k, v in request.query.items() if k not in known}
        statuses = request.query.getall("status", [])
        found = [self.job_view(j) for j in self.jobs.values()
                 if all((j.get("metadata") or {}).get(k) == v for k, v in meta.items())
                 and (not statuses or j["status"] in statuses)]
        return web.json_response({"object": "list", "total": len(found), "data": found})

    async def _cancel_job(self, request: web.Request) -> web.Response:
        job, refused = self.requested_job(request)
        if refused is not None:
            return refused
        if job["status"] in self.PENDING:
            job["status"] = "CANCELLED"
        return web.json_response(self.job_view(job))

    def _run_job(self, job: dict) -> None:
        """Answer every line; per-line faults go to the error file as Mistral reports them."""
        out, err = [], []
        for line in job["_lines"]:
            body = line.get("body", {})
            cell = self.cell_of(job["model"] or "", body)
            self.count(cell, served=False)
            rule = self.take_fault("batch", body, f"{cell[1]}\n{cell[2]}")
            rid = f"batch-{uuid.uuid4().hex[:12]}"
            if rule is not None and rule.kind == "empty_choices":  # a 200 line that holds no answer
                body_out = self.without_choices(self.completion(job["model"] or "", body, cell, None))
                out.append({"id": rid, "custom_id": line.get("custom_id"),
                            "response": {"status_code": 200, "body": body_out}, "error": None})
                continue
            if rule is not None and rule.kind != "text":
                status, ebody = _ERRORS.get(rule.kind, _ERRORS["server_error"])
                err.append({"id": rid, "custom_id": line.get("custom_id"),
                            "response": {"status_code": status, "body": ebody},
                            "error": {"message": json.dumps(ebody), "code": status}})
                continue
            self.count(cell, served=True)
            text = rule.text if rule is not None else None
            out.append({"id": rid, "custom_id": line.get("custom_id"),
                        "response": {"status_code": 200, "body": self.completion(job["model"] or "", body, cell, text)},
                        "error": None})
        now = int(time.time())
        if out:
            job["output_file"] = self._file_record(f"{job['id']}.jsonl", jsonl(out), "batch", "batch_result",
                                                   "mistral")["id"]
        if err:
            job["error_file"] = self._file_record(f"{job['id']}_error.jsonl", jsonl(err), "batch", "batch_error",
                                                  "mistral")["id"]
        job.update(status="SUCCESS", completed_requests=len(out) + len(err), succeeded_requests=len(out),
                   failed_requests=len(err), started_at=job["created_at"], completed_at=now)


def main() -> None:
    serve_forever(MistralFake, __doc__.splitlines()[0])


if __name__ == "__main__":
    main()
