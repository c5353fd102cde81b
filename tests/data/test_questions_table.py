"""The long table's question axis: `survey export` writes the `question` (and a conversation's `position`)
column, the table reads back as the same questions, a table without the column is one question "q", and a
table whose questions are not the study's is refused in one line."""

import pandas as pd
import pytest
from cli_result import run_cli
from shoe_study import shoe_study_toml

from survey.api.study import Study
from survey.data.sources import Source, load_source
from survey.data.table import validate_table
from survey.errors import TableError

QUESTIONS = """
[[questions]]
id = "intent"
type = "binary"

[[questions]]
id = "appeal"
type = "likert"
points = 5

[[models]]
name = "sim"
backend = "simulated"
seed = 5
"""


def run(tmp_path, top: str = "") -> Study:
    path = tmp_path / "study.toml"
    path.write_text(top + shoe_study_toml("qs", "store.sqlite", replicates=2, personas=3, paraphrases=2) + QUESTIONS)
    study = Study.from_toml(path)
    study.run()
    return study


@pytest.mark.parametrize("top", ["", 'flow = "conversation"\nquestion_order = "random"\n'], ids=["independent",
                                                                                                "conversation"])
def test_export_round_trip_keeps_every_question(tmp_path, capsys, top):
    study = run(tmp_path, top)
    out = tmp_path / "table.csv"
    code, _, err = run_cli(capsys, "export", study.store_path, "--out", out)
    assert code == 0, err
    raw = pd.read_csv(out)
    assert set(raw["question"]) == {"intent", "appeal"}
    assert ("position" in raw.columns) == bool(top)
    if top:
        assert set(raw["position"]) == {0, 1}
    from_file, from_store = load_source(out), load_source(study.store_path)
    assert from_file.questions == ["intent", "appeal"] == from_store.questions
    key = ["model", "message", "perturbation", "persona", "replicate", "question"]
    for qid in ("intent", "appeal"):
        a = from_file.for_question(qid).table.sort_values(key).reset_index(drop=True)
        b = from_store.for_question(qid).table.sort_values(key).reset_index(drop=True)
        assert a[key].astype(str).equals(b[key].astype(str)) and a["answer"].equals(b["answer"])
        assert set(a["scale"]) == {"binary" if qid == "intent" else "likert5"}


def test_a_table_without_the_column_is_one_question_q():
    table = pd.DataFrame({"model": "m", "message": ["a", "a", "b", "b"], "perturbation": ["a1", "a2", "b1", "b2"],
                          "persona": "p", "replicate": 0, "answer": [1, 0, 1, 1]})
    out = validate_table(table)
    assert set(out["question"]) == {"q"}
    src = Source.of(out)
    assert src.questions == ["q"] and src.for_question("q").table.equals(src.table)
    with pytest.raises(Exception, match="no question 'intent': the source asks q"):
        src.for_question("intent")


def test_a_table_whose_questions_are_not_the_study_s_is_refused_in_one_line():
    table = pd.DataFrame({"model": "m", "message": ["a", "b"], "perturbation": ["a1", "b1"], "persona": "p",
                          "replicate": 0, "answer": [1, 0], "question": ["intent", "appeal"]})
    assert list(validate_table(table, 0, questions=["intent", "appeal"])["question"]) == ["intent", "appeal"]
    with pytest.raises(TableError) as exc:
        validate_table(table, 0, questions=["intent", "believable"])
    assert str(exc.value) == ("the table's question column holds appeal, which the study does not ask (its questions: "
                              "intent, believable); fix the column or give the study's own table")
    with pytest.raises(TableError, match="rows share a key"):
        validate_table(pd.concat([table, table]), 0)
    with pytest.raises(TableError, match="not a question id"):
        validate_table(table.assign(question=["intent", "my appeal"]), 0)
