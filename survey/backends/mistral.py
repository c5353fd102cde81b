"""Mistral through its official SDK (mistralai 3.x): chat completions and the batch API.

Design choices:
- SDK retries stay OFF: the engine owns backoff, so one engine attempt is exactly one HTTP request
  and the attempt count stored per row is true.
- One SDK client per event loop: the SDK's async HTTP client is bound to the loop it first ran on.
- The SDK's debug logger (MISTRAL_DEBUG) prints request headers, i.e. the API key; we always give
  the SDK a silent logger.
- Batch: the job carries a metadata key derived from its content, so a run killed between creating
  the job and storing its id finds the job again instead of paying for it twice.
- Speed: the SDK builds a throwaway pydantic model class (create_model) for every marshal and
  unmarshal call, several per request, which costs milliseconds of CPU per query. The class depends
  only on the type, so _cache_sdk_model_classes() builds each one once; likewise the type hints
  of request classes (see bench/engine.py for the effect).
- The SDK is imported when the first backend is built, not with this module, so reading
  MistralBackend.capabilities (study validation, pricing, reports) does not load it.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import typing
from typing import TYPE_CHECKING

from pydantic import Field, field_validator

from survey.backends.base import BackendError, Capabilities, Query, Reply
from survey.backends.mistral_replies import error_fields, to_reply
from survey.backends.provider import (
    ClientPerLoop,
    ProviderOptions,
    api_key_from_env,
    connect_hint,
    empty_reply,
    http_error,
    http_url,
    parse_options,
    pooled_http_client,
    redact,
    reply_format,
    request_line,
    status_hint,
    unreadable_reply,
)

if TYPE_CHECKING:
    import httpx2
    from mistralai.client import Mistral, models

# Approximate public list prices, USD per 1M tokens (input, output); a study's price_input/price_output
# override them. Model ids match by the longest prefix: "ministral-8b-2512" uses "ministral-8b".
LIST_PRICES = {
    "ministral-3b": (0.04, 0.04),
    "ministral-8b": (0.10, 0.10),
    "ministral-14b": (0.20, 0.20),
    "mistral-small": (0.10, 0.30),
    "mistral-medium": (0.40, 2.00),
    "mistral-large": (2.00, 6.00),
    "open-mistral-nemo": (0.15, 0.15),
}


def _cache_sdk_model_classes() -> None:
    try:  # an SDK release that moves these internals just runs unpatched (slower, same results)
        from mistralai.client.utils import forms, queryparams, serializers, url
    except ImportError:
        return

    create = getattr(serializers, "create_model", None)
    if create is None or getattr(create, "survey_cached", False):
        return
    cache: dict = {}

    def cached_create_model(name, /, **fields):
        body = fields.get("body")
        config = fields.get("__config__")
        key = (name, body[0] if isinstance(body, tuple) else None, tuple(sorted((config or {}).items())))
        if set(fields) != {"body", "__config__"} or len(cache) > 4096:
            return create(name, **fields)
        try:
            return cache[key]
        except TypeError:  # an unhashable type annotation: build as the SDK would
            return create(name, **fields)
        except KeyError:
            cls = cache[key] = create(name, **fields)
            return cls

    cached_create_model.survey_cached = True
    serializers.create_model = cached_create_model

    # Same story for typing.get_type_hints(cls), re-evaluated on every request for query/path/form params.
    hints = functools.lru_cache(maxsize=1024)(typing.get_type_hints)

    def cached_get_type_hints(obj, *args, **kw):
        if args or kw or not isinstance(obj, type):
            return typing.get_type_hints(obj, *args, **kw)
        return dict(hints(obj))

    for module in (forms, queryparams, url):
        module.get_type_hints = cached_get_type_hints

_DEAD_JOB = {"FAILED", "TIMEOUT_EXCEEDED", "CANCELLATION_REQUESTED", "CANCELLED"}
DEFAULT_SERVER = "https://api.mistral.ai"  # the SDK's default server_url


class MistralOptions(ProviderOptions):
    api_key_env: str = "MISTRAL_API_KEY"
    server_url: str | None = Field(None, description="API root without /v1, e.g. https://api.mistral.ai")
    batch_timeout_hours: int = Field(24, ge=1, le=168, description="batch jobs expire after this")
    reuse_jobs: bool = Field(True, description="resubmitting identical batch content reuses the existing job")

    @field_validator("server_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return http_url(value)


def _chat_params() -> frozenset[str]:
    from mistralai.client.chat import Chat

    return frozenset(inspect.signature(Chat.complete_async).parameters) - {"self", "retries", "server_url",
                                                                              "timeout_ms", "http_headers"}


class MistralBackend(ClientPerLoop):
    name = "mistral"
    capabilities = Capabilities(paid=True, batch=True, prices=LIST_PRICES, batch_discount=0.5, conversation=True)
    options_model = MistralOptions  # checked by a dry run without creating the SDK client
    allowed_params = staticmethod(_chat_params)

    def __init__(self, model_id: str, **options):
        _cache_sdk_model_classes()  # imports the SDK; runs once
        self.model_id = model_id
        self.options = parse_options(MistralOptions, "mistral", options)
        self._key = api_key_from_env(self.options.api_key_env, "mistral")
        self._allowed = _chat_params()

    def __repr__(self) -> str:  # never show the key
        return f"MistralBackend(model_id={self.model_id!r}, server_url={self.options.server_url!r})"

    # ---- client per event loop ----
    def new_client(self) -> tuple[httpx2.AsyncClient, Mistral]:
        from mistralai.client import Mistral
        from mistralai.client.utils.logger import NoOpLogger

        http = pooled_http_client(self.options.max_connections, follow_redirects=True)
        return http, Mistral(api_key=self._key, server_url=self.options.server_url, async_client=http,
                             timeout_ms=int(self.options.timeout * 1000), debug_logger=NoOpLogger())

    async def preflight(self) -> None:
        """Retrieve the model's card (GET /v1/models/{id}): free, and it needs the server, the key and
        the model id to be right."""
        try:
            await self.client().models.retrieve_async(model_id=self.model_id)
        except Exception as exc:
            raise self.map_error(exc) from None

    # ---- requests ----
    def _messages(self, q: Query) -> list[dict]:
        return q.chat_messages

    def _params(self, q: Query) -> dict:
        """Request fields of one query (the same for a chat call and a batch line)."""
        unknown = set(q.params) - self._allowed
        if unknown:
            raise BackendError(f"unknown Mistral chat parameter(s) {sorted(unknown)} in the model's params",
                               retryable=False, code="invalid_parameter")
        body: dict = {"messages": self._messages(q), "max_tokens": q.max_tokens, "temperature": q.temperature}
        if q.seed is not None:
            body["random_seed"] = q.provider_seed
        if q.logprobs or q.top_logprobs:
            body["logprobs"] = True
            if q.top_logprobs:
                body["top_logprobs"] = q.top_logprobs
        if (fmt := reply_format(q)) is not None:  # custom structured output, on every Mistral model
            body["response_format"] = fmt
        body.update(q.params)
        return body

    async def complete(self, query: Query) -> Reply:
        from mistralai.client import models

        params = self._params(query)
        # typed messages: the SDK then skips re-validating plain dicts into its message union
        typed = {"system": models.SystemMessage, "user": models.UserMessage, "assistant": models.AssistantMessage}
        params["messages"] = [typed[m["role"]](content=m["content"]) for m in params["messages"]]
        try:
            resp = await self.client().chat.complete_async(model=query.model_id or self.model_id, **params)
        except Exception as exc:
            raise self.map_error(exc) from None
        return to_reply(resp, self.server)

    def map_error(self, exc: BaseException) -> BackendError:
        """SDK exceptions -> BackendError. Retryable: 429, 5xx, timeouts, dropped connections, garbled JSON."""
        import httpx2
        from mistralai.client import errors

        if isinstance(exc, BackendError):
            return exc
        if isinstance(exc, errors.ResponseValidationError):
            return self._unreadable_shape(exc)
        if isinstance(exc, errors.MistralError) and 200 <= exc.status_code < 300:  # a 2xx the SDK cannot read
            return unreadable_reply(request_line(exc.raw_response) or self.server, exc.body, self.url_hint(), self._key)
        if isinstance(exc, errors.MistralError):  # SDKError, HTTPValidationError (422)
            code, message = error_fields(exc.body)
            if isinstance(exc, errors.HTTPValidationError):
                code = code or "invalid_parameter"
            return http_error(exc.status_code, message, code=code, retry_after=exc.headers.get("retry-after"),
                              secret=self._key, request=request_line(exc.raw_response),
                              hint=status_hint(exc.status_code, key_env=self.options.api_key_env,
                                               not_found=self.not_found_hint()))
        if isinstance(exc, httpx2.UnsupportedProtocol):  # the options check makes this rare: no retry helps
            return BackendError(redact(f"malformed URL {self.server}: {exc}; server_url needs http:// or "
                                       "https://", self._key), retryable=False, code="bad_url")
        if isinstance(exc, httpx2.ConnectTimeout):  # nothing answered: the host is unreachable
            return BackendError(f"no connection to {self.server} within {self.options.timeout:g} s; "
                                f"{self._connect_hint}", retryable=True, code="connection")
        if isinstance(exc, httpx2.TimeoutException):
            return BackendError(f"timeout after {self.options.timeout:g} s ({type(exc).__name__})",
                                retryable=True, code="timeout")
        if isinstance(exc, (httpx2.TransportError, errors.NoResponseError)):
            return BackendError(redact(f"connection error to {self.server}: {type(exc).__name__}: {exc}; "
                                       f"{self._connect_hint}", self._key), retryable=True, code="connection")
        return BackendError(redact(f"{type(exc).__name__}: {exc}", self._key), retryable=False, code="client_error")

    def _unreadable_shape(self, exc) -> BackendError:
        """A reply the SDK cannot read as a chat completion, retried as the openai backend's paths retry it:
        broken JSON or JSON that is no object is a malformed reply, an object without choices an empty one
        (a flaky proxy), any other shape a bad response; the engine's breaker stops a model that gets
        nothing else. A 4xx of an unreadable shape stays an error that no retry mends."""
        try:
            data = json.loads(exc.body or "")
        except ValueError:
            data = None
            garbled = True
        else:
            garbled = not isinstance(data, dict)
        if garbled:
            what, code = "malformed JSON from the provider (not a JSON object)", "malformed_response"
        elif not data.get("choices"):
            return empty_reply(self.server)
        else:
            what, code = "unexpected response shape", "bad_response"
        cause = " ".join(" ".join(line.split()) for line in str(exc.cause).splitlines()
                         if "errors.pydantic.dev" not in line)[:300]
        err = http_error(exc.status_code, f"{what}: {cause}", code=code, secret=self._key, hint=self.url_hint())
        err.retryable = 200 <= exc.status_code < 300 or exc.status_code >= 500
        return err

    @property
    def server(self) -> str:
        return self.options.server_url or DEFAULT_SERVER

    @property
    def _connect_hint(self) -> str:
        return connect_hint("server_url", self.server, bool(self.options.server_url))

    def url_hint(self) -> str:
        """What to check when the server answers, but not like the API."""
        return f"check options.server_url: it must be the API root, e.g. {DEFAULT_SERVER} (the SDK adds /v1)"

    def not_found_hint(self) -> str:
        if self.server.endswith("/v1"):
            return (f"drop the /v1 suffix from server_url: the SDK adds it "
                    f"(server_url = \"{self.server.removesuffix('/v1')}\")")
        return (f"check model_id '{self.model_id}' and that server_url is the API root, e.g. {DEFAULT_SERVER} "
                "(the SDK adds /v1)")

    # ---- batch API ----
    async def submit_batch(self, queries: list[Query]) -> str:
        if not queries:
            raise ValueError("submit_batch needs at least one query")
        model = queries[0].model_id or self.model_id
        if any((q.model_id or self.model_id) != model for q in queries):
            raise ValueError("a Mistral batch job runs one model; split the queries by model_id")
        data = b"".join(json.dumps({"custom_id": q.custom_id, "body": self._params(q)}).encode() + b"\n"
                        for q in queries)
        key = hashlib.sha256(model.encode() + b"\n" + data).hexdigest()[:32]
        try:
            if self.options.reuse_jobs and (job_id := await self._find_job(key)):
                return job_id
            client = self.client()
            up = await client.files.upload_async(file={"file_name": f"survey-{key[:12]}.jsonl", "content": data},
                                                 purpose="batch")
            meta = {"survey_batch": key, "study": queries[0].study, "model": queries[0].model,
                    "requests": str(len(queries))}
            job = await client.batch.jobs.create_async(endpoint="/v1/chat/completions", input_files=[up.id],
                                                       model=model, metadata=meta,
                                                       timeout_hours=self.options.batch_timeout_hours)
        except Exception as exc:
            raise self.map_error(exc) from None
        return job.id

    async def _find_job(self, key: str) -> str | None:
        """A live or finished job with exactly this content, if one exists (the listing is best effort)."""
        try:
            found = await self.client().batch.jobs.list_async(metadata={"survey_batch": key}, page_size=100)
        except Exception:
            return None
        for job in found.data or []:
            meta = job.metadata if isinstance(job.metadata, dict) else {}
            if meta.get("survey_batch") == key and job.status not in _DEAD_JOB:
                return job.id
        return None

    async def batch_job(self, job_id: str) -> models.BatchJob:
        try:
            return await self.client().batch.jobs.get_async(job_id=job_id)
        except Exception as exc:
            raise self.map_error(exc) from None

    async def batch_status(self, job_id: str) -> str:
        return str((await self.batch_job(job_id)).status)

    async def fetch_batch(self, job_id: str) -> dict[str, Reply | BackendError]:
        """Results of a finished job by custom_id. Lines that never ran (expired/cancelled job) are absent."""
        job = await self.batch_job(job_id)
        results: dict[str, Reply | BackendError] = {}
        for file_id in (job.output_file, job.error_file):
            if not isinstance(file_id, str) or not file_id:
                continue
            try:
                res = await self.client().files.download_async(file_id=file_id)
                data = await res.aread()
                await res.aclose()
            except Exception as exc:
                raise self.map_error(exc) from None
            for line in data.splitlines():
                if line.strip():
                    custom_id, result = self._batch_line(json.loads(line))
                    if custom_id is not None:
                        results[custom_id] = result
        return results

    def _batch_line(self, row: dict) -> tuple[str | None, Reply | BackendError]:
        from mistralai.client import models

        response = row.get("response") or {}
        status = response.get("status_code")
        if status == 200 and not row.get("error"):
            try:
                return row.get("custom_id"), to_reply(models.ChatCompletionResponse.model_validate(response["body"]),
                                                      self.server)
            except BackendError as err:
                return row.get("custom_id"), err
            except Exception as exc:
                return row.get("custom_id"), BackendError(redact(f"unreadable batch result: {exc}", self._key),
                                                          retryable=True, code="bad_response")
        error = row.get("error") or {}
        code, message = error_fields(json.dumps(response.get("body") or error))
        if isinstance(error, dict) and not message:
            message = str(error.get("message", ""))
        return row.get("custom_id"), http_error(status, message or "batch line failed", code=code, secret=self._key)
