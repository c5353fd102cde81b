"""Rating scales and forced choice from the study through the engine to the store's table."""

import asyncio
import math
from types import SimpleNamespace

import pandas as pd
import pytest

from survey.backends.base import Reply
from survey.collect.engine import Engine, ModelRun
from survey.data.store import Store
from survey.data.table import cell_counts, validate_table
from survey.errors import SurveyError
from survey.study.design import build_design
from survey.study.spec import parse_study


def personas(_ref):
    template = "You are a shopper aged {age}. Answer ONLY 'Yes' or 'No'. Do not explain."
    return SimpleNamespace(name="p", personas=[SimpleNamespace(id=str(i), attributes={"age": 20 + i})
                                               for i in range(3)],
                           system_prompt=lambda p: template.format(age=p.attributes["age"]))


def paraphrases(ref):
    return SimpleNamespace(name=ref, message=ref, source=f"{ref}.yaml",
                           items=[SimpleNamespace(id=f"{ref[0]}{j}", text=f"{ref} text {j}") for j in range(3)])


def study(question, counts=(3, 3), reps=2):
    return parse_study({"name": "s", "store": "x.sqlite", "replicates": reps, "personas": {"set": "p"},
                        "messages": [{"id": "sneakers", "perturbations": "sneakers", "count": counts[0]},
                                     {"id": "boots", "perturbations": "boots", "count": counts[1]}],
                        "question": question, "models": [{"name": "m", "backend": "simulated"}]})


class Replies:
    """Answers from a function of the query; top logprobs over the digits 1-5."""

    def __init__(self, answer):
        self.answer = answer

    async def complete(self, q):
        return Reply(text=self.answer(q), model_id="x", logprobs={"4": math.log(0.6), "5": math.log(0.4)})

    async def aclose(self):
        pass


def collect(tmp_path, spec, answer):
    design = build_design(spec, personas, paraphrases)
    queries = list(design.queries(spec.models[0]))
    store = Store(tmp_path / "s.sqlite")
    eng = Engine(store, progress=False)
    asyncio.run(eng.run([ModelRun("s", "m", Replies(answer), queries, response=spec.question.response)]))
    return design, queries, validate_table(store.to_long_table("s"))


def test_likert_replies_are_scored_counted_and_exact_from_logprobs(tmp_path):
    spec = study({"type": "likert"})
    answers = {0: "4", 1: "0"}  # replicate 1 answers "0": invalid on 1-5, never clipped to 1
    design, queries, table = collect(tmp_path, spec, lambda q: answers[q.replicate])
    assert "Answer ONLY with a whole number from 1 to 5." in queries[0].system
    assert "'Yes'" not in queries[0].system
    assert "from 1 (definitely would not buy) to 5" in queries[0].user
    assert set(table["scale"]) == {"likert5"}
    assert table["answer"].dropna().eq(4).all() and table["answer"].isna().sum() == len(table) // 2
    assert table["expected"].dropna().eq(4.4).all() and table["p_yes"].isna().all()
    assert table["distribution"].iloc[0] == '{"1": 0.0, "2": 0.0, "3": 0.0, "4": 0.6, "5": 0.4}'
    cc = cell_counts(table, "m", "sneakers")
    assert (cc.theta == 4).all() and cc.n_invalid == 3 * 3


def test_custom_word_labels_reach_the_parser(tmp_path):
    spec = study({"type": "likert", "labels": ["No way", "Maybe", "Sure"]})
    _, queries, table = collect(tmp_path, spec, lambda q: "Sure." if q.replicate == 0 else "Maybe")
    assert queries[0].response_type.labels[3] == "Sure"
    assert set(table["scale"]) == {"likert3"} and set(table["answer"]) == {3, 2}


def test_choice_asks_both_orders_and_stores_what_was_shown(tmp_path):
    spec = study({"type": "choice"}, reps=1)
    _, queries, table = collect(tmp_path, spec, lambda q: "1" if q.message == "sneakers" else "Option 1")
    assert len(queries) == 3 * 3 * 2  # personas x pairs x orders
    q = queries[0]
    assert (q.message, q.perturbation, q.second, q.second_perturbation) == ("sneakers", "s0", "boots", "b0")
    assert 'Option 1: "sneakers text 0"' in q.user and 'Option 2: "boots text 0"' in q.user
    assert "Answer ONLY '1' or '2'." in q.system
    flipped = table[(table["message"] == "boots") & (table["perturbation"] == "b0")].iloc[0]
    assert (flipped["second"], flipped["second_perturbation"], flipped["order"]) == ("sneakers", "s0", "boots|sneakers")
    assert flipped["answer"] == 1 and flipped["chosen"] == "boots"
    assert set(table["scale"]) == {"choice"}


@pytest.mark.parametrize(("counts", "fragment"), [((3, 2), "same count"), ])
def test_choice_needs_paired_paraphrases(counts, fragment):
    with pytest.raises(SurveyError, match=fragment):
        build_design(study({"type": "choice"}, counts=counts), personas, paraphrases)


def test_a_hand_made_table_names_its_scale():
    df = pd.DataFrame({"model": "m", "message": ["a"] * 2 + ["b"] * 2, "perturbation": ["1", "2"] * 2,
                       "persona": "p", "replicate": 0, "answer": [5, 3, 1, None]})
    with pytest.raises(SurveyError, match="`scale=`"):
        validate_table(df)
    out = validate_table(df, scale="likert5")
    assert set(out["scale"]) == {"likert5"} and out["answer"].isna().sum() == 1
    with pytest.raises(SurveyError, match="must be 1, 2, 3, 4, 5 or empty"):
        validate_table(df.assign(answer=[5, 0, 1, 2]), scale="likert5")
    with pytest.raises(SurveyError, match="not 'rating0-10'"):
        validate_table(out, scale="rating0-10")
