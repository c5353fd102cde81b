"""De-duplication and LLM generation of personas and paraphrases, against a scripted in-process backend."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import types

import pytest
import yaml
from cli_result import run_cli

from survey import backends
from survey.backends.base import Backend, BackendError, Query, Reply
from survey.errors import SurveyError
from survey.registry import load_persona_set, load_perturbation_set
from survey.registry.dedup import (
    NEAR_THRESHOLD,
    Deduplicator,
    dedupe,
    near_duplicate_pairs,
    normalise,
    similarity,
)
from survey.registry.generate import (
    generate_paraphrases,
    generate_personas,
    parse_paraphrases,
    parse_personas,
)


class FakeBackend:
    """Replies from a script, in order; records every query. An exception in the script is raised."""

    name = "fake"
    script: list = []  # the CLI creates its own instance, so tests set the class-level script

    def __init__(self, model_id: str = "", **options):
        self.model_id = model_id
        self.queries: list[Query] = []
        self.replies = list(type(self).script)
        self.closed = False

    async def complete(self, query: Query) -> Reply:
        self.queries.append(query)
        item = self.replies.pop(0) if self.replies else "[]"
        if isinstance(item, BaseException):
            raise item
        return Reply(text=item, model_id=self.model_id, prompt_tokens=10, completion_tokens=5)

    async def aclose(self) -> None:
        type(self).last = self
        self.closed = True


def run(coro):
    return asyncio.run(coro)


# ---- dedup -----------------------------------------------------------------------------------------

def test_normalise_ignores_case_punctuation_quotes_and_spacing():
    assert normalise("  I\u2019d like   BOOTS!! ") == normalise("i'd like boots") == "id like boots"
    assert similarity("I want boots.", "i want boots") == 1.0


def test_dedupe_reports_exact_and_near_with_reasons():
    texts = ["I want to buy some boots.", "i want to buy some BOOTS", "I want to buy some bootz.",
             "I need new sneakers."]
    result = dedupe(texts)
    assert result.kept == ["I want to buy some boots.", "I need new sneakers."]
    (exact, near) = result.removed
    assert (exact.text, exact.reason, exact.duplicate_of, exact.similarity) == (
        "i want to buy some BOOTS", "exact", "I want to buy some boots.", 1.0)
    assert (near.reason, near.duplicate_of) == ("near", "I want to buy some boots.")
    assert NEAR_THRESHOLD <= near.similarity < 1.0
    # a stricter-than-default threshold keeps the typo variant
    assert len(dedupe(texts, threshold=0.99).kept) == 3


def test_default_threshold_keeps_every_paraphrase_the_paper_accepted():
    for name in ("sneakers", "boots"):
        texts = load_perturbation_set(name).texts
        assert dedupe(texts).removed == []
        assert near_duplicate_pairs(texts) == []
    # ... while a looser threshold does flag the paper's closest pair, so the check above can fail
    pairs = near_duplicate_pairs(load_perturbation_set("sneakers").texts, 0.94)
    assert (0, 47, 0.9429) in pairs  # "...buy a pair of sneakers." vs "...buy a new pair of sneakers."


def test_existing_texts_block_but_are_not_returned():
    d = Deduplicator(existing=["I want boots."])
    assert d.offer("I want boots!").reason == "exact"
    assert d.offer("I'd like sneakers.") is None
    assert d.kept == ["I'd like sneakers."]
    with pytest.raises(ValueError, match="threshold"):
        Deduplicator(threshold=0)


# ---- parsing model replies -------------------------------------------------------------------------

def test_parse_paraphrases_json_fenced_list_and_garbage():
    texts, invalid = parse_paraphrases('Sure!\n```json\n["I want boots.", 3, "", {"text": "Boots, please."}]\n```', 1)
    assert texts == ["I want boots.", "Boots, please."]
    assert sorted(i.reason for i in invalid) == ["empty", "not a string"]
    texts, invalid = parse_paraphrases("Here are some:\n1. I want boots.\n2) \"Boots for me.\"\n- Gimme boots", 2)
    assert texts == ["I want boots.", "Boots for me.", "Gimme boots"]
    assert [(i.raw, i.attempt) for i in invalid] == [("Here are some:", 2)]
    texts, invalid = parse_paraphrases("I cannot help with that.", 3)
    assert texts == [] and invalid[0].reason == "not a JSON string or a list item"


def test_parse_personas_validates_each_record():
    attrs = ["age", "gender", "income"]
    reply = json.dumps([
        {"age": "34", "gender": "female", "income": "Medium", "id": 99, "hobby": "x"},
        {"age": 12, "gender": "male", "income": "low"},
        {"age": 40, "gender": "male"},
        {"age": 40, "gender": "male", "income": "rich"},
        {"age": 50, "gender": " ", "income": "low"},
        "a string",
    ])
    records, invalid = parse_personas(reply, attrs, 1)
    assert records == [{"age": 34, "gender": "female", "income": "medium"}]  # cleaned, extra keys dropped
    reasons = [i.reason for i in invalid]
    assert reasons[0].startswith("age must be an integer") and reasons[1] == "missing income"
    assert reasons[2].startswith("income must be low, medium or high") and reasons[3].startswith("gender must")
    assert reasons[4] == "not a JSON object"
    records, invalid = parse_personas('{"age": 30, "gender": "male", "income": "low"}\nnot json\n', attrs, 2)
    assert len(records) == 1 and invalid[0].reason == "not a JSON object"


# ---- generation loop -------------------------------------------------------------------------------

MESSAGE = "I\u2019d like to buy a pair of boots."


def test_generate_paraphrases_asks_again_until_count_and_reports():
    backend = FakeBackend("m")
    backend.replies = [
        json.dumps(["I want to buy some boots.", "I want to buy some boots!", "I'd like to buy a pair of boots.",
                    "I want to buy some bootz.", 42]),
        "Absolutely, here you go:\n1. I'm after some boots.\n2. I want to buy some boots.",
        "total garbage",
        '["Boots are what I wish to purchase.", "Purchasing boots is my plan.", "Extra one."]',
    ]
    seen = []
    result = run(generate_paraphrases(backend, MESSAGE, 5, model_id="m", model="fake:m", seed=7, temperature=0.7,
                                      on_progress=lambda done, total, n: seen.append((done, total, n))))
    assert result.kept == [MESSAGE, "I want to buy some boots.", "I'm after some boots.",
                           "Boots are what I wish to purchase.", "Purchasing boots is my plan."]
    assert result.complete and result.attempts == 4 and len(backend.queries) == 4
    removed = {(r.text, r.reason) for r in result.removed}
    assert removed == {("I want to buy some boots!", "exact"), ("I'd like to buy a pair of boots.", "exact"),
                       ("I want to buy some bootz.", "near"), ("I want to buy some boots.", "exact")}
    assert {i.reason for i in result.invalid} == {"not a string", "not a JSON string or a list item"}
    assert seen == [(2, 5, 1), (3, 5, 2), (3, 5, 3), (5, 5, 4)]
    q = backend.queries[-1]
    assert [x.seed for x in backend.queries] == [7, 8, 9, 10] and q.temperature == 0.7 and q.max_tokens >= 1000
    assert "- I'm after some boots." in q.user and "Write 4 different paraphrases" in q.user  # 2 missing + 2
    assert result.prompt_tokens == 40 and result.to_dict()["kept"] == 5


def test_generate_paraphrases_stops_at_max_attempts():
    backend = FakeBackend()
    backend.replies = ['["I want boots."]', '["I want boots."]', '["i want boots"]']
    result = run(generate_paraphrases(backend, "Boots, please.", 4, max_attempts=3))
    assert not result.complete and result.attempts == 3 and len(result.kept) == 2
    assert [r.reason for r in result.removed] == ["exact", "exact"]


def test_backend_errors_retry_or_stop():
    backend = FakeBackend()
    backend.replies = [BackendError("busy", retryable=True, status=429, retry_after=0), '["I want boots."]']
    result = run(generate_paraphrases(backend, "Boots, please.", 2, include_message=False))
    assert result.kept == ["I want boots."] and result.invalid[0].reason.startswith("request failed, will retry")
    backend.replies = [BackendError("bad key", retryable=False, status=401)]
    with pytest.raises(SurveyError, match="refused the request"):
        run(generate_paraphrases(backend, "Boots, please.", 2))


def test_without_the_message_it_is_still_excluded():
    backend = FakeBackend()
    backend.replies = ['["Boots, please!", "I want boots."]']
    result = run(generate_paraphrases(backend, "Boots, please.", 1, include_message=False))
    assert result.kept == ["I want boots."] and result.removed[0].duplicate_of == "Boots, please."


def test_generate_personas_validates_and_deduplicates():
    good = {"age": 30, "gender": "female", "occupation": "Nurse", "income": "medium", "marital_status": "single"}
    backend = FakeBackend()
    backend.replies = [
        "```json\n" + json.dumps([good, dict(good, gender="FEMALE"), dict(good, income="lots"),
                                  dict(good, age=31)]) + "\n```",
        "nonsense",
        json.dumps([dict(good, age=32), dict(good, age=33), dict(good, age=34)]),
    ]
    attrs = ["age", "gender", "occupation", "income", "marital_status"]
    result = run(generate_personas(backend, 4, attrs, seed=1))
    assert [p.id for p in result.kept] == ["0", "1", "2", "3"]
    assert [p.age for p in result.kept] == [30, 31, 32, 33] and result.kept[0].income == "medium"
    assert [r.reason for r in result.removed] == ["exact"]
    assert {i.reason.split(" ")[0] for i in result.invalid} == {"income", "not"}
    assert result.attempts == 3 and "age: an integer" in backend.queries[0].user
    assert '"age": 31' in backend.queries[2].user  # already-kept personas are shown to the model


# ---- CLI end to end --------------------------------------------------------------------------------

@pytest.fixture
def fake_model(monkeypatch):
    module = types.ModuleType("fake_backend_for_tests")
    module.FakeBackend = FakeBackend
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(backends.BACKENDS, "fake", f"{module.__name__}:FakeBackend")
    assert isinstance(FakeBackend(), Backend)
    return FakeBackend


def test_cli_perturbations_generate(fake_model, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fake_model.script = ['["I want some new boots.", "I WANT some new boots", "I want some new bootz.", null, ""]',
                         "1. Boots are on my list.\n2. I plan to buy boots."]
    args = ["perturbations", "generate", "--model", "fake:paraphraser", "--message", "I need boots.", "--count",
            "4", "--out", "perturbations/mine.yaml", "--seed", "3", "--param", "enable_thinking=false"]
    code, out, _ = run_cli(capsys, *args, "--json")
    assert code == 0, out
    info = json.loads(out)
    assert info["kept"] == 4 and info["complete"] and info["attempts"] == 2
    assert {(r["text"], r["reason"]) for r in info["removed"]} == {("I WANT some new boots", "exact"),
                                                                   ("I want some new bootz.", "near")}
    assert [i["reason"] for i in info["invalid"]] == ["not a string", "empty"]
    assert fake_model.last.closed and fake_model.last.queries[0].params == {"enable_thinking": False}
    s = load_perturbation_set("mine")  # found in ./perturbations
    assert s.message == "mine" and [p.id for p in s.items] == ["mine-01", "mine-02", "mine-03", "mine-04"]
    assert s.texts == ["I need boots.", "I want some new boots.", "Boots are on my list.", "I plan to buy boots."]
    assert "fake:paraphraser" in yaml.safe_load((tmp_path / "perturbations/mine.yaml").read_text())["description"]
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "perturbations/mine.yaml").stat().st_mode & 0o777 == 0o666 & ~umask  # not owner-only
    # never overwrite silently, and refuse before asking the model
    fake_model.script = [RuntimeError("must not be called")]
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and "already exists" in err and "--force" in err
    # an incomplete run keeps what it got but says so and exits 1
    fake_model.script = ['["Boots for me."]']
    code, out, err = run_cli(capsys, *args, "--force", "--max-attempts", "1")
    assert code == 1 and "only 2 of 4" in err and "wrote 2 paraphrases" in out
    assert load_perturbation_set("mine").texts == ["I need boots.", "Boots for me."]


def test_cli_personas_generate(fake_model, capsys, tmp_path):
    fake_model.script = [json.dumps([{"name": "Ann", "age": 40}, {"name": "Bob", "age": 9},
                                     {"name": "ann", "age": 40}, {"name": "Cy", "age": 51}])]
    out = tmp_path / "people.jsonl"
    code, stdout, _ = run_cli(capsys, "personas", "generate", "--model", "fake:m", "--count", "2", "--out", str(out),
                              "--template", "You are {name}, {age}.", "--population", "voter")
    assert code == 0, stdout
    assert "removed 1 duplicate" in stdout and "dropped 1 invalid" in stdout and "wrote 2 personas" in stdout
    s = load_persona_set(out)
    assert s.template == "You are {name}, {age}." and [s.system_prompt(p) for p in s.personas] == [
        "You are Ann, 40.", "You are Cy, 51."]
    assert "voter personas" in fake_model.last.queries[0].user
    code, _, err = run_cli(capsys, "personas", "generate", "--model", "fake:m", "--count", "2", "--out",
                           str(tmp_path / "x.jsonl"), "--template", "Hi {}")
    assert code == 2 and "--template" in err
    fake_model.script = ["no personas here"]
    code, _, err = run_cli(capsys, "personas", "generate", "--model", "fake:m", "--count", "2", "--out",
                           str(tmp_path / "y.jsonl"), "--max-attempts", "1")
    assert code == 2 and "nothing written" in err and not (tmp_path / "y.jsonl").exists()
    code, _, err = run_cli(capsys, "personas", "generate", "--model", "nosuch:m", "--count", "2", "--out",
                           str(tmp_path / "z.jsonl"))
    assert code == 2 and "unknown backend" in err


def test_interrupted_generation_keeps_what_arrived(fake_model, capsys, tmp_path):
    backend = FakeBackend()
    backend.replies = ['["I want some boots."]', asyncio.CancelledError()]
    result = run(generate_paraphrases(backend, "Boots, please.", 5))
    assert result.interrupted and result.attempts == 2 and result.kept == ["Boots, please.", "I want some boots."]
    # the CLI writes them and exits 130 (as for Ctrl-C)
    fake_model.script = ['["I want some boots."]', asyncio.CancelledError()]
    out = tmp_path / "b.yaml"
    code, _, err = run_cli(capsys, "perturbations", "generate", "--model", "fake:m", "--message", "Boots, please.",
                           "--count", "5", "--out", str(out))
    assert code == 130 and "interrupted: kept the 2 paraphrases" in err and fake_model.last.closed
    assert load_perturbation_set(out).texts == ["Boots, please.", "I want some boots."]


def test_generate_sets_from_python(fake_model):
    from survey.registry.generate_sets import generate_persona_set, generate_perturbation_set

    fake_model.script = ['["I want some boots.", "Boots for me."]']
    seen = []
    pset, result = generate_perturbation_set("fake:m", "Boots, please.", 3, "shoes", message_id="boots",
                                             on_progress=lambda *a: seen.append(a))
    assert [p.id for p in pset.items] == ["boots-01", "boots-02", "boots-03"] and pset.name == "shoes"
    assert pset.texts == ["Boots, please.", "I want some boots.", "Boots for me."] and result.complete
    assert seen == [(0, 3, 0), (3, 3, 1)] and fake_model.last.closed  # ready, then after each request
    fake_model.script = [json.dumps([{"name": "Ann", "age": 40}])]
    people, result = generate_persona_set("fake:m", 1, "people", template="You are {name}, {age}.")
    assert [p.name for p in people.personas] == ["Ann"] and "1 shopper personas generated by fake:m" in people.description
    fake_model.script = ["nothing useful"]
    none, result = generate_persona_set("fake:m", 1, "people", template="You are {name}.", max_attempts=1)
    assert none is None and result.attempts == 1 and result.invalid
    with pytest.raises(SurveyError, match="--id 'bad id' is not a valid message id"):
        generate_perturbation_set("fake:m", "Hi.", 2, "x", message_id="bad id")
    before = fake_model.last
    with pytest.raises(SurveyError, match=r"count must be at most 1,000; got 1001 \(each new paraphrase"):
        generate_perturbation_set("fake:m", "Hi.", 1001, "x")  # the library refuses as the CLI does
    assert fake_model.last is before  # before a backend was made
