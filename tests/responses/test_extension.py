"""A new response type is one class plus one `register` call: the spec, the design, the engine, the
store and the table validator pick it up without any other change."""

import asyncio
import math
from types import SimpleNamespace

import pandas as pd
import pytest

from survey.backends.base import Query, Reply
from survey.collect.engine import Engine, ModelRun
from survey.data.store import Store
from survey.data.table import invalid_answers, validate_table
from survey.errors import SurveyError, TableError
from survey.responses import RESPONSE_TYPES, ResponseType, register
from survey.study.design import build_design
from survey.study.spec import parse_study


class Agreement(ResponseType):
    scale = "agree-test"
    labels = {2: "Agree", 1: "Neutral", 0: "Disagree"}
    template = 'Someone said: "{perturbation}" Agree, Neutral or Disagree?'
    max_tokens = 2


@pytest.fixture
def agree():
    rtype = register(Agreement())
    yield rtype
    del RESPONSE_TYPES[rtype.scale]


class LabelBackend:
    """Answers with the labels in turn (and one reply that is none of them), by replicate."""

    name = "labels"
    REPLIES = ["Agree.", "**neutral**", "Disagree", "Hmm"]

    def __init__(self):
        self.seen = []

    async def complete(self, q: Query) -> Reply:
        self.seen.append(q)
        return Reply(text=self.REPLIES[q.replicate % 4], model_id="labels-1", completion_tokens=2,
                     logprobs={"Agree": -0.5, "Disagree": -1.5, "Neutral": -3.0})

    async def aclose(self):
        pass


def fake_personas(ref):
    people = [SimpleNamespace(id=f"p{i}") for i in range(2)]
    return SimpleNamespace(name=ref, personas=people, system_prompt=lambda p: f"You are {p.id}.")


def fake_perturbations(ref):
    items = [SimpleNamespace(id=f"{ref}-{j}", text=f"I want {ref} #{j}") for j in range(2)]
    return SimpleNamespace(name=ref, message=ref, items=items)


def study(question):
    return parse_study({"name": "ext", "store": "x.sqlite", "replicates": 4, "personas": {"set": "people"},
                        "messages": [{"perturbations": "A"}, {"perturbations": "B"}],
                        "question": question, "models": [{"name": "m", "backend": "simulated"}]})


def test_a_registered_type_runs_from_study_to_validated_table(agree, tmp_path):
    spec = study({"type": "agree-test"})
    assert spec.question.response is agree and spec.question.default_max_tokens == 2
    design = build_design(spec, fake_personas, fake_perturbations)
    queries = list(design.queries(spec.models[0]))
    backend = LabelBackend()
    with Store(tmp_path / "x.sqlite") as store:
        engine = Engine(store, progress=False)
        report = asyncio.run(engine.run([ModelRun("ext", "m", backend, queries, response=spec.question.response)]))
        rep = report.models["m"]
        assert (rep.scale, rep.stored, rep.valid, rep.invalid, rep.text) == ("agree-test", 32, 24, 8, 0)
        assert store.scale("ext") == "agree-test"
        summary = store.summary("ext")[0]
        assert (summary["scale"], summary["valid"], summary["invalid"], summary["text"]) == ("agree-test", 24, 8, 0)
        df = store.to_long_table("ext")
    # the question's template and reply length reached the backend
    assert all(q.scale == "agree-test" and q.max_tokens == 2 and q.user.startswith("Someone said:")
               for q in backend.seen)
    table = validate_table(df)
    by_reply = table.groupby("response")["answer"].first().to_dict()
    assert by_reply["Agree."] == 2 and by_reply["**neutral**"] == 1 and by_reply["Disagree"] == 0
    assert pd.isna(by_reply["Hmm"]) and invalid_answers(table) == 8
    # the exact score from first-token log-probabilities is the expected score over the labels
    mass = {2: math.exp(-0.5), 1: math.exp(-3.0), 0: math.exp(-1.5)}
    assert table["expected"].iloc[0] == pytest.approx((2 * mass[2] + mass[1]) / sum(mass.values()))
    # the validator checks answers against this scale's values
    bad = table.assign(answer=table["answer"].astype(object).where(table.index != 0, 3))
    with pytest.raises(TableError, match="rows of scale 'agree-test' must be 2 \\(Agree\\), 1 \\(Neutral\\), "
                                         "0 \\(Disagree\\) or empty"):
        validate_table(bad)


def test_an_unregistered_type_is_a_spec_error():
    with pytest.raises(SurveyError, match="question.type.*unknown response type 'agree-test'"):
        study({"type": "agree-test"})
