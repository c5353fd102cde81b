"""OpenAI-format request bodies, replies and batch files, and the OpenAI Batch API for OpenAIBackend.

The same JSONL serves three routes: OpenAI's Batch API, DashScope's compatible-mode batches (the
only chat batches DashScope offers), and vLLM's offline ``run-batch`` (survey/collect/offline_batch.py
writes the requests and imports the results). A request line is
``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body": {...}}``; a result line is
``{"custom_id", "response": {"status_code", "body"}, "error"}``.

Batch jobs: the JSONL is uploaded (``files.create(purpose="batch")``), the job created
(``batches.create(endpoint="/v1/chat/completions", completion_window="24h")``) and its id returned;
the engine stores that id before polling, so a resumed run polls the same job. The job's metadata
carries a hash of its content: a run killed between creating the job and storing its id finds the
job again (``batches.list``) instead of paying for it twice.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from survey.backends.base import BackendError, Query, Reply
from survey.backends.provider import (
    empty_reply,
    field,
    first_token_logprobs,
    http_error,
    redact,
    reply_format,
)

CHAT_URL = "/v1/chat/completions"
# OpenAI batch status -> the engine's terms (survey.data.store.TERMINAL_BATCH); others upper-cased
STATUS = {"completed": "SUCCESS", "failed": "FAILED", "expired": "EXPIRED", "cancelled": "CANCELLED"}
_DEAD_JOB = {"failed", "expired", "cancelled", "cancelling"}


def request_body(q: Query, default_model: str = "", *, thinking_off: bool = False,
                 json_mode: str = "json_schema") -> dict:
    """Chat request fields of one query. ``logprobs`` always comes with ``top_logprobs >= 1``: llama.cpp's
    server returns no log-probabilities otherwise. A stated-distribution question asks for JSON (``json_mode``,
    survey.backends.provider.reply_format). The study's ``params`` are added last and win."""
    body: dict = {"model": q.model_id or default_model, "messages": q.chat_messages,
                  "max_tokens": q.max_tokens, "temperature": q.temperature}
    if q.seed is not None:
        body["seed"] = q.provider_seed
    if q.logprobs or q.top_logprobs:
        body["logprobs"] = True
        body["top_logprobs"] = max(1, q.top_logprobs)
    if thinking_off:
        body["enable_thinking"] = False  # Qwen3 hybrid thinking (DashScope): must be off without streaming
    if (fmt := reply_format(q, json_mode)) is not None:
        body["response_format"] = fmt
    body.update(q.params)
    return body


def request_lines(queries: Iterable[Query], bodies: Iterable[dict]) -> bytes:
    """The batch input file: one request line per query, keyed by the query's custom_id."""
    return b"".join(json.dumps({"custom_id": q.custom_id, "method": "POST", "url": CHAT_URL, "body": b},
                               ensure_ascii=False).encode() + b"\n" for q, b in zip(queries, bodies, strict=True))


def to_reply(resp, secret: str | None = None, source: str = "the server") -> Reply:
    """Text of the first choice, usage, the reported model id and the first token's top log-probabilities,
    from the SDK's ChatCompletion or the same reply as parsed JSON (the aiohttp path). A reply withheld by
    a content filter (finish_reason "content_filter", no text) is a BackendError; so is a reply without any
    choice (a flaky proxy), which is retried: it holds no answer to store."""
    choices = field(resp, "choices")
    if not isinstance(choices, list) or not choices:
        raise empty_reply(source)
    choice = choices[0]
    message = field(choice, "message")
    text = field(message, "content")
    finish = field(choice, "finish_reason")
    if finish == "content_filter" and not text:
        raise BackendError(redact("the provider's content filter withheld the reply (finish_reason "
                                  "content_filter)", secret), retryable=False, code="content_filter")
    extra: dict = {"response_id": field(resp, "id")}
    if finish is not None:
        extra["finish_reason"] = str(finish)
    reasoning = field(message, "reasoning_content") or (field(message, "model_extra") or {}).get("reasoning_content")
    if reasoning:
        extra["reasoning"] = reasoning
    usage = field(resp, "usage")
    return Reply(text=text, model_id=field(resp, "model") or None, prompt_tokens=field(usage, "prompt_tokens"),
                 completion_tokens=field(usage, "completion_tokens"), logprobs=first_token_logprobs(choice),
                 extra=extra)


def parse_result_line(row: dict, secret: str | None = None) -> tuple[str | None, Reply | BackendError]:
    """One line of a batch output or error file (OpenAI, DashScope or vLLM run-batch) -> (custom_id, result)."""
    from openai.types.chat import ChatCompletion

    custom_id = row.get("custom_id")
    response = row.get("response") or {}
    status = response.get("status_code")
    body = response.get("body")
    if status == 200 and isinstance(body, dict) and not row.get("error"):
        try:
            return custom_id, to_reply(ChatCompletion.construct(**body), secret)
        except BackendError as err:
            return custom_id, err
        except Exception as exc:  # noqa: BLE001 - a garbled line fails alone
            return custom_id, BackendError(redact(f"unreadable batch result: {exc}", secret), retryable=True,
                                           code="bad_response")
    error = row.get("error") or {}
    code, message = error_fields(body if body else error)
    if isinstance(error, dict):
        code = code or error.get("code")
        message = message or str(error.get("message") or "")
    return custom_id, http_error(status, message or "batch line failed", code=code and str(code), secret=secret)


def error_fields(body) -> tuple[str | None, str]:
    """(code, message) from an OpenAI-style error body ({"error": {...}} or its inner object) or text."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            code = inner.get("code") or inner.get("type")
            message = inner.get("message") or inner.get("detail") or ""
            return (str(code) if code is not None else None), str(message)
        return None, str(inner)[:300]
    return None, str(body or "")[:300]


class OpenAIBatchMixin:
    """submit_batch / batch_status / fetch_batch of survey.backends.base.BatchBackend for OpenAIBackend
    (which provides client(), body(), map_error(), model_id, options and _key)."""

    async def submit_batch(self, queries: list[Query]) -> str:
        if not queries:
            raise ValueError("submit_batch needs at least one query")
        bodies = [self.body(q) for q in queries]
        model = bodies[0]["model"]
        if any(b["model"] != model for b in bodies):
            raise ValueError("an OpenAI batch job runs one model; split the queries by model_id")
        data = request_lines(queries, bodies)
        key = hashlib.sha256(model.encode() + b"\n" + data).hexdigest()[:32]
        try:
            if self.options.reuse_jobs and (job_id := await self._find_job(key)):
                return job_id
            client = self.client()
            up = await client.files.create(file=(f"survey-{key[:12]}.jsonl", data), purpose="batch")
            meta = {"survey_batch": key, "study": queries[0].study[:500], "model": queries[0].model[:500],
                    "requests": str(len(queries))}
            job = await client.batches.create(input_file_id=up.id, endpoint=CHAT_URL, completion_window="24h",
                                              metadata=meta)
        except Exception as exc:
            raise self.map_error(exc) from None
        return job.id

    async def _find_job(self, key: str) -> str | None:
        """A live or finished job with exactly this content among the latest 100 (best effort)."""
        try:
            page = await self.client().batches.list(limit=100)
        except Exception:  # noqa: BLE001 - listing is an optimisation; a failure means "none found"
            return None
        for job in getattr(page, "data", None) or []:
            meta = job.metadata if isinstance(job.metadata, dict) else {}
            if meta.get("survey_batch") == key and job.status not in _DEAD_JOB:
                return job.id
        return None

    async def batch_job(self, job_id: str):
        try:
            return await self.client().batches.retrieve(job_id)
        except Exception as exc:
            raise self.map_error(exc) from None

    async def batch_status(self, job_id: str) -> str:
        status = str((await self.batch_job(job_id)).status)
        return STATUS.get(status, status.upper())

    async def fetch_batch(self, job_id: str) -> dict[str, Reply | BackendError]:
        """Results of a finished job by custom_id (output and error files). Lines that never ran (an
        expired or cancelled job) are absent; a job that failed as a whole raises its errors."""
        job = await self.batch_job(job_id)
        files = [f for f in (job.output_file_id, getattr(job, "error_file_id", None)) if isinstance(f, str) and f]
        errors = getattr(getattr(job, "errors", None), "data", None) or []
        if not files and errors:
            reasons = "; ".join(f"{getattr(e, 'code', '')}: {getattr(e, 'message', '')}" for e in errors[:5])
            raise BackendError(redact(f"batch job {job_id} {job.status}: {reasons}", self._key), retryable=False,
                               code="batch_failed")
        results: dict[str, Reply | BackendError] = {}
        for file_id in files:
            try:
                data = (await self.client().files.content(file_id)).content
            except Exception as exc:
                raise self.map_error(exc) from None
            for line in data.splitlines():
                if line.strip():
                    custom_id, result = parse_result_line(json.loads(line), self._key)
                    if custom_id is not None:
                        results[custom_id] = result
        return results
