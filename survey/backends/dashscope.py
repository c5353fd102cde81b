"""Qwen and other DashScope models through the dashscope SDK's native API (AioGeneration).

Design choices:
- These SDK calls RETURN failures (status_code/code on the response) instead of raising; we turn
  them into BackendError: throttling, quota-per-minute and 5xx can be retried, InvalidParameter,
  DataInspectionFailed (content filter), Arrearage and InvalidApiKey cannot.
- Qwen3 hybrid-thinking models answer 400 to a non-streaming call unless thinking is off, and the
  paper disabled thinking, so we send enable_thinking=False unless the study's params say otherwise.
- The backend owns its aiohttp session (one per event loop) and closes it in aclose(). The SDK's
  process-wide shared session would also serve other DashScope users in the same loop (two Qwen
  models in one study, the embedding code), and closing it from one of them would break the others.
- The key goes to each call as ``api_key=``; we never set the global dashscope.api_key.
- The native API reports no model version, so Reply.model_id stays None; the request id is kept.
- The SDK (and aiohttp) are imported on use, not with this module, so reading
  DashScopeBackend.capabilities (study validation, pricing, reports) does not load them.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from pydantic import Field, field_validator

from survey.backends.base import BackendError, Capabilities, Query, Reply
from survey.backends.provider import (
    ProviderOptions,
    SessionPerLoop,
    aiohttp_session,
    api_key_from_env,
    connect_hint,
    empty_reply,
    http_error,
    http_url,
    merge_top_logprobs,
    parse_options,
    redact,
    reply_format,
    status_hint,
)

if TYPE_CHECKING:
    import aiohttp

# Codes that say "later" although some arrive with a 4xx status.
RETRYABLE_CODES = ("Throttling", "InternalError", "ServiceUnavailable", "RequestTimeOut", "SystemError")
# Codes that never improve with time, whatever the status.
FATAL_CODES = {"InvalidParameter", "DataInspectionFailed", "Arrearage", "InvalidApiKey", "AccessDenied",
               "ModelNotFound", "InvalidModel", "BadRequest", "Throttling.AllocationQuotaFreeTierOnly"}
# Hybrid-thinking families: thinking must be disabled for non-streaming calls.
THINKING_HYBRID = ("qwen3", "qwen-plus", "qwen-flash", "qwen-turbo")
# Approximate list prices on the international endpoint, non-thinking mode: USD per 1M tokens
# (input, output) by longest model-id prefix; a study's price_input/price_output override them.
LIST_PRICES = {
    "qwen3-8b": (0.18, 0.70),
    "qwen3-14b": (0.35, 1.40),
    "qwen3-32b": (0.70, 2.80),
    "qwen-turbo": (0.05, 0.20),
    "qwen-plus": (0.40, 1.20),
    "qwen-max": (1.60, 6.40),
}


class DashScopeOptions(ProviderOptions):
    api_key_env: str = "DASHSCOPE_API_KEY"
    base_url: str | None = Field(None, description="API root ending in /api/v1; default dashscope.base_http_api_url "
                                 "(international: https://dashscope-intl.aliyuncs.com/api/v1)")
    workspace: str | None = Field(None, description="DashScope workspace id, if your key needs one")

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return http_url(value)


class DashScopeBackend(SessionPerLoop):
    name = "dashscope"
    capabilities = Capabilities(paid=True, prices=LIST_PRICES, conversation=True)  # no chat batch API in the native SDK
    options_model = DashScopeOptions  # checked by a dry run without opening a session

    def __init__(self, model_id: str, **options):
        self.model_id = model_id
        self.options = parse_options(DashScopeOptions, "dashscope", options)
        self._key = api_key_from_env(self.options.api_key_env, "dashscope")

    def __repr__(self) -> str:  # never show the key
        return f"DashScopeBackend(model_id={self.model_id!r}, base_url={self.options.base_url!r})"

    def new_session(self) -> aiohttp.ClientSession:
        from dashscope.api_entities.aio_session import get_ssl_context

        return aiohttp_session(self.base, self.options.max_connections, ssl=get_ssl_context())

    def call_kwargs(self, q: Query) -> dict:
        model = q.model_id or self.model_id
        kwargs: dict = {"model": model, "messages": q.chat_messages,
                        "result_format": "message", "temperature": q.temperature, "max_tokens": q.max_tokens}
        if q.seed is not None:
            kwargs["seed"] = q.provider_seed
        if q.logprobs or q.top_logprobs:
            kwargs["logprobs"] = True
            if q.top_logprobs:
                kwargs["top_logprobs"] = q.top_logprobs
        if model.lower().startswith(THINKING_HYBRID):
            kwargs["enable_thinking"] = False
        if (fmt := reply_format(q, "json_object")) is not None:  # JSON mode: a schema only on some models
            kwargs["response_format"] = fmt
        kwargs.update(q.params)  # the study's params win, e.g. enable_thinking = true
        return kwargs

    @property
    def base(self) -> str:
        import dashscope

        return self.options.base_url or dashscope.base_http_api_url

    async def preflight(self) -> None:
        """One 1-token reply (about 15 tokens: a few millionths of a dollar). The native SDK lists
        models only through a blocking call on an endpoint it does not document for every region,
        while this route is the one the queries take, so a 404 here is a 404 for every query."""
        probe = Query(study="", model="", message="", perturbation="", persona="", replicate=0, system="",
                      user="Reply with Yes.", model_id=self.model_id, temperature=0.0, max_tokens=1)
        await self.complete(probe)

    async def complete(self, query: Query) -> Reply:
        import dashscope

        kwargs = self.call_kwargs(query)
        try:
            resp = await dashscope.AioGeneration.call(
                api_key=self._key, base_address=self.options.base_url or dashscope.base_http_api_url,
                request_timeout=self.options.timeout, session=self.session(), workspace=self.options.workspace,
                **kwargs)
        except Exception as exc:
            raise self.map_exception(exc) from None
        if resp.status_code != 200:
            raise self.map_status(resp.status_code, resp.code, resp.message, resp.headers)
        return to_reply(resp, self.base)

    def map_status(self, status: int, code: str | None, message: str | None, headers: dict | None) -> BackendError:
        """A returned (not raised) failure -> BackendError, deciding retry by code first, then status."""
        code = code or None
        retry_after = next((v for k, v in (headers or {}).items() if str(k).lower() == "retry-after"), None)
        not_found = (f"check model_id '{self.model_id}' and base_url" if self.base.rstrip("/").endswith("/api/v1")
                     else "base_url must end in /api/v1, e.g. https://dashscope-intl.aliyuncs.com/api/v1")
        err = http_error(status, message or "", code=code, retry_after=retry_after, secret=self._key,
                         request=f"POST {self.base.rstrip('/')}/services/aigc/text-generation/generation",
                         hint=status_hint(status, key_env=self.options.api_key_env, not_found=not_found))
        if code in FATAL_CODES:
            err.retryable = False
        elif code and code.startswith(RETRYABLE_CODES):
            err.retryable = True
        return err

    def map_exception(self, exc: BaseException) -> BackendError:
        """What the SDK raises: timeouts and connection errors (retry), garbled JSON (retry), misuse (no)."""
        import aiohttp

        if isinstance(exc, BackendError):
            return exc
        if isinstance(exc, (aiohttp.NonHttpUrlClientError, aiohttp.InvalidURL)):
            return BackendError(redact(f"malformed URL {self.base}: {exc}; base_url needs http:// or https://",
                                       self._key), retryable=False, code="bad_url")
        if isinstance(exc, aiohttp.ConnectionTimeoutError):  # nothing answered: the host is unreachable
            return BackendError(f"no connection to {self.base} within {self.options.timeout:g} s; "
                                f"{self._connect_hint}", retryable=True, code="connection")
        if isinstance(exc, TimeoutError):  # asyncio timeouts and aiohttp.ServerTimeoutError
            return BackendError(f"timeout after {self.options.timeout:g} s", retryable=True, code="timeout")
        if isinstance(exc, aiohttp.ContentTypeError) and "text/html" in str(exc):
            return BackendError(f"{self.base} answered with a web page (HTML), not an API reply: {self.url_hint}",
                                retryable=True, code="not_an_api")
        if isinstance(exc, (json.JSONDecodeError, aiohttp.ContentTypeError)):
            return BackendError(redact(f"malformed reply from {self.base}, not JSON: {exc}; {self.url_hint}",
                                       self._key), retryable=True, code="malformed_response")
        if isinstance(exc, aiohttp.ClientError):
            return BackendError(redact(f"connection error to {self.base}: {type(exc).__name__}: {exc}; "
                                       f"{self._connect_hint}", self._key), retryable=True, code="connection")
        return BackendError(redact(f"{type(exc).__name__}: {exc}", self._key), retryable=False, code="client_error")

    @property
    def _connect_hint(self) -> str:
        return connect_hint("base_url", self.base, bool(self.options.base_url))

    @property
    def url_hint(self) -> str:
        """What to check when the server answers, but not like the API."""
        return "check options.base_url: it must end in /api/v1, e.g. https://dashscope-intl.aliyuncs.com/api/v1"


def to_reply(resp, source: str = "DashScope") -> Reply:
    """The first choice's text (or the legacy output.text), usage and first-token log-probabilities. A reply with
    neither (a flaky proxy's empty choice list) holds no answer: a BackendError, retried."""
    output = resp.output or {}
    choices = output.get("choices") or []
    choice = choices[0] if choices else {}
    message = choice.get("message") or {}
    if not choices and output.get("text") is None:
        raise empty_reply(source)
    text = message.get("content") if message else output.get("text")
    if isinstance(text, list):  # multimodal-style content parts
        text = "".join(part.get("text", "") for part in text if isinstance(part, dict))
    extra: dict = {"request_id": resp.request_id}
    if choice.get("finish_reason"):
        extra["finish_reason"] = choice["finish_reason"]
    if message.get("reasoning_content"):
        extra["reasoning"] = message["reasoning_content"]
    usage = resp.usage or {}
    return Reply(text=text, model_id=None, prompt_tokens=usage.get("input_tokens"),
                 completion_tokens=usage.get("output_tokens"), logprobs=_first_token_logprobs(choice), extra=extra)


def _first_token_logprobs(choice: dict) -> dict[str, float] | None:
    content = ((choice.get("logprobs") or {}).get("content")) or []
    if not content:
        return None
    first = content[0]
    pairs = [(t.get("token"), t.get("logprob")) for t in first.get("top_logprobs") or []]
    if first.get("token") not in {t for t, _ in pairs}:
        pairs.append((first.get("token"), first.get("logprob")))
    return merge_top_logprobs(pairs)
