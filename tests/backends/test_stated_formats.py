"""A stated-distribution question (elicit = "distribution") asks each provider for JSON through its own
structured-output or JSON mode, sent by the real SDK to the fake server on 127.0.0.1, which records the
request; the reply comes back as text for the engine's strict parser (survey.responses.stated)."""


import pytest
from fakes.common import complete_once, shopper_query

from survey.backends import create_backend
from survey.responses import BINARY, likert
from survey.responses.stated import StatedDistribution, parse_distribution

STATED = StatedDistribution(BINARY)
REPLY = '{"Yes": 0.7, "No": 0.3}'
SCHEMA = {"type": "object", "additionalProperties": False, "required": ["Yes", "No"],
          "properties": {"Yes": {"type": "number", "minimum": 0, "maximum": 1},
                         "No": {"type": "number", "minimum": 0, "maximum": 1}}}


def stated_query(model_id, response=STATED, **kw):
    user = response.question("Would you buy {perturbation}?").format(perturbation="sneakers")
    return shopper_query(model_id=model_id, response=response, max_tokens=response.max_tokens, user=user, **kw)


@pytest.mark.parametrize("http", ["aiohttp", "sdk"])
def test_openai_asks_for_the_json_schema_of_the_options(fake_server, http):
    fake = fake_server("openai", "sk-test-key")
    fake.inject("text", text=REPLY)
    backend = create_backend("openai", "gpt-4o-mini", base_url=fake.base_url, http=http)
    reply = complete_once(backend, stated_query("gpt-4o-mini"))
    fmt = fake.bodies[-1]["response_format"]
    assert fmt == {"type": "json_schema", "json_schema": {"name": "stated_distribution", "strict": True,
                                                          "schema": SCHEMA}}
    assert parse_distribution(BINARY.labels, reply.text) == ({1: 0.7, 0: 0.3}, None)


def test_openai_answer_questions_send_no_response_format(fake_server):
    fake = fake_server("openai", "sk-test-key")
    complete_once(create_backend("openai", "gpt-4o-mini", base_url=fake.base_url), shopper_query(model_id="gpt-4o-mini"))
    assert "response_format" not in fake.bodies[-1]


def test_dashscope_compatible_mode_asks_for_json_mode(fake_server):
    fake = fake_server("openai", "sk-test-key")
    backend = create_backend("openai", "qwen-plus", base_url=fake.base_url, preset="dashscope-compatible",
                             api_key_env="OPENAI_API_KEY")
    complete_once(backend, stated_query("qwen-plus"))
    assert fake.bodies[-1]["response_format"] == {"type": "json_object"}
    assert "JSON" in fake.bodies[-1]["messages"][-1]["content"]  # JSON mode refuses a prompt without the word


def test_mistral_asks_for_its_custom_structured_output(fake_server):
    fake = fake_server("mistral", "mk-test-key")
    fake.inject("text", text=REPLY)
    backend = create_backend("mistral", "mistral-small-latest", server_url=fake.url)
    reply = complete_once(backend, stated_query("mistral-small-latest"))
    fmt = fake.bodies[-1]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"] == SCHEMA
    assert fmt["json_schema"]["strict"] is True and fmt["json_schema"]["name"] == "stated_distribution"
    assert reply.text == REPLY


def test_dashscope_native_asks_for_json_mode(fake_server):
    fake = fake_server("dashscope", "sk-ds-key")
    fake.inject("text", text=REPLY)
    backend = create_backend("dashscope", "qwen-plus", base_url=fake.base_url)
    reply = complete_once(backend, stated_query("qwen-plus"))
    assert fake.last_parameters["response_format"] == {"type": "json_object"}
    assert reply.text == REPLY


def test_the_schema_names_a_scale_s_own_words():
    scale = StatedDistribution(likert(3, labels=["No way", "Maybe", "Sure"]))
    assert scale.json_schema()["required"] == ["No way", "Maybe", "Sure"]


