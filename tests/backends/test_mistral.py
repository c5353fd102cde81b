"""The Mistral backend through the real mistralai SDK against the fake server on 127.0.0.1."""

import asyncio
import functools
import json
import math

import pytest
from aiohttp import web
from fakes.common import answer_for, complete_once, injected_error, query_cell, run_batch, shopper_query
from fakes.mistral_server import MistralFake
from mistralai.client import Mistral

from survey.backends import create_backend
from survey.backends.base import BackendError, Reply
from survey.backends.provider import retry_after_seconds
from survey.errors import SurveyError

KEY = "mk-test-5ecret-0f-the-user"


@pytest.fixture
def fake(fake_server):
    return fake_server("mistral", KEY)


query = functools.partial(shopper_query, model_id="mistral-small-latest")


def backend(fake, **opts):
    return create_backend("mistral", "mistral-small-latest", server_url=fake.url, **opts)


def test_success_reports_the_pinned_model_and_the_no_logprob(fake):
    """The rest of a successful reply is checked for every provider in test_chat_providers.py."""
    q = query(logprobs=True, top_logprobs=3)
    reply = complete_once(backend(fake), q)
    p_yes = answer_for(query_cell(q))[1]
    assert reply.model_id == "mistral-small-2509"  # the provider's pinned id, not the alias we sent
    assert reply.logprobs["No"] == pytest.approx(math.log(0.97 * (1 - p_yes)))


def test_no_logprobs_unless_asked(fake):
    reply = complete_once(backend(fake), query())
    assert reply.logprobs is None


def test_reasoning_chunks_flattened_to_the_answer_text(monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", KEY)
    with MistralFake(reasoning=True) as fake:
        q = query()
        reply = complete_once(backend(fake), q)
    assert reply.text == answer_for(query_cell(q))[0]
    assert reply.extra["reasoning"] == "The persona weighs the offer."


FAULTS = [  # kind, retryable, status, code
    ("rate_limit", True, 429, "rate_limited"),
    ("server_error", True, 500, "internal_server_error"),
    ("unavailable", True, 503, "service_unavailable"),
    ("malformed", True, 200, "malformed_response"),
    ("disconnect", True, None, "connection"),
    ("content_filter", False, 400, "invalid_request_message_moderation"),
    ("invalid_param", False, 422, "invalid_parameter"),
    ("bad_key", False, 401, None),
]


@pytest.mark.parametrize("kind,retryable,status,code", FAULTS)
def test_each_fault_maps_to_backend_error_after_exactly_one_request(fake, kind, retryable, status, code):
    q = query()
    err = injected_error(fake, backend(fake), q, kind, retry_after=7 if kind == "rate_limit" else None)
    assert (err.retryable, err.status, err.code) == (retryable, status, code)
    assert err.retry_after == (7.0 if kind == "rate_limit" else None) and KEY not in str(err)
    assert sum(fake.requests.values()) == 1  # SDK retries are off: the engine owns backoff
    assert fake.served[query_cell(q)] == 0


class WrongShapeFake(MistralFake):
    """Answers every chat request 200 with ``body``: JSON the SDK cannot read as a chat completion."""

    body = b"{}"

    async def _chat(self, request):
        if (denied := self._admit(request, "chat")) is not None:
            return denied
        await request.read()
        return web.Response(body=self.body, content_type="application/json")


_CHOICE = b'[{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Yes"}}]'
WRONG_SHAPES = [  # body, code: each retried as the openai backend's paths retry it (test_openai_paths.py)
    (b"[]", "malformed_response"),
    (b'"ok"', "malformed_response"),
    (b"{}", "empty_response"),  # an object without choices holds no answer: retried, never stored
    (b'{"choices": []}', "empty_response"),
    (b'{"choices": ' + _CHOICE + b"}", "bad_response"),  # no id, object, model, usage
    (b'{"id": "x", "object": "chat.completion", "model": "m", "created": 1, "usage": {"prompt_tokens": "many"}, '
     b'"choices": ' + _CHOICE + b"}", "bad_response"),
]


@pytest.mark.parametrize("body,code", WRONG_SHAPES, ids=[w[0][:14].decode() for w in WRONG_SHAPES])
def test_a_2xx_reply_of_the_wrong_shape_is_retried(monkeypatch, body, code):
    monkeypatch.setenv("MISTRAL_API_KEY", KEY)
    with WrongShapeFake(api_key=KEY) as fake:
        fake.body = body
        with pytest.raises(BackendError) as info:
            complete_once(backend(fake), query())
    assert info.value.retryable and info.value.code == code and KEY not in str(info.value)


def test_timeout_is_retryable(fake):
    err = injected_error(fake, backend(fake, timeout=0.3), query(), "timeout", delay=600)
    assert err.retryable and err.code == "timeout"
    assert fake.served == {}


def test_wrong_key_is_not_retryable_and_never_echoed(monkeypatch):
    monkeypatch.setenv("MISTRAL_API_KEY", "wrong-" + KEY)
    with MistralFake(api_key=KEY) as fake:
        b = backend(fake)
        with pytest.raises(BackendError) as info:
            complete_once(b, query())
    assert info.value.status == 401 and not info.value.retryable
    assert KEY not in str(info.value) and KEY not in repr(b)


def test_missing_key_and_bad_options_are_user_errors(monkeypatch):
    monkeypatch.delenv("MISTRAL_API_KEY", raising=False)
    with pytest.raises(SurveyError, match="MISTRAL_API_KEY"):
        create_backend("mistral", "m")
    monkeypatch.setenv("MY_KEY", KEY)
    create_backend("mistral", "m", api_key_env="MY_KEY")
    with pytest.raises(SurveyError, match="server_ulr"):
        create_backend("mistral", "m", api_key_env="MY_KEY", server_ulr="http://x")
    with pytest.raises(SurveyError, match="timeout"):
        create_backend("mistral", "m", api_key_env="MY_KEY", timeout=-1)


def test_unknown_param_fails_before_any_request(fake):
    with pytest.raises(BackendError, match="not_a_param") as info:
        complete_once(backend(fake), query(params={"not_a_param": 1}))
    assert not info.value.retryable and fake.total == 0


def test_extra_params_reach_the_wire(fake):
    reply = complete_once(backend(fake), query(params={"top_p": 0.5}))
    assert reply.text in {"Yes", "No"}


def test_batch_submit_poll_fetch(fake):
    qs = [query(i, logprobs=True, top_logprobs=2) for i in range(6)]
    fake.inject("content_filter", route="batch", match="sneakers 2?")
    fake.inject("server_error", route="batch", match="sneakers 4?")
    job_id, statuses, results = run_batch(backend(fake), qs)
    assert statuses == ["RUNNING", "SUCCESS", "SUCCESS"]
    job = fake.jobs[job_id]
    assert job["model"] == "mistral-small-latest" and job["metadata"]["study"] == "st"
    lines = [json.loads(x) for x in fake.files[job["input_files"][0]]["content"].splitlines()]
    assert [x["custom_id"] for x in lines] == [q.custom_id for q in qs]
    assert lines[0]["body"] == {"messages": [{"role": "system", "content": qs[0].system},
                                             {"role": "user", "content": qs[0].user}],
                                "max_tokens": 1, "temperature": 1.0, "random_seed": qs[0].provider_seed, "logprobs": True,
                                "top_logprobs": 2}
    assert set(results) == {q.custom_id for q in qs}
    for i, q in enumerate(qs):
        res = results[q.custom_id]
        if i == 2:
            assert isinstance(res, BackendError) and not res.retryable and res.status == 400
        elif i == 4:
            assert isinstance(res, BackendError) and res.retryable and res.status == 500
        else:
            assert isinstance(res, Reply) and res.text == answer_for(query_cell(q))[0]
            assert res.model_id == "mistral-small-2509" and set(res.logprobs) >= {"Yes", "No"}
    assert sum(fake.served.values()) == 4


def test_fake_embeddings_are_deterministic_through_the_sdk(fake):
    async def go():
        client = Mistral(api_key=KEY, server_url=fake.url)
        res = await client.embeddings.create_async(model="mistral-embed", inputs=["a shoe", "a boot", "a shoe"])
        return [d.embedding for d in res.data]

    a, b, c = asyncio.run(go())
    assert len(a) == 1024 and a == c and a != b
    assert sum(x * x for x in a) == pytest.approx(1.0, abs=1e-5)


def test_retry_after_parsing():
    assert retry_after_seconds("2.5") == 2.5
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past: go now
    assert retry_after_seconds("-3") == 0.0
