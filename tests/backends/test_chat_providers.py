"""What the Mistral and OpenAI-compatible backends do alike, each through its real SDK against its fake
server on 127.0.0.1: first-token log-probabilities, free-text replies, one client per event loop, a silent
debug log, batch jobs reused on resubmission and refused across models."""

import asyncio
import dataclasses
import logging
import math
from dataclasses import dataclass

import pytest
from fakes.common import answer_for, complete_once, query_cell, resubmitted_batch_ids, shopper_query

from survey.backends import create_backend
from survey.backends.base import BackendError, Reply


@dataclass(frozen=True)
class Provider:
    name: str
    key: str
    alias: str  # the model id a study names
    url_option: str  # the backend option that points it at the fake, and the fake's attribute holding it
    fake_url: str
    debug_env: tuple[str, str]  # what would make the SDK log request headers

    def backend(self, fake, **opts):
        return create_backend(self.name, self.alias, **{self.url_option: getattr(fake, self.fake_url)}, **opts)

    def query(self, i=0, **kw):
        return shopper_query(i, model_id=self.alias, **kw)


PROVIDERS = [Provider("mistral", "mk-test-5ecret-0f-the-user", "mistral-small-latest", "server_url", "url",
                      ("MISTRAL_DEBUG", "1")),
             Provider("openai", "sk-test-5ecret-0f-the-openai-user", "gpt-4o-latest", "base_url", "base_url",
                      ("OPENAI_LOG", "debug"))]


@pytest.fixture(params=PROVIDERS, ids=lambda p: p.name)
def provider(request):
    return request.param


@pytest.fixture
def fake(fake_server, provider):
    return fake_server(provider.name, provider.key)


def test_success_reports_text_usage_and_first_token_logprobs(fake, provider):
    q = provider.query(logprobs=True, top_logprobs=3)
    reply = complete_once(provider.backend(fake), q)
    answer, p_yes = answer_for(query_cell(q))
    assert isinstance(reply, Reply)
    assert reply.text == answer
    assert reply.prompt_tokens > 0 and reply.completion_tokens == 1
    assert reply.extra["finish_reason"] == "length"
    assert set(reply.logprobs) == {"Yes", "No", " Yes"}
    assert reply.logprobs["Yes"] == pytest.approx(math.log(0.97 * p_yes))
    assert fake.served[query_cell(q)] == 1 and sum(fake.requests.values()) == 1


def test_non_yes_no_text_is_a_reply_not_an_error(fake, provider):
    fake.inject("text")
    reply = complete_once(provider.backend(fake), provider.query())
    assert reply.text == "Maybe, it depends on the price."


def test_one_client_per_event_loop(fake, provider):
    b = provider.backend(fake)
    assert isinstance(asyncio.run(b.complete(provider.query(1))), Reply)
    assert isinstance(asyncio.run(b.complete(provider.query(2))), Reply)  # a new loop gets a new client


def test_debug_logging_never_shows_the_key(fake, provider, monkeypatch, caplog):
    monkeypatch.setenv(*provider.debug_env)
    caplog.set_level(logging.DEBUG)
    complete_once(provider.backend(fake), provider.query())
    fake.inject("bad_key")
    with pytest.raises(BackendError):
        complete_once(provider.backend(fake), provider.query())
    assert provider.key not in caplog.text


def test_identical_batch_resubmission_reuses_the_job(fake, provider):
    """A run killed between creating a job and storing its id must not pay for the job twice."""
    qs = [provider.query(i) for i in range(3)]
    first, again, other = resubmitted_batch_ids(provider.backend(fake), qs)  # the last submits qs[:2]
    assert first == again != other
    assert fake.jobs_created == 2


def test_batch_mixing_models_is_refused(fake, provider):
    b = provider.backend(fake)
    with pytest.raises(ValueError, match="one model"):
        asyncio.run(b.submit_batch([provider.query(0), dataclasses.replace(provider.query(1), model_id="other")]))
