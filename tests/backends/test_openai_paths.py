"""The openai backend's two chat paths, ``http = "aiohttp"`` (the default) and ``http = "sdk"``, through the same
fake server: every fault, timeout, garbage reply and Retry-After maps to the same BackendError and a reply to the
same Reply. Runs through the engine on both paths: tests/collect/test_engine_openai_paths.py."""

import asyncio

import pytest
from aiohttp import web
from fakes.common import complete_once, query_cell, shopper_query
from fakes.openai_server import OpenAIFake
from test_openai import FAULTS, KEY

from survey.backends import create_backend
from survey.backends.base import BackendError, Reply

PATHS = ["aiohttp", "sdk"]


def query(i: int = 0, **kw):
    return shopper_query(i, model_id="gpt-4o-latest", **kw)


def outcome(fake, http: str, q, **opts):
    """What one call gives on one path: ("reply", text, model, tokens, logprobs) or ("error", retryable,
    status, code, retry_after), and the error's text (checked for the key)."""
    b = create_backend("openai", "gpt-4o-latest", base_url=fake.base_url, http=http, **opts)
    try:
        r = complete_once(b, q)
    except BackendError as err:
        return ("error", err.retryable, err.status, err.code, err.retry_after), str(err)
    return ("reply", r.text, r.model_id, r.prompt_tokens, r.completion_tokens, r.logprobs,
            r.extra.get("finish_reason")), ""


@pytest.mark.parametrize("kind,retryable,status,code", FAULTS)
def test_both_paths_map_each_fault_alike_after_one_request(fake_server, kind, retryable, status, code):
    fake = fake_server("openai", KEY)
    seen = {}
    for http in PATHS:
        fake.inject(kind, retry_after=7 if kind == "rate_limit" else None)
        before = sum(fake.requests.values())
        seen[http], text = outcome(fake, http, query())
        assert sum(fake.requests.values()) - before == 1  # no retry inside the backend: the engine owns backoff
        assert KEY not in text
    expected = ("error", retryable, status, code, 7.0 if kind == "rate_limit" else None)
    assert seen == {"aiohttp": expected, "sdk": expected}


def test_both_paths_give_the_same_reply_and_the_same_body(fake_server):
    fake = fake_server("openai", KEY)
    q = query(3, logprobs=True, top_logprobs=4, params={"top_k": 5})
    seen = {http: outcome(fake, http, q)[0] for http in PATHS}
    assert seen["aiohttp"] == seen["sdk"] and seen["sdk"][0] == "reply" and seen["sdk"][5]
    assert fake.bodies[0] == fake.bodies[1] and fake.bodies[0]["top_k"] == 5
    assert fake.served[query_cell(q)] == 2


@pytest.mark.parametrize("http", PATHS)
def test_timeouts_and_refused_connections(fake_server, http):
    fake = fake_server("openai", KEY)
    fake.inject("timeout", delay=600)
    assert outcome(fake, http, query(), timeout=0.3)[0] == ("error", True, None, "timeout", None)
    url = fake.base_url
    fake.stop()
    with pytest.raises(BackendError) as info:  # nothing listens on the port any more
        complete_once(create_backend("openai", "m", base_url=url, http=http), query())
    assert info.value.retryable and info.value.code == "connection" and url in str(info.value)


class GarbageFake(OpenAIFake):
    """Answers every chat request 200 with ``body`` as ``content_type``: a proxy's HTML page, JSON of the wrong shape."""

    body, content_type, status, headers = b"", "application/json", 200, None

    async def _chat(self, request):
        if (denied := self._admit(request, "chat")) is not None:
            return denied
        await request.read()
        return web.Response(body=self.body, content_type=self.content_type, status=self.status, headers=self.headers)


GARBAGE = [  # body, content type, what both paths give
    # a web page: the URL points at a web site or a proxy's page, not at the API
    (b"<html><body>502 Bad Gateway</body></html>", "text/html", ("error", True, None, "not_an_api", None)),
    (b"[]", "application/json", ("error", True, None, "malformed_response", None)),
    (b'"ok"', "application/json", ("error", True, None, "malformed_response", None)),
    (b'{"id": "chatcmpl-1", "choices": [{"message": ', "application/json",
     ("error", True, None, "malformed_response", None)),
    # a JSON object without choices holds no answer (a flaky proxy): retried, never stored as the persona's answer
    (b"{}", "application/json", ("error", True, None, "empty_response", None)),
    (b'{"choices": [], "model": "m-1"}', "application/json", ("error", True, None, "empty_response", None)),
]


@pytest.mark.parametrize("body,content_type,expected", GARBAGE, ids=[g[0][:12].decode() for g in GARBAGE])
def test_garbage_replies_map_alike(monkeypatch, body, content_type, expected):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with GarbageFake(api_key=KEY) as fake:
        fake.body, fake.content_type = body, content_type
        seen = {http: outcome(fake, http, query())[0] for http in PATHS}
    assert seen == {"aiohttp": expected, "sdk": expected}


def test_one_session_per_event_loop_closed_by_aclose(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(api_key=KEY) as fake:
        b = create_backend("openai", "gpt-4o-latest", base_url=fake.base_url)

        async def two_calls():
            replies = [await b.complete(query(i)) for i in range(2)]
            session = b._lean._session
            await b.aclose()
            return replies, session

        replies, session = asyncio.run(two_calls())
        assert all(isinstance(r, Reply) for r in replies) and session.closed
        assert isinstance(complete_once(b, query(5)), Reply)  # a new loop gets a new session
    assert "Bearer" not in repr(b._lean) and KEY not in repr(b._lean)


def test_a_redirect_is_not_followed_on_either_path(monkeypatch):
    """httpx (the SDK) does not follow redirects; neither does the aiohttp path, so a POST never lands elsewhere."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with GarbageFake(api_key=KEY) as fake:
        fake.status, fake.headers, fake.body = 307, {"Location": "http://127.0.0.1:9/v1/chat/completions"}, b"{}"
        seen = {http: outcome(fake, http, query())[0] for http in PATHS}
        assert fake.routes_hit["chat"] == 2
    assert seen["aiohttp"] == seen["sdk"] and seen["sdk"][:3] == ("error", False, 307)


def test_the_proxy_is_the_environments_and_looked_up_once_per_session(monkeypatch):
    from survey.backends.provider import env_proxy

    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy",
                "no_proxy"):
        monkeypatch.delenv(var, raising=False)
    assert env_proxy("https://api.openai.com/v1") is None
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1,gpu-box")
    assert env_proxy("https://api.openai.com/v1") == "http://proxy.example:3128"
    assert env_proxy("http://127.0.0.1:8000/v1") is None and env_proxy("https://gpu-box:8000/v1") is None
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    b = create_backend("openai", "m", base_url="https://api.openai.com/v1")

    async def session_proxy():
        session = b._lean.session()
        proxy = session._default_proxy
        await b.aclose()
        return proxy

    assert str(asyncio.run(session_proxy())) == "http://proxy.example:3128"
