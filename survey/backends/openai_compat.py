"""Any OpenAI-compatible chat endpoint through the official ``openai`` SDK (3.x): OpenAI itself, vLLM,
Ollama, llama.cpp's server, DashScope's compatible mode, SGLang and the many hosted providers that
speak the same protocol. Chat completions here; the Batch API in survey/backends/openai_batch.py.

Design choices:
- ``preset`` names the kind of server: it gives the default ``base_url`` (which includes ``/v1``, as
  the SDK expects), the default key variable and what the server costs. Self-hosted presets (vllm,
  ollama, llamacpp) and any loopback URL are free and need no key (a placeholder is sent when the
  variable is unset); other servers are paid and ask before a run sends anything.
- SDK retries are off (``max_retries=0``): the engine owns backoff, so one engine attempt is one
  HTTP request. One client per event loop (its httpx2 pool is bound to the loop it first ran on).
- Log-probabilities differ by server: vLLM reports impossible tokens as -9999 (exp(-9999) is 0, so
  they add nothing), llama.cpp's server returns none unless ``top_logprobs >= 1`` (we always send at
  least 1 with ``logprobs``), and some servers never return any: then the row has no exact score and
  the backend says so once on stderr. The engine turns the first token's top log-probabilities into
  the response type's exact score (P(Yes | Yes or No)), summing token variants (" Yes", "yes").
- The model's ``params`` go into the request body as given, also fields the SDK does not type (vLLM's
  ``top_k``, DashScope's ``enable_thinking``). Qwen3 on DashScope gets ``enable_thinking=false``.
- The SDK is imported when the first backend is built, so reading capabilities loads nothing.
"""

from __future__ import annotations

import ipaddress
import json
import sys
import urllib.parse
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator

from survey.backends.base import BackendError, Capabilities, Query, Reply
from survey.backends.dashscope import LIST_PRICES as DASHSCOPE_PRICES
from survey.backends.dashscope import THINKING_HYBRID
from survey.backends.openai_batch import OpenAIBatchMixin, error_fields, request_body, to_reply
from survey.backends.provider import (
    ClientPerLoop,
    ProviderOptions,
    api_key_from_env,
    connect_hint,
    http_error,
    http_url,
    parse_options,
    pooled_http_client,
    redact,
    request_line,
    status_hint,
    unreadable_reply,
)

if TYPE_CHECKING:
    import httpx2
    from openai import AsyncOpenAI

Preset = Literal["openai", "dashscope-compatible", "vllm", "ollama", "llamacpp"]
# preset -> (default base_url, default key variable)
PRESETS: dict[str, tuple[str, str]] = {
    "openai": ("https://api.openai.com/v1", "OPENAI_API_KEY"),
    "dashscope-compatible": ("https://dashscope.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY"),
    "vllm": ("http://127.0.0.1:8000/v1", "OPENAI_API_KEY"),
    "ollama": ("http://127.0.0.1:11434/v1", "OPENAI_API_KEY"),
    "llamacpp": ("http://127.0.0.1:8080/v1", "OPENAI_API_KEY"),
}
SELF_HOSTED = frozenset({"vllm", "ollama", "llamacpp"})  # free, no key needed, no Batch API
PLACEHOLDER_KEY = "no-key-needed"  # what a keyless server gets in the Authorization header
# Approximate OpenAI list prices, USD per 1M tokens (input, output), by longest model-id prefix; a
# study's price_input/price_output override them. The Batch API bills half.
OPENAI_PRICES = {
    "gpt-3.5-turbo": (0.50, 1.50),
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5-nano": (0.05, 0.40),
}
_PAID = Capabilities(paid=True, batch=True, prices=OPENAI_PRICES, batch_discount=0.5, conversation=True)
_DASHSCOPE = Capabilities(paid=True, batch=True, prices=DASHSCOPE_PRICES, batch_discount=0.5,
                          conversation=True)
_SELF_HOSTED = Capabilities(paid=False, batch=False, conversation=True)
_LOOPBACK = Capabilities(paid=False, batch=True, conversation=True)  # a local server that may implement the Batch API


class OpenAIOptions(ProviderOptions):
    api_key_env: str | None = Field(None, description="variable holding the key; default OPENAI_API_KEY "
                                    "(DASHSCOPE_API_KEY for the dashscope-compatible preset)")
    preset: Preset = Field("openai", description="kind of server: default base_url, key and price")
    base_url: str | None = Field(None, description="API root including /v1, e.g. http://127.0.0.1:8000/v1")
    reuse_jobs: bool = Field(True, description="resubmitting identical batch content reuses the existing job")
    any_model_name: bool = Field(False, description="the server answers any model name with the one model it "
                                 "serves (llama.cpp without --model_alias): skip the check that model_id is listed")
    http: Literal["aiohttp", "sdk"] = Field("aiohttp", description="how chat requests are sent: aiohttp (lean, "
                                            "a fraction of the SDK's CPU per query) or the official openai SDK")

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return http_url(value)

    @property
    def url(self) -> str:
        return self.base_url or PRESETS[self.preset][0]

    @property
    def key_env(self) -> str:
        return self.api_key_env or PRESETS[self.preset][1]

    @property
    def keyless(self) -> bool:
        """A self-hosted or loopback server: it ignores the key, so a missing one is no error."""
        return self.preset in SELF_HOSTED or is_loopback(self.url)


def is_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def thinking_off(preset: str, model_id: str) -> bool:
    """Qwen3 hybrid-thinking models on DashScope answer 400 to a non-streaming call with thinking on."""
    return preset == "dashscope-compatible" and model_id.lower().startswith(THINKING_HYBRID)


class OpenAIBackend(OpenAIBatchMixin, ClientPerLoop):
    name = "openai"
    # What a study's model entry gets depends on its options: see capabilities_for.
    capabilities = _PAID
    options_model = OpenAIOptions  # checked by a dry run without creating the SDK client
    # no allowed_params: servers take different extra fields (vLLM's top_k, DashScope's enable_thinking)

    @classmethod
    def capabilities_for(cls, options: dict) -> Capabilities:
        """Self-hosted presets are free without a Batch API; a loopback URL is free; DashScope's
        compatible mode has DashScope's prices; everything else is OpenAI-priced. Options that do not
        parse fall back to the cautious class declaration (creating the backend reports them)."""
        try:
            opts = OpenAIOptions(**options)
        except ValueError:
            return cls.capabilities
        if opts.preset in SELF_HOSTED:
            return _SELF_HOSTED
        if is_loopback(opts.url):
            return _LOOPBACK
        return _DASHSCOPE if opts.preset == "dashscope-compatible" else _PAID

    def __init__(self, model_id: str, **options):
        self.model_id = model_id
        self.options = parse_options(OpenAIOptions, "openai", options)
        self.capabilities = self.capabilities_for(options)  # engine checks read the instance
        self.base_url = self.options.url
        try:
            self._key = api_key_from_env(self.options.key_env, "openai")
        except Exception:
            if not self.options.keyless:
                raise
            self._key = PLACEHOLDER_KEY
        self._said_no_logprobs = False
        self._lean = None
        if self.options.http == "aiohttp":
            from survey.backends.openai_http import AiohttpChat

            self._lean = AiohttpChat(self.base_url, self._key, timeout=self.options.timeout,
                                     max_connections=self.options.max_connections)

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIBackend(model_id={self.model_id!r}, base_url={self.base_url!r})"

    # ---- client per event loop ----
    def new_client(self) -> tuple[httpx2.AsyncClient, AsyncOpenAI]:
        from openai import AsyncOpenAI

        http = pooled_http_client(self.options.max_connections)
        return http, AsyncOpenAI(api_key=self._key, base_url=self.base_url, max_retries=0,
                                 timeout=self.options.timeout, http_client=http)

    # ---- requests ----
    def body(self, q: Query) -> dict:
        """The request body of one query (the same for a chat call and a batch line)."""
        # DashScope's compatible mode takes a JSON schema on some models only; JSON mode on most
        json_mode = "json_object" if self.options.preset == "dashscope-compatible" else "json_schema"
        return request_body(q, self.model_id, thinking_off=self._thinking_off(q), json_mode=json_mode)

    def _thinking_off(self, q: Query) -> bool:
        return thinking_off(self.options.preset, q.model_id or self.model_id)

    async def aclose(self) -> None:
        if self._lean is not None:
            await self._lean.aclose()
        await super().aclose()

    async def complete(self, query: Query) -> Reply:
        resp = await (self._post_lean(query) if self._lean is not None else self._post_sdk(query))
        reply = to_reply(resp, self._key, self.base_url)
        if query.logprobs and reply.logprobs is None and not self._said_no_logprobs:
            self._said_no_logprobs = True
            print(f"warning: {self.base_url} sent no log-probabilities for model '{self.model_id}' although "
                  "they were asked for: its rows get no exact score (p_yes); the answers are kept",
                  file=sys.stderr)
        return reply

    async def _post_lean(self, query: Query) -> dict:
        try:
            status, data, retry_after = await self._lean.post(self.body(query))
        except Exception as exc:
            raise self._lean.map_exception(exc, self._connect_hint()) from None
        if status >= 300:
            raise self.status_error(status, data, retry_after, f"POST {self._lean.url}")
        if isinstance(data, bytes):  # a 2xx whose body is not JSON: a web page or garbage
            raise unreadable_reply(self._lean.url, data, self.url_hint(), self._key)
        return self._reply_shape(data)

    async def _post_sdk(self, query: Query):
        from openai.types.chat import ChatCompletion

        # The SDK's raw POST (documented for endpoints and fields it does not type): the body goes out
        # as built, extra fields included, without chat.completions.create's recursive TypedDict
        # transform, which cost about a third of the client CPU per query (bench/engine.py).
        try:
            resp = await self.client().post("/chat/completions", cast_to=ChatCompletion, body=self.body(query))
        except Exception as exc:
            raise self.map_error(exc) from None
        return self._reply_shape(resp)

    def _reply_shape(self, resp):
        """A 200 that is not a JSON object (an HTML page, a list, a bare string: the SDK hands those back
        as they are) is a malformed reply to retry, not an empty answer to store."""
        if isinstance(resp, (str, bytes)):  # the SDK returns a body it cannot read as JSON as text
            raise unreadable_reply(f"{self.base_url}/chat/completions", resp, self.url_hint(), self._key)
        if isinstance(resp, (list, int, float)) or resp is None:
            raise BackendError(f"malformed response from {self.base_url}: not a chat completion object; "
                               f"{self.url_hint()}", retryable=True, code="malformed_response")
        return resp

    def url_hint(self) -> str:
        """What to check when the server answers, but not like the API."""
        return (f"check options.base_url: it must be the API root the client adds /chat/completions to "
                f"(e.g. {PRESETS[self.options.preset][0]})")

    async def preflight(self) -> None:
        """List the served models (GET {base_url}/models): free, and it needs the URL and the key to be
        right. On OpenAI and vLLM, whose lists are complete, a model id that is not listed is a 404."""
        url = f"{self.base_url}/models"
        try:  # read raw: the SDK turns a web page into an AttributeError, which would hide a wrong URL
            raw = await self.client().models.with_raw_response.list()
            body = await raw.http_response.aread()
        except Exception as exc:
            raise self.map_error(exc) from None
        try:
            page = json.loads(body)
        except ValueError:
            raise unreadable_reply(url, body, self.url_hint(), self._key) from None
        if not isinstance(page, dict):
            raise BackendError(f"malformed response from {url}: not a model list; {self.url_hint()}",
                               retryable=True, code="bad_response")
        listed = page.get("data") if isinstance(page.get("data"), list) else []
        served = sorted({str(m["id"]) for m in listed if isinstance(m, dict) and m.get("id") is not None})
        # A server that echoes the request's name (llama.cpp) would have a wrong name stored as the
        # provider-confirmed model_id: a name the list lacks is refused unless the user says names are ignored.
        if served and self.model_id not in served and not self.options.any_model_name:
            shown = ", ".join(served[:8]) + (" ..." if len(served) > 8 else "")
            raise BackendError(f"model_id '{self.model_id}' is not served by {self.base_url} (it serves {shown}); "
                               "use one of those, or set options.any_model_name = true if this server answers any "
                               "name with its one model", retryable=False, status=404, code="model_not_found")

    def map_error(self, exc: BaseException) -> BackendError:
        """SDK exceptions -> BackendError. Retryable: 408/409/429, 5xx, timeouts, dropped connections,
        unreadable bodies; not: 400 (invalid parameter, content filter), 401, 403, 404, 422."""
        import httpx2
        import openai

        if isinstance(exc, BackendError):
            return exc
        if isinstance(exc, openai.APIStatusError):
            return self.status_error(exc.status_code, exc.body if exc.body is not None else exc.message,
                                     exc.response.headers.get("retry-after"), request_line(exc.response))
        if isinstance(exc, openai.APIResponseValidationError):
            return BackendError(redact(f"unexpected response shape from {self.base_url}: {exc}", self._key),
                                retryable=True, status=exc.status_code, code="bad_response")
        if isinstance(exc, openai.APITimeoutError) and isinstance(exc.__cause__, httpx2.ConnectTimeout):
            return BackendError(f"no connection to {self.base_url} within {self.options.timeout:g} s; "
                                f"{self._connect_hint()}", retryable=True, code="connection")  # unreachable host
        if isinstance(exc, openai.APITimeoutError):
            return BackendError(f"timeout after {self.options.timeout:g} s from {self.base_url}",
                                retryable=True, code="timeout")
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            if isinstance(cause, httpx2.UnsupportedProtocol):
                return BackendError(f"malformed URL {self.base_url}: base_url needs http:// or https://",
                                    retryable=False, code="bad_url")
            return BackendError(redact(f"connection error to {self.base_url}: {type(cause).__name__}: {cause}; "
                                       f"{self._connect_hint()}", self._key), retryable=True, code="connection")
        if isinstance(exc, ValueError):  # a 200 whose body is not JSON (json.JSONDecodeError)
            return BackendError(redact(f"malformed JSON from {self.base_url}: {exc}", self._key), retryable=True,
                                code="malformed_response")
        return BackendError(redact(f"{type(exc).__name__}: {exc}", self._key), retryable=False, code="client_error")

    def status_error(self, status: int, body, retry_after: str | None, request: str | None) -> BackendError:
        """An HTTP error answer (both chat paths and the SDK's other calls): 408/409/425/429 and 5xx are
        retried, other 4xx are not; Retry-After is kept for the engine's backoff; the key never shows."""
        code, message = error_fields(body)
        err = http_error(status, message, code=code, secret=self._key, retry_after=retry_after, request=request,
                         hint=status_hint(status, key_env=self.options.key_env, not_found=self.not_found_hint()))
        if status == 409:  # OpenAI: a conflicting concurrent update, "try again"
            err.retryable = True
        return err

    def _connect_hint(self) -> str:
        return connect_hint("base_url", self.base_url, bool(self.options.base_url))

    def not_found_hint(self) -> str:
        if not self.base_url.rstrip("/").endswith("/v1"):
            return f"base_url usually ends in /v1 (the client adds /chat/completions): {v1_root(self.base_url)}?"
        return f"check model_id '{self.model_id}' and base_url {self.base_url}"


def v1_root(url: str) -> str:
    """The API root a mistyped base_url most likely meant: ".../v1/chat" and ".../v1/chat/completions" ->
    ".../v1" (not ".../v1/chat/v1"); a URL without /v1 gets it appended."""
    url = url.rstrip("/")
    head, sep, _ = url.partition("/v1/")
    return head + "/v1" if sep else url + "/v1"
