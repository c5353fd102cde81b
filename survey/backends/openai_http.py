"""The openai backend's lean chat path: one POST of the JSON body the backend builds, through aiohttp,
parsed straight into a Reply (``options.http = "aiohttp"``, the default; ``"sdk"`` sends it through the
official openai SDK instead, which also does files, batch jobs and the model list in either case).

Why: at the rates a self-hosted server (vLLM, llama.cpp) reaches with one-token answers, the SDK's
httpx stack and its request building and response models cost about 2 ms of client CPU per query, which
caps one process near 300-500 queries/s; the same request through aiohttp costs a fraction of that
(bench/engine.py measures both in one run). Nothing else changes: the body is ``OpenAIBackend.body``,
HTTP errors go through the same ``status_error`` as the SDK's, the reply through the same ``to_reply``,
and retries, backoff and Retry-After stay the engine's (one attempt is one HTTP request).

The headers are what the SDK would send that a server reads: the key as a bearer token (never logged or
stored; every message is scrubbed of it), and OpenAI's organisation and project when OPENAI_ORG_ID or
OPENAI_PROJECT_ID is set, as the SDK reads them. Proxies come from the environment, as with the SDK
(looked up once per session: survey.backends.provider.aiohttp_session).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from survey.backends.base import BackendError
from survey.backends.provider import SessionPerLoop, aiohttp_session, redact

if TYPE_CHECKING:
    import aiohttp

# the SDK's environment variables for OpenAI's organisation and project headers
_ENV_HEADERS = (("OPENAI_ORG_ID", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project"))


class AiohttpChat(SessionPerLoop):
    """POST {base_url}/chat/completions for one backend: one aiohttp session per event loop, keeping up to
    ``max_connections`` connections open."""

    def __init__(self, base_url: str, key: str, *, timeout: float, max_connections: int):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.base_url = base_url
        self.timeout = timeout
        self.max_connections = max_connections
        self._key = key
        self.headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                        "Accept": "application/json"}
        self.headers.update({header: os.environ[var] for var, header in _ENV_HEADERS if os.environ.get(var)})

    def __repr__(self) -> str:  # never show the key
        return f"AiohttpChat(url={self.url!r})"

    def new_session(self) -> aiohttp.ClientSession:
        import aiohttp

        # connect and read are bounded like the SDK's timeout (each phase, not the whole call)
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=self.timeout, sock_read=self.timeout)
        return aiohttp_session(self.url, self.max_connections, timeout=timeout, headers=self.headers,
                               skip_auto_headers=("User-Agent",))

    async def post(self, body: dict) -> tuple[int, object, str | None]:
        """(status, the parsed JSON reply, Retry-After); raises what aiohttp raises. A body that is not JSON
        comes back as text for an HTTP error and as bytes for a 2xx (a web page or garbage: the caller says which)."""
        # redirects are not followed, as the SDK's httpx does not: a 3xx is an HTTP error like a 4xx
        async with self.session().post(self.url, data=json.dumps(body, ensure_ascii=False).encode(),
                                       allow_redirects=False) as resp:
            raw = await resp.read()
            status, retry_after = resp.status, resp.headers.get("Retry-After")
        try:
            return status, json.loads(raw), retry_after
        except ValueError:  # an error page as text; a 2xx that is not JSON as its bytes (the caller says why)
            return status, raw.decode(errors="replace") if status >= 300 else raw, retry_after

    def map_exception(self, exc: BaseException, connect_hint: str) -> BackendError:
        """aiohttp's failures -> BackendError, with the codes the SDK path gives for the same failure."""
        import aiohttp

        if isinstance(exc, BackendError):
            return exc
        if isinstance(exc, (aiohttp.NonHttpUrlClientError, aiohttp.InvalidURL)):
            return BackendError(f"malformed URL {self.base_url}: base_url needs http:// or https://",
                                retryable=False, code="bad_url")
        if isinstance(exc, aiohttp.ConnectionTimeoutError):  # nothing answered: the host is unreachable
            return BackendError(f"no connection to {self.base_url} within {self.timeout:g} s; {connect_hint}",
                                retryable=True, code="connection")
        if isinstance(exc, TimeoutError):  # aiohttp's read timeout is a TimeoutError too
            return BackendError(f"timeout after {self.timeout:g} s from {self.base_url}", retryable=True,
                                code="timeout")
        if isinstance(exc, ValueError):  # a 200 whose body is not JSON (json.JSONDecodeError)
            return BackendError(redact(f"malformed JSON from {self.base_url}: {exc}", self._key), retryable=True,
                                code="malformed_response")
        if isinstance(exc, aiohttp.ClientError):  # refused, reset, dropped mid-reply
            return BackendError(redact(f"connection error to {self.base_url}: {type(exc).__name__}: {exc}; "
                                       f"{connect_hint}", self._key), retryable=True, code="connection")
        return BackendError(redact(f"{type(exc).__name__}: {exc}", self._key), retryable=False, code="client_error")
