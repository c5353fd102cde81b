"""Runs of studies with several questions: each (cell, question) stored once under its own key, an interrupted
run resumed without sending anything twice, and the conversation flow sent to the chat backends as message
lists (the fake servers record what they received), a resumed conversation reusing its stored turns."""

import asyncio
import json
import signal
import threading
from collections import Counter

import pytest
from fakes.mistral_server import MistralFake
from fakes.openai_server import OpenAIFake
from gated_backend import Gate
from shoe_study import shoe_study_toml
from test_engine_providers import MKEY, OKEY, Sleeps

from survey.api.study import Study
from survey.collect.engine import Engine
from survey.collect.run_plan import make_plan
from survey.collect.runner import collect
from survey.data.scale_columns import table_scale
from survey.data.sources import load_source
from survey.data.store import Store
from survey.errors import SurveyError
from survey.study.spec import load_study

QUESTIONS = """
[[questions]]
id = "intent"
type = "binary"

[[questions]]
id = "appeal"
type = "likert"
points = 5
"""


def write(tmp_path, models: str, *, top: str = "", personas: int = 3, per: int = 2, r: int = 2):
    path = tmp_path / "study.toml"
    path.write_text(top + shoe_study_toml("qs", "store.sqlite", replicates=r, personas=personas, paraphrases=per)
                    + QUESTIONS + models)
    return path


SIM = '[[models]]\nname = "sim"\nbackend = "simulated"\nseed = 5\nconcurrency = 4\n'


def test_each_question_is_stored_under_its_own_key_with_its_scale(tmp_path):
    study = Study.from_toml(write(tmp_path, SIM))
    run = study.run()
    assert run.stored == 3 * 4 * 2 * 2
    src = load_source(study.store_path)
    assert src.questions == ["intent", "appeal"]
    assert src.table.groupby("question")["scale"].unique().map(list).to_dict() == {"intent": ["binary"],
                                                                                   "appeal": ["likert5"]}
    appeal = src.for_question("appeal")
    assert set(appeal.table["question"]) == {"appeal"} and appeal.scale == "likert5"
    assert appeal.study_context.question["id"] == "appeal" and appeal.study_context.primary is None
    assert [q["id"] for q in src.study_context.questions] == ["intent", "appeal"]
    assert src.study_context.flow == "independent" and src.study_context.family == "holm"
    with Store(study.store_path, read_only=True) as st:
        assert st.scales("qs") == {"intent": "binary", "appeal": "likert5"}
    with pytest.raises(SurveyError, match=r"holds 2 questions \(intent, appeal\).*for_question\('intent'\)"):
        table_scale(src.table)  # no one test pools the answers of two questions
    assert study.run().report is None  # nothing left to send


def test_an_interrupted_run_resumes_per_question_without_sending_anything_twice(tmp_path):
    study = Study.from_toml(write(tmp_path, SIM, personas=4, per=3))
    total = 4 * 6 * 2 * 2
    sent = Counter()
    from survey.backends.simulated import SimulatedBackend

    original = SimulatedBackend.complete

    async def counting(backend, query):
        sent[query.key] += 1
        return await original(backend, query)

    SimulatedBackend.complete = counting
    try:
        with Gate(after=37) as gate:
            def interrupt():
                gate.held.wait()
                signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

            watcher = threading.Thread(target=interrupt, daemon=True)
            watcher.start()
            first = study.run()
            watcher.join()
        assert first.interrupted
        rest = study.run()
    finally:
        SimulatedBackend.complete = original
    assert rest.report.models["sim"].skipped == 37 and rest.stored == total - 37
    answered = {k for k, n in sent.items()}
    with Store(study.store_path, read_only=True) as st:
        stored = st.done_keys("qs")
    assert len(stored) == total and answered >= stored
    # every key answered once: the held query (cancelled, never answered) is the only one sent twice
    assert sum(n > 1 for n in sent.values()) <= 1
    assert {k[6] for k in stored} == {"intent", "appeal"}


def conversation_study(tmp_path, backend: str, model_id: str, options: dict, *, order: str = "fixed"):
    opts = ", ".join(f"{k} = {json.dumps(v)}" for k, v in options.items())
    models = (f'[[models]]\nname = "chat"\nbackend = "{backend}"\nmodel_id = "{model_id}"\nseed = 3\n'
              f"concurrency = 4\noptions = {{ {opts} }}\n")
    return load_study(write(tmp_path, models, top=f'flow = "conversation"\nquestion_order = "{order}"\n',
                            personas=2, per=2, r=1))


def run_engine(study):
    with Store(study.store_path) as store:
        eng = Engine(store, progress=False, base_delay=0.01, max_delay=0.05, sleep=Sleeps())
        asyncio.run(collect(eng, make_plan(study, store)))
        return eng.report


class Recorder:
    """A fault rule that never fires: it records every chat request body the fake receives."""

    def __init__(self):
        self.bodies = []

    def __call__(self, body) -> bool:
        self.bodies.append(body)
        return False


CHAT = [("openai", OpenAIFake, "gpt-4o-mini-latest", OKEY, "OPENAI_API_KEY", "base_url"),
        ("mistral", MistralFake, "mistral-small-latest", MKEY, "MISTRAL_API_KEY", "server_url")]


@pytest.mark.parametrize("backend, fake_class, model_id, key, var, url_option", CHAT, ids=[c[0] for c in CHAT])
def test_a_conversation_is_sent_as_a_message_list_and_resumes_from_its_stored_turns(
        tmp_path, monkeypatch, backend, fake_class, model_id, key, var, url_option):
    monkeypatch.setenv(var, key)
    with fake_class(api_key=key) as fake:
        url = fake.base_url if url_option == "base_url" else fake.url
        study = conversation_study(tmp_path, backend, model_id, {url_option: url, "timeout": 5})
        seen = Recorder()
        fake.inject("content_filter", times=None, match=seen)  # records, never fires
        # the second turn of one conversation (persona 0, the first boots paraphrase) is refused: not retried
        fake.inject("content_filter", times=1,
                    match=lambda body: len(body["messages"]) == 4 and "boots" in body["messages"][1]["content"]
                    and "Age 25" in body["messages"][0]["content"])
        first = run_engine(study)
        assert first.models["chat"].stored == 2 * 4 * 2 - 1 and first.models["chat"].failed == 1
        with Store(study.store_path, read_only=True) as st:
            table = st.to_long_table("qs")
        assert list(table["position"].astype(int).unique()) == [0, 1]
        turns = {len(b["messages"]) for b in seen.bodies}
        assert turns == {2, 4}  # [system, intent] and [system, intent, its reply, appeal]
        for body in seen.bodies:
            roles = [m["role"] for m in body["messages"]]
            assert roles in (["system", "user"], ["system", "user", "assistant", "user"])
            if len(roles) == 4:
                asked, replied = body["messages"][1]["content"], body["messages"][2]["content"]
                row = table[(table["question"] == "intent") & table["response"].notna()]
                # the reply in context is the stored reply to that very question
                assert replied in set(row["response"]) and "Yes' or 'No'" in asked
                assert "from 1 (definitely would not buy) to 5" in body["messages"][3]["content"]
        before = len(seen.bodies)
        again = run_engine(study)
        assert again.models["chat"].stored == 1 and again.models["chat"].skipped == 15
        resent = seen.bodies[before:]
        assert len(resent) == 1 and len(resent[0]["messages"]) == 4  # only the missing turn, its context reused
        stored_intent = table[(table["question"] == "intent") & (table["message"] == "boots")
                              & (table["persona"] == "0") & (table["position"] == 0)]
        assert resent[0]["messages"][2]["content"] in set(stored_intent["response"])


def test_each_ssr_question_is_rated_with_its_own_anchors(tmp_path, monkeypatch):
    """Rating after the run once read the primary question only: a second ssr question stayed unrated."""
    from fakes.embedder import WordHashEmbedder

    from survey.collect import similarity_rating

    monkeypatch.setattr(similarity_rating, "create_embedder", lambda name: WordHashEmbedder())
    spec = {"name": "words", "store": str(tmp_path / "w.sqlite"), "replicates": 1,
            "personas": {"set": "shoppers", "count": 3},
            "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": 2},
                         {"id": "boots", "perturbations": "boots", "count": 2}],
            "questions": [{"id": "intent", "type": "binary"}, {"id": "words", "type": "ssr", "points": 5},
                          {"id": "words3", "type": "ssr", "points": 3, "anchors": "purchase_intent3"}],
            "models": [{"name": "sim", "backend": "simulated", "seed": 4}]}
    anchors = tmp_path / "anchors"
    anchors.mkdir()
    (anchors / "purchase_intent3.yaml").write_text(
        "points: 3\nsets:\n  - id: plain\n    statements:\n      - I would not buy it.\n"
        "      - I am not sure whether I would buy it.\n      - I would buy it.\n")
    study = Study.from_spec(spec, base_dir=tmp_path)
    study.run(yes=True)
    table = study.load().table
    for qid, points in (("words", 5), ("words3", 3)):
        rows = table[table["question"] == qid]
        assert len(rows) == 12 and rows["expected"].notna().all() and rows["answer"].between(1, points).all()
    assert table.loc[table["question"] == "intent", "scale"].eq("binary").all()
