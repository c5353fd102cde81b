"""Helpers shared by the backends: option parsing (every backend), and for the paid providers
(mistral, dashscope) the API key and HTTP errors.

The API key is read from the environment only, held in memory, and scrubbed from every message we
build, so it cannot reach a Reply, an error row, a log line or an export.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import os
import re
import time
import urllib.parse
from collections.abc import Iterable
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic_core import PydanticCustomError

from survey.backends.base import BackendError
from survey.errors import SurveyError, validated

RETRYABLE_STATUS = {408, 425, 429}  # plus every 5xx
# Error codes (or types) that say the account is out of credit or quota: no retry helps until the user pays or
# raises the limit, so the model stops at once. OpenAI sends insufficient_quota with a 429 (a rate limit is a
# 429 too: the code tells them apart); gateways in its format insufficient_credits; DashScope Arrearage (a 400)
# and, for a free tier that is used up, Throttling.AllocationQuotaFreeTierOnly. HTTP 402 says the same anywhere.
BILLING_CODES = frozenset({"insufficient_quota", "insufficient_credits", "billing_hard_limit_reached", "billing_error",
                           "payment_required", "Arrearage", "Throttling.AllocationQuotaFreeTierOnly"})
BILLING_HINT = ("the account is out of credit or quota (billing): add credit or raise the limit with the provider, "
                "then rerun; no retry can succeed before that")
_Options = TypeVar("_Options", bound=BaseModel)


class ProviderOptions(BaseModel):
    """Connection options common to paid providers (a study's ``options`` table)."""

    model_config = ConfigDict(extra="forbid")

    api_key_env: str = Field(description="name of the environment variable holding the API key")
    timeout: float = Field(60.0, gt=0, description="seconds before one request is abandoned (then retried)")
    max_connections: int = Field(256, ge=1, description="HTTP connections kept open to the provider")

    @field_validator("api_key_env")
    @classmethod
    def _variable_name(cls, value):
        # "" once fell back to another variable, and the error then named that one
        if value is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
            raise PydanticCustomError("env_name", "'{value}' is not an environment variable name: give the name of "
                                      "the variable that holds the key, e.g. MY_API_KEY (or leave the option out)",
                                      {"value": value})
        return value


def parse_options(cls: type[_Options], backend: str, options: dict) -> _Options:
    """A backend's options model, or a SurveyError naming each bad option."""
    return validated(cls, f"{backend} backend options", **options)


def api_key_from_env(var: str, backend: str) -> str:
    key = os.environ.get(var, "").strip()
    if not key:
        raise SurveyError(f"{backend}: the environment variable {var} is not set; export your API key there "
                          f"(or set options.api_key_env to the variable that holds it)")
    return key


def redact(text: str, secret: str | None, limit: int = 500) -> str:
    """Trim a provider message and scrub the key from it (providers sometimes echo headers back)."""
    if secret and len(secret) >= 4:
        text = text.replace(secret, "***")
    return text if len(text) <= limit else text[:limit] + "..."


def retry_after_seconds(value: str | None) -> float | None:
    """Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3)."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    return max(0.0, seconds) if math.isfinite(seconds) else None


def http_error(status: int | None, message: str, *, code: str | None = None, retry_after: str | None = None,
               secret: str | None = None, request: str | None = None, hint: str | None = None) -> BackendError:
    """A provider HTTP error: 429/5xx (and timeouts) can succeed later, other 4xx cannot.

    ``request`` ("POST https://...") says what was asked and ``hint`` what to check, so a 404 never
    reaches the user as a bare "HTTP 404".
    """
    retryable = status is None or status in RETRYABLE_STATUS or status >= 500
    billing = status == 402 or code in BILLING_CODES
    hint = BILLING_HINT if billing else hint
    prefix = f"HTTP {status}" if status is not None else "request failed"
    text = f"{prefix}{f' {code}' if code else ''}{f' from {request}' if request else ''}: {message or 'no message'}"
    return BackendError(redact(text + (f"; {hint}" if hint else ""), secret), retryable=retryable,
                        status=status, code=code, retry_after=retry_after_seconds(retry_after), stops_model=billing)


def unreadable_reply(url: str, body: bytes | str | None, url_hint: str, secret: str | None = None) -> BackendError:
    """A 2xx answer that is no JSON reply. A web page (HTML) means the URL points at a web site or a proxy's
    page, not at the API (code not_an_api); other bytes are a garbled reply (malformed_response). Both are
    retried: a flaky proxy sends a few; the engine's breaker stops a model that gets nothing else."""
    text = body.decode(errors="replace") if isinstance(body, bytes) else str(body or "")
    head = text.lstrip()[:200].lower()
    if head.startswith(("<!doctype html", "<html", "<head", "<body", "<?xml")) or "<html" in head:
        return BackendError(f"{url} answered with a web page (HTML), not an API reply: {url_hint}", retryable=True,
                            code="not_an_api")
    shown = " ".join(text.split())[:80] or "an empty body"
    return BackendError(redact(f"malformed reply from {url}, not JSON: {shown!r}; {url_hint}", secret), retryable=True,
                        code="malformed_response")


def empty_reply(url: str) -> BackendError:
    """A 2xx chat reply without a single choice (a flaky proxy): no answer to store, so the request is retried."""
    return BackendError(f"a reply without choices from {url} (nothing to store; retried)", retryable=True,
                        code="empty_response")


def reply_format(q, mode: str = "json_schema") -> dict | None:
    """The chat request's ``response_format`` for a stated-distribution question (survey.responses.stated), else
    None: ``json_schema`` (structured output: every option a required number in [0, 1]; OpenAI, vLLM, llama.cpp's
    server, Mistral) or ``json_object`` (JSON mode: valid JSON of any shape; DashScope, where only some models
    take a schema). The reply is parsed strictly either way; a server that ignores the field changes nothing."""
    rtype = q.response_type
    if rtype.elicit != "distribution":
        return None
    if mode == "json_object":
        return {"type": "json_object"}
    return {"type": "json_schema", "json_schema": {"name": "stated_distribution", "strict": True,
                                                   "schema": rtype.json_schema()}}


def status_hint(status: int | None, *, key_env: str, not_found: str) -> str | None:
    """What to check after a 401/403 (the key) or a 404 (``not_found``: the backend's URL advice)."""
    if status in (401, 403):
        return (f"check the API key in ${key_env} (options.api_key_env names the variable) and that it may "
                "use this model")
    if status == 404:
        return not_found
    return None


def request_line(response) -> str | None:
    """ "GET https://host/v1/models/x": what an httpx response answered, or None if unknown."""
    try:
        return f"{response.request.method} {response.request.url}"
    except (AttributeError, RuntimeError):  # httpx raises RuntimeError for a response built without one
        return None


def connect_hint(option: str, url: str, configured: bool) -> str:
    """What to check when ``url`` (option ``option``, or the SDK's default) cannot be reached."""
    return (f"check the scheme, host and port of options.{option}" if configured
            else f"check the network connection to {url}")


def http_url(value: str | None) -> str | None:
    """Validate a URL option (a pydantic validator): http(s) with a host; ``127.0.0.1:8080`` needs
    ``http://`` in front, and without one every request would fail only after its retries."""
    if value is None:
        return None
    parts = urllib.parse.urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        bare = value.split("://", 1)[-1]
        raise PydanticCustomError("http_url", "'{value}' is not an http(s) URL: write it with its scheme, e.g. "
                                  "'https://{bare}' (or 'http://{bare}' for a server without TLS)",
                                  {"value": value, "bare": bare})
    return value.rstrip("/")


class ClientPerLoop:
    """One SDK client per event loop (the SDKs' async HTTP clients are bound to the loop they first ran
    on), built by the subclass's new_client() -> (its httpx2 client, the SDK client), closed by aclose()."""

    _client = None
    _http = None
    _loop: asyncio.AbstractEventLoop | None = None

    def new_client(self) -> tuple:
        raise NotImplementedError

    def client(self):
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._http, self._client = self.new_client()
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        http, self._http, self._client = self._http, None, None
        if http is not None and self._loop is asyncio.get_running_loop():
            await http.aclose()


class SessionPerLoop:
    """One aiohttp session per event loop (a session is bound to the loop it was made on), made by the
    subclass's new_session(), closed by aclose(). Used by the dashscope backend (its SDK calls take the
    session) and the openai backend's lean chat path."""

    _session = None
    _loop: asyncio.AbstractEventLoop | None = None

    def new_session(self):
        raise NotImplementedError

    def session(self):
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            self._session, self._loop = self.new_session(), loop
        return self._session

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed and self._loop is asyncio.get_running_loop():
            await session.close()


def aiohttp_session(url: str, max_connections: int, **kwargs):
    """An aiohttp session keeping up to ``max_connections`` connections to ``url``'s host, through the proxy
    the environment names for it. The proxy is looked up here, once: ``trust_env=True`` would look it up (and
    read ~/.netrc) in a worker thread on every request, two thread hops that cost a third of a lean client's
    CPU per query (bench/engine.py); and a ~/.netrc entry would clash with the key's Authorization header."""
    import aiohttp

    connector = aiohttp.TCPConnector(limit=max_connections, limit_per_host=max_connections,
                                     **({"ssl": kwargs.pop("ssl")} if "ssl" in kwargs else {}))
    return aiohttp.ClientSession(connector=connector, proxy=env_proxy(url), cookie_jar=aiohttp.DummyCookieJar(),
                                 **kwargs)


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY), as httpx
    would use it; None for none."""
    import urllib.request  # only when a session is made (it imports http.client, email, ...)

    scheme, host = url.split("://", 1)[0], urllib.parse.urlsplit(url).hostname or ""
    proxies = urllib.request.getproxies()
    proxy = proxies.get(scheme) or proxies.get("all")
    return None if not proxy or urllib.request.proxy_bypass(host) else proxy


def pooled_http_client(max_connections: int, **kwargs):
    """An httpx2 async client keeping up to ``max_connections`` connections open."""
    import httpx2

    return httpx2.AsyncClient(limits=httpx2.Limits(max_connections=max_connections,
                                                   max_keepalive_connections=max_connections), **kwargs)


def field(obj, name: str):
    """``obj[name]`` of a parsed JSON object or ``obj.name`` of an SDK model, None when absent: the reply
    parsers read both (the openai backend's aiohttp path parses JSON, its SDK path gets SDK objects)."""
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def first_token_logprobs(choice) -> dict[str, float] | None:
    """token -> logprob of the first generated token of an OpenAI-shaped choice (OpenAI, vLLM, Mistral;
    an SDK object or parsed JSON): its top alternatives plus the sampled token. vLLM's -9999 stands for an
    impossible token; it is kept (it is exactly 0 probability). Anything but a list (None, the Mistral
    SDK's UNSET) means none."""
    content = field(field(choice, "logprobs"), "content")
    if not isinstance(content, list) or not content:
        return None
    first = content[0]
    top = field(first, "top_logprobs")
    pairs = [(field(t, "token"), field(t, "logprob")) for t in (top if isinstance(top, list) else [])]
    token = field(first, "token")
    if token not in {t for t, _ in pairs}:
        pairs.append((token, field(first, "logprob")))
    return merge_top_logprobs(pairs)


def merge_top_logprobs(pairs: Iterable[tuple[str, float]]) -> dict[str, float] | None:
    """token -> logprob; a token string seen twice (distinct token ids) keeps its total probability."""
    out: dict[str, float] = {}
    for token, lp in pairs:
        if token is None or lp is None:
            continue
        out[token] = float(lp) if token not in out else float(_logaddexp(out[token], lp))
    return out or None


def _logaddexp(a: float, b: float) -> float:
    hi, lo = max(a, b), min(a, b)
    return hi + math.log1p(math.exp(lo - hi)) if math.isfinite(lo) else hi
