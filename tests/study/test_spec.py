import pytest

from survey.errors import SurveyError
from survey.kinds.binary.parsing import PAPER_QUESTION
from survey.responses import response_type
from survey.responses.text import TEXT_QUESTION
from survey.study.spec import load_study, parse_study

MINIMAL = """
name = "demo"
store = "out/demo.sqlite"
[personas]
set = "shoppers"
[[messages]]
id = "sneakers"
perturbations = "sneakers"
[[models]]
name = "sim"
backend = "simulated"
"""


def write(tmp_path, text, name="study.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_minimal_study_defaults(tmp_path):
    s = load_study(write(tmp_path, MINIMAL))
    assert s.replicates == 1 and s.question.mode == "binary"
    assert s.question.resolved_template == PAPER_QUESTION
    assert s.question.default_max_tokens == 1
    m = s.models[0]
    assert (m.temperature, m.max_tokens, m.batch, m.paid) == (1.0, None, False, False)
    # relative paths resolve against the study file's folder, not the cwd
    assert s.store_path == tmp_path / "out" / "demo.sqlite"
    assert s.registry_ref("shoppers") == "shoppers"
    assert s.registry_ref("data/p.jsonl") == str(tmp_path / "data" / "p.jsonl")


def test_parse_without_file_resolves_against_cwd(tmp_path, monkeypatch):
    import tomllib

    monkeypatch.chdir(tmp_path)
    s = parse_study(tomllib.loads(MINIMAL))
    assert s.store_path == tmp_path / "out" / "demo.sqlite"


def test_text_mode_defaults(tmp_path):
    s = load_study(write(tmp_path, MINIMAL + '\n[question]\nmode = "text"\nmax_tokens = 40\n'))
    assert s.question.resolved_template == TEXT_QUESTION
    assert s.question.default_max_tokens == 40


def test_question_type_key_with_mode_as_its_older_name(tmp_path):
    s = load_study(write(tmp_path, MINIMAL + '\n[question]\ntype = "text"\n'))
    assert s.question.type == s.question.mode == "text" and s.question.response is response_type("text")
    assert s.question.default_max_tokens == 80 and s.question.resolved_template == TEXT_QUESTION
    legacy = load_study(write(tmp_path, MINIMAL + '\n[question]\nmode = "text"\n', "legacy.toml"))
    assert legacy.question == s.question
    binary = load_study(write(tmp_path, MINIMAL + '\n[question]\ntype = "binary"\nmax_tokens = 3\n', "b.toml"))
    assert binary.question.default_max_tokens == 3  # the question's reply length applies to every type
    with pytest.raises(SurveyError, match="question: .*`type` \\(or its older name `mode`\\), not both"):
        load_study(write(tmp_path, MINIMAL + '\n[question]\ntype = "text"\nmode = "text"\n', "both.toml"))


def test_full_model_entry(tmp_path):
    text = MINIMAL + """
[[models]]
name = "qwen3-8b"
backend = "dashscope"
model_id = "qwen3-8b"
temperature = 0.7
max_tokens = 2
seed = 5
top_logprobs = 5
batch = false
concurrency = 32
rpm = 600
tpm = 100000
price_input = 0.2
price_output = 0.8
[models.params]
enable_thinking = false
[models.options]
api_key_env = "MY_KEY"
[budget]
max_cost = 3.5
"""
    s = load_study(write(tmp_path, text))
    m = s.model("qwen3-8b")
    assert m.params == {"enable_thinking": False} and m.options == {"api_key_env": "MY_KEY"}
    assert m.logprobs is True  # implied by top_logprobs
    assert m.paid and s.budget.max_cost == 3.5


@pytest.mark.parametrize("patch, fragments", [
    (("replicates = 1", "replicates = 0"), ["replicates", "greater than or equal to 1"]),
    (('backend = "simulated"', 'backend = "openia"'), ["models.0.backend", "unknown backend 'openia'"]),
    (('backend = "simulated"', 'backend = "mistral"'), ["set model_id"]),
    (('name = "sim"', 'name = "my model"'), ["models.0.name", "letters, digits"]),
    (('set = "shoppers"', 'sett = "shoppers"'), ["personas.set", "personas.sett"]),
    (('backend = "simulated"', 'backend = "simulated"\ntemperature = 5'), ["models.0.temperature"]),
    (('backend = "simulated"', 'backend = "simulated"\nbogus = 1'), ["models.0.bogus"]),
    (('[personas]', '[question]\ntemplate = "Would you buy it?"\n[personas]'),
     ["question.template", "{perturbation}"]),
    (('[personas]', '[question]\ntemplate = "{perturbation} {x}"\n[personas]'),
     ["question.template", "placeholder other than"]),
    (('[personas]', '[question]\nmode = "essay"\n[personas]'), ["question.mode"]),
    (('[personas]', '[question]\ntype = "essay"\n[personas]'), ["question.type", "unknown response type 'essay'"]),
    (('[personas]', '[budget]\nmax_cost = -1\n[personas]'), ["budget.max_cost"]),
])
def test_errors_name_the_field(tmp_path, patch, fragments):
    text = ("replicates = 1\n" + MINIMAL).replace(*patch, 1)
    with pytest.raises(SurveyError) as exc:
        load_study(write(tmp_path, text))
    msg = str(exc.value)
    assert msg.startswith(str(tmp_path / "study.toml"))
    for f in fragments:
        assert f in msg


def test_duplicate_names_rejected(tmp_path):
    text = MINIMAL + '\n[[models]]\nname = "sim"\nbackend = "simulated"\n'
    with pytest.raises(SurveyError, match="duplicate name.*sim"):
        load_study(write(tmp_path, text))


def test_missing_and_broken_files(tmp_path):
    with pytest.raises(SurveyError, match="no such study file"):
        load_study(tmp_path / "nope.toml")
    with pytest.raises(SurveyError, match="not valid TOML"):
        load_study(write(tmp_path, "name = [unclosed"))
    with pytest.raises(SurveyError, match="models"):
        load_study(write(tmp_path, MINIMAL.split("[[models]]")[0]))
