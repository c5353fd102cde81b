"""The DashScope backend through the real dashscope SDK against the fake server on 127.0.0.1."""

import asyncio
import functools
import logging
import math

import dashscope
import pytest
from fakes.common import answer_for, complete_once, injected_error, query_cell, shopper_query

from survey.backends import create_backend
from survey.backends.base import BackendError, Reply
from survey.errors import SurveyError

KEY = "sk-ds-test-5ecret-key-0f-user"


@pytest.fixture
def fake(fake_server):
    return fake_server("dashscope", KEY)


query = functools.partial(shopper_query, model_id="qwen3-8b", model="qwen", product="boots", seed=5)


def backend(fake, model_id="qwen3-8b", **opts):
    return create_backend("dashscope", model_id, base_url=fake.base_url, **opts)


def test_success_with_usage_logprobs_and_thinking_disabled_for_qwen3(fake):
    q = query(logprobs=True, top_logprobs=3)
    reply = complete_once(backend(fake), q)
    answer, p_yes = answer_for(query_cell(q))
    assert isinstance(reply, Reply) and reply.text == answer
    assert reply.prompt_tokens > 0 and reply.completion_tokens == 1
    assert reply.model_id is None  # the native API reports no model version
    assert reply.extra["request_id"]
    assert reply.logprobs["Yes"] == pytest.approx(math.log(0.97 * p_yes))
    assert reply.logprobs["No"] == pytest.approx(math.log(0.97 * (1 - p_yes)))
    params = fake.last_parameters
    assert params["enable_thinking"] is False and params["result_format"] == "message"
    assert (params["seed"], params["max_tokens"], params["temperature"], params["top_logprobs"]) == (
        q.provider_seed, 1, 1.0, 3)


def test_user_can_turn_thinking_back_on_and_gets_the_providers_400(fake):
    with pytest.raises(BackendError, match="enable_thinking") as info:
        complete_once(backend(fake), query(params={"enable_thinking": True}))
    assert info.value.code == "InvalidParameter" and not info.value.retryable


def test_non_hybrid_models_get_no_enable_thinking(fake):
    complete_once(backend(fake, "qwen2.5-7b-instruct"), query(model_id="qwen2.5-7b-instruct"))
    assert "enable_thinking" not in fake.last_parameters


def test_base_address_falls_back_to_the_sdk_global(fake, monkeypatch):
    monkeypatch.setattr(dashscope, "base_http_api_url", fake.base_url)
    reply = complete_once(create_backend("dashscope", "qwen3-8b"), query())
    assert reply.text in {"Yes", "No"}


FAULTS = [  # kind, retryable, status, code
    ("rate_limit", True, 429, "Throttling.RateQuota"),
    ("throttling", True, 429, "Throttling"),
    ("quota", True, 429, "Throttling.AllocationQuota"),
    ("server_error", True, 500, "InternalError"),
    ("unavailable", True, 503, "ServiceUnavailable"),
    ("malformed", True, None, "malformed_response"),
    ("content_filter", False, 400, "DataInspectionFailed"),
    ("invalid_param", False, 400, "InvalidParameter"),
    ("arrearage", False, 400, "Arrearage"),
    ("bad_key", False, 401, "InvalidApiKey"),
]


@pytest.mark.parametrize("kind,retryable,status,code", FAULTS)
def test_returned_error_codes_map_to_retry_or_not(fake, kind, retryable, status, code):
    err = injected_error(fake, backend(fake), query(), kind, retry_after=3 if kind == "rate_limit" else None)
    assert (err.retryable, err.status, err.code) == (retryable, status, code)
    assert err.retry_after == (3.0 if kind == "rate_limit" else None) and KEY not in str(err)
    assert sum(fake.requests.values()) == 1 and fake.served == {}


def test_dropped_connection_is_retryable(fake):
    # the SDK itself resends once on a dropped pooled connection, so drop twice
    fake.inject("disconnect", times=2)
    with pytest.raises(BackendError) as info:
        complete_once(backend(fake), query())
    assert info.value.retryable and info.value.code == "connection"
    assert sum(fake.requests.values()) == 2


def test_timeout_is_retryable(fake):
    err = injected_error(fake, backend(fake, timeout=0.3), query(), "timeout", delay=600)
    assert err.retryable and err.code == "timeout"


def test_non_yes_no_text_is_a_reply(fake):
    fake.inject("text")
    assert complete_once(backend(fake), query()).text == "Maybe, it depends on the price."


def test_missing_key_and_bad_options_are_user_errors(monkeypatch):
    monkeypatch.delenv("DASHSCOPE_API_KEY", raising=False)
    with pytest.raises(SurveyError, match="DASHSCOPE_API_KEY"):
        create_backend("dashscope", "qwen3-8b")
    monkeypatch.setenv("DASHSCOPE_API_KEY", KEY)
    with pytest.raises(SurveyError, match="base_ulr"):
        create_backend("dashscope", "qwen3-8b", base_ulr="http://x")


def test_key_is_sent_per_call_and_never_set_globally_or_logged(fake, monkeypatch, caplog):
    monkeypatch.setenv("DASHSCOPE_LOGGING_LEVEL", "debug")
    caplog.set_level(logging.DEBUG)
    before = dashscope.api_key
    b = backend(fake)
    complete_once(b, query())  # the fake checks the Bearer key, so a wrong or missing key would fail here
    fake.inject("timeout", delay=600)
    with pytest.raises(BackendError):
        complete_once(backend(fake, timeout=0.2), query())
    assert dashscope.api_key == before
    assert KEY not in caplog.text and KEY not in repr(b)


def test_session_is_closed_by_aclose_and_renewed_per_loop(fake):
    b = backend(fake)

    async def one():
        reply = await b.complete(query())
        session = b._session
        await b.aclose()
        return reply, session

    (r1, s1), (r2, s2) = asyncio.run(one()), asyncio.run(one())
    assert r1.text == r2.text and s1 is not s2 and s1.closed and s2.closed


def test_fake_text_embedding_route_through_the_sdk(fake, monkeypatch):
    monkeypatch.setattr(dashscope, "base_http_api_url", fake.base_url)
    res = dashscope.TextEmbedding.call(model="text-embedding-v4", input=["a boot", "a shoe", "a boot"], api_key=KEY)
    assert res.status_code == 200
    vecs = [e["embedding"] for e in res.output["embeddings"]]
    assert len(vecs[0]) == 1024 and vecs[0] == vecs[2] != vecs[1]
    fake.inject("rate_limit", route="embeddings")
    res = dashscope.TextEmbedding.call(model="text-embedding-v4", input=["x"], api_key=KEY)
    assert (res.status_code, res.code) == (429, "Throttling.RateQuota")
