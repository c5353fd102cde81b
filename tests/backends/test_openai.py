"""The openai backend through the real openai SDK against the fake OpenAI-compatible server on 127.0.0.1."""

import asyncio
import functools
import json

import pytest
from fakes.common import answer_for, complete_once, injected_error, query_cell, run_batch, shopper_query
from fakes.openai_server import OpenAIFake

from survey.backends import backend_capabilities, create_backend
from survey.backends.base import BackendError, Reply, capabilities_of
from survey.backends.openai_compat import PLACEHOLDER_KEY, OpenAIBackend
from survey.errors import SurveyError
from survey.responses import BINARY

KEY = "sk-test-5ecret-0f-the-openai-user"


@pytest.fixture
def fake(fake_server):
    return fake_server("openai", KEY)


query = functools.partial(shopper_query, model_id="gpt-4o-latest")


def backend(fake, **opts):
    return create_backend("openai", "gpt-4o-latest", base_url=fake.base_url, **opts)


def test_success_reports_the_pinned_model_the_exact_score_and_the_body(fake):
    """The rest of a successful reply is checked for every provider in test_chat_providers.py."""
    q = query(logprobs=True, top_logprobs=3)
    reply = complete_once(backend(fake), q)
    p_yes = answer_for(query_cell(q))[1]
    assert reply.model_id == "gpt-4o-2025-08-07"  # the provider's pinned id, not the alias we sent
    # the engine's exact score sums the variants "Yes" and " Yes" (the fake sends no " No")
    assert BINARY.score_from_logprobs(reply.logprobs) == pytest.approx(0.99 * p_yes / (0.99 * p_yes + 0.97 * (1 - p_yes)))
    (body,) = fake.bodies
    assert body["seed"] == q.provider_seed and body["max_tokens"] == 1 and body["temperature"] == 1.0
    assert body["logprobs"] is True and body["top_logprobs"] == 3 and body["model"] == "gpt-4o-latest"
    assert fake.served[query_cell(q)] == 1 and sum(fake.requests.values()) == 1


def test_no_logprobs_unless_asked(fake):
    reply = complete_once(backend(fake), query())
    assert reply.logprobs is None and "logprobs" not in fake.bodies[0]


def test_vllm_clamped_logprobs_count_as_zero(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(logprobs_style="vllm") as fake:
        q = query(logprobs=True, top_logprobs=5)
        reply = complete_once(backend(fake), q)
    assert reply.logprobs[" No"] == -9999.0  # kept as sent: exp(-9999) is exactly 0
    p_yes = answer_for(query_cell(q))[1]
    assert BINARY.score_from_logprobs(reply.logprobs) == pytest.approx(0.99 * p_yes / (0.99 * p_yes + 0.97 * (1 - p_yes)))


def test_llamacpp_server_gets_top_logprobs_of_at_least_one(monkeypatch):
    """llama.cpp's server returns no log-probabilities for logprobs=true alone."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(logprobs_style="llamacpp") as fake:
        reply = complete_once(backend(fake), query(logprobs=True, top_logprobs=0))
        assert fake.bodies[0]["top_logprobs"] == 1
    assert reply.logprobs  # bytes = null in the entries is fine for the SDK


def test_a_server_without_logprobs_gives_replies_without_score_and_says_so_once(monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(logprobs_style="none") as fake:
        b = backend(fake)

        async def go():
            replies = [await b.complete(query(i, logprobs=True, top_logprobs=5)) for i in range(3)]
            await b.aclose()
            return replies

        replies = asyncio.run(go())
    assert all(r.text in ("Yes", "No") and r.logprobs is None for r in replies)
    err = capsys.readouterr().err
    assert err.count("sent no log-probabilities") == 1 and "gpt-4o-latest" in err


FAULTS = [  # kind, retryable, status, code
    ("rate_limit", True, 429, "rate_limit_exceeded"),
    ("server_error", True, 500, "server_error"),
    ("unavailable", True, 503, "service_unavailable"),
    ("malformed", True, None, "malformed_response"),
    ("disconnect", True, None, "connection"),
    ("content_filter", False, 400, "content_filter"),
    ("filtered", False, None, "content_filter"),
    ("invalid_param", False, 400, "invalid_value"),
    ("bad_key", False, 401, "invalid_api_key"),
    ("not_found", False, 404, "model_not_found"),
]


@pytest.mark.parametrize("kind,retryable,status,code", FAULTS)
def test_each_fault_maps_to_backend_error_after_exactly_one_request(fake, kind, retryable, status, code):
    err = injected_error(fake, backend(fake), query(), kind, retry_after=7 if kind == "rate_limit" else None)
    assert (err.retryable, err.status, err.code) == (retryable, status, code)
    assert err.retry_after == (7.0 if kind == "rate_limit" else None) and KEY not in str(err)
    assert sum(fake.requests.values()) == 1  # SDK retries are off: the engine owns backoff


def test_timeout_is_retryable(fake):
    err = injected_error(fake, backend(fake, timeout=0.3), query(), "timeout", delay=600)
    assert err.retryable and err.code == "timeout"
    assert fake.served == {}


def test_refused_connection_is_retryable_and_names_the_url(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake() as fake:
        url = fake.base_url
    with pytest.raises(BackendError) as info:  # the server is gone: nothing listens on the port
        complete_once(create_backend("openai", "m", base_url=url), query())
    assert info.value.retryable and info.value.code == "connection" and url in str(info.value)


def test_wrong_key_is_not_retryable_and_never_echoed(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "wrong-" + KEY)
    with OpenAIFake(api_key=KEY) as fake:
        b = backend(fake)
        with pytest.raises(BackendError) as info:
            complete_once(b, query())
    assert info.value.status == 401 and not info.value.retryable and "OPENAI_API_KEY" in str(info.value)
    assert KEY not in str(info.value) and KEY not in repr(b)


def test_missing_key_is_an_error_for_paid_servers_and_a_placeholder_for_local_ones(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("DASHSCOPE_API_KEY", raising=False)
    with pytest.raises(SurveyError, match="OPENAI_API_KEY"):
        create_backend("openai", "gpt-4o-mini")
    with pytest.raises(SurveyError, match="DASHSCOPE_API_KEY"):
        create_backend("openai", "qwen3-8b", preset="dashscope-compatible")
    for opts in ({"preset": "vllm"}, {"preset": "ollama"}, {"preset": "llamacpp"},
                 {"base_url": "http://localhost:9999/v1"}, {"base_url": "http://[::1]:9999/v1"}):
        assert create_backend("openai", "m", **opts)._key == PLACEHOLDER_KEY


def test_bad_options_are_user_errors(monkeypatch):
    monkeypatch.setenv("MY_KEY", KEY)
    create_backend("openai", "m", api_key_env="MY_KEY")
    with pytest.raises(SurveyError, match="base_ulr"):
        create_backend("openai", "m", api_key_env="MY_KEY", base_ulr="http://x/v1")
    with pytest.raises(SurveyError, match="preset"):
        create_backend("openai", "m", api_key_env="MY_KEY", preset="sglang")
    with pytest.raises(SurveyError, match="http"):
        create_backend("openai", "m", api_key_env="MY_KEY", base_url="127.0.0.1:8000/v1")
    with pytest.raises(SurveyError, match="timeout"):
        create_backend("openai", "m", api_key_env="MY_KEY", timeout=0)


def test_presets_give_urls_and_capabilities(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("DASHSCOPE_API_KEY", KEY)
    urls = {p: create_backend("openai", "m", preset=p).base_url
            for p in ("openai", "dashscope-compatible", "vllm", "ollama", "llamacpp")}
    assert urls == {"openai": "https://api.openai.com/v1",
                    "dashscope-compatible": "https://dashscope.aliyuncs.com/compatible-mode/v1",
                    "vllm": "http://127.0.0.1:8000/v1", "ollama": "http://127.0.0.1:11434/v1",
                    "llamacpp": "http://127.0.0.1:8080/v1"}
    caps = backend_capabilities
    assert caps("openai").paid and caps("openai").batch  # the class: the cautious declaration
    assert caps("openai", {}).list_price("gpt-4o-mini-2024-07-18") == (0.15, 0.60)
    assert caps("openai", {}).list_price("gpt-4o-mini", batch=True) == (0.075, 0.30)
    assert caps("openai", {"preset": "dashscope-compatible"}).list_price("qwen3-8b") == (0.18, 0.70)
    for local in ({"preset": "vllm"}, {"preset": "ollama", "base_url": "http://gpu-box:11434/v1"}):
        assert not caps("openai", local).paid and not caps("openai", local).batch
    loop = caps("openai", {"base_url": "http://127.0.0.1:8000/v1"})
    assert not loop.paid and loop.batch
    assert caps("openai", {"base_url": "https://api.together.xyz/v1"}).paid
    assert caps("openai", {"preset": "nonsense"}) == OpenAIBackend.capabilities  # refused when created
    b = create_backend("openai", "m", preset="vllm")
    assert not capabilities_of(b).paid  # the instance carries its options' declaration


def test_dashscope_compatible_turns_qwen3_thinking_off_and_params_win(monkeypatch):
    monkeypatch.setenv("DASHSCOPE_API_KEY", KEY)
    with OpenAIFake(api_key=KEY) as fake:
        b = create_backend("openai", "qwen3-8b", preset="dashscope-compatible", base_url=fake.base_url)
        complete_once(b, query(model_id="qwen3-8b"))
        complete_once(b, query(model_id="qwen3-8b", params={"enable_thinking": True, "top_k": 5}))
        other = create_backend("openai", "qwen3-8b", base_url=fake.base_url, api_key_env="DASHSCOPE_API_KEY")
        complete_once(other, query(model_id="qwen3-8b"))
    first, second, third = fake.bodies
    assert first["enable_thinking"] is False
    assert second["enable_thinking"] is True and second["top_k"] == 5  # extra body fields reach the wire
    assert "enable_thinking" not in third  # only DashScope's compatible mode knows it


def test_preflight_lists_models(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with OpenAIFake(api_key=KEY, served_models=["Qwen/Qwen3-8B"]) as fake:
        # a name the server does not list is refused (llama.cpp echoes any name, which would then be stored as
        # the provider-confirmed model_id) unless the user says the server ignores names
        with pytest.raises(BackendError, match="any_model_name"):
            asyncio.run(create_backend("openai", "anything", base_url=fake.base_url).preflight())
        asyncio.run(create_backend("openai", "anything", base_url=fake.base_url, any_model_name=True).preflight())
        asyncio.run(create_backend("openai", "Qwen/Qwen3-8B", preset="vllm", base_url=fake.base_url).preflight())
        with pytest.raises(BackendError) as info:
            asyncio.run(create_backend("openai", "Qwen3-8B", preset="vllm", base_url=fake.base_url).preflight())
        assert info.value.status == 404 and "Qwen/Qwen3-8B" in str(info.value)
        fake.inject("bad_key", route="models")
        with pytest.raises(BackendError) as info:
            asyncio.run(create_backend("openai", "x", base_url=fake.base_url).preflight())
        assert info.value.status == 401
    with pytest.raises(BackendError) as info:
        asyncio.run(create_backend("openai", "x", base_url=fake.url).preflight())  # /v1 forgotten, server gone
    assert info.value.code == "connection"


def test_batch_submit_poll_fetch(fake):
    qs = [query(i, logprobs=True, top_logprobs=2) for i in range(6)]
    fake.inject("content_filter", route="batch", match="sneakers 2?")
    fake.inject("server_error", route="batch", match="sneakers 4?")
    fake.inject("filtered", route="batch", match="sneakers 5?")
    job_id, statuses, results = run_batch(backend(fake), qs)
    assert statuses == ["IN_PROGRESS", "SUCCESS", "SUCCESS"]
    job = fake.jobs[job_id]
    assert job["endpoint"] == "/v1/chat/completions" and job["metadata"]["study"] == "st"
    lines = [json.loads(x) for x in fake.files[job["input_file_id"]]["content"].splitlines()]
    assert [x["custom_id"] for x in lines] == [q.custom_id for q in qs]
    assert lines[0]["method"] == "POST" and lines[0]["url"] == "/v1/chat/completions"
    assert lines[0]["body"] == {"model": "gpt-4o-latest", "messages": [{"role": "system", "content": qs[0].system},
                                                                      {"role": "user", "content": qs[0].user}],
                                "max_tokens": 1, "temperature": 1.0, "seed": qs[0].provider_seed,
                                "logprobs": True, "top_logprobs": 2}
    assert set(results) == {q.custom_id for q in qs}
    for i, q in enumerate(qs):
        res = results[q.custom_id]
        if i == 2:
            assert isinstance(res, BackendError) and not res.retryable and res.status == 400
        elif i == 4:
            assert isinstance(res, BackendError) and res.retryable and res.status == 500
        elif i == 5:
            assert isinstance(res, BackendError) and res.code == "content_filter" and not res.retryable
        else:
            assert isinstance(res, Reply) and res.text == answer_for(query_cell(q))[0]
            assert res.model_id == "gpt-4o-2025-08-07" and set(res.logprobs) >= {"Yes", "No"}
    assert sum(fake.served.values()) == 4  # 0, 1, 3 and the filtered 5


def test_the_base_url_hint_suggests_the_v1_root():
    # ".../v1/chat" once got the hint ".../v1/chat/v1"
    from survey.backends.openai_compat import v1_root

    assert v1_root("http://127.0.0.1:8000/v1/chat") == "http://127.0.0.1:8000/v1"
    assert v1_root("http://127.0.0.1:8000/v1/chat/completions/") == "http://127.0.0.1:8000/v1"
    assert v1_root("http://127.0.0.1:8000") == "http://127.0.0.1:8000/v1"
