"""The lean read of a store (Store.read_study, load_source without provenance) gives the same analysis columns,
row order and completeness as the full read (to_long_table, load_source(provenance=True)), on Yes/No, likert
and forced-choice studies with failed rows, invalid answers, rows outside the design and rows without a
design place; Store.record_many writes rows in one transaction and never overwrites a reply."""

import pandas as pd
import pytest
from partial_store import context, fill

from survey.data.sources import load_source
from survey.data.store import Store
from survey.errors import SurveyError


def compare_reads(path, study=None):
    lean, full = load_source(path, study), load_source(path, study, provenance=True)
    assert {"response", "logprobs", "extra", "prompt_hash", "created_at"} <= set(full.table.columns)
    assert not {"response", "logprobs", "extra", "prompt_hash", "created_at"} & set(lean.table.columns)
    full_table = full.table[list(lean.table.columns)].astype({"p_yes": float})  # all-None p_yes reads as object there
    pd.testing.assert_frame_equal(lean.table, full_table)
    assert lean.completeness.to_dict() == full.completeness.to_dict() and lean.study == full.study
    return lean


def test_yes_no_store_with_failures_invalid_answers_outside_rows_and_no_seq(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        st.record_context("st", context(6))
        st.record_backend("st", "m", "openai")
        fill(st, 6, upto=50)
        st.record(("st", "m", "A", "a1", "p5", 1), status="failed", error="blocked", error_code="content_filter")
        st.record(("st", "m", "B", "b2", "p5", 0), status="failed", error="HTTP 500")  # no code
        st.record(("st", "m", "A", "a3", "p5", 0), status="ok", response="Maybe", answer=None)  # invalid, no seq
        st.record(("st", "m", "B", "b9", "p1", 0), status="ok", response="Yes", answer=1, seq=999)  # cut paraphrase
        st.record(("st", "m", "A", "a1", "p77", 0), status="ok", response="No", answer=0, p_yes=0.25)  # cut persona
    src = compare_reads(path)
    assert src.table["backend"].eq("openai").all() and src.table["answer"].isna().sum() == 1
    assert src.completeness.outside["rows"] == 2 and src.completeness.models[0].failures == {
        "content_filter": 1, "unknown error": 1}
    assert src.table["seq"].isna().iloc[-1]  # rows without a design place come last, as the store orders them


@pytest.mark.parametrize("scale,answers", [("likert5", [1, 5, None, 3]), ("choice", [1, 2, None, 1])])
def test_scales_whose_columns_come_from_the_extra_json(tmp_path, scale, answers):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        st.record_scale("st", scale)
        seq = 0
        for persona in ("p0", "p1"):
            for msg, other in (("A", "B"), ("B", "A")):
                for j, answer in enumerate(answers):
                    extra = {"distribution": {"1": 0.5, "10": 0.25, "2": 0.25}} if scale == "likert5" else \
                        {"second": other, "second_perturbation": f"{other.lower()}{j}"}
                    st.record(("st", "m", msg, f"{msg.lower()}{j}", persona, 0), status="ok", answer=answer,
                              response=str(answer), p_yes=2.5 if scale == "likert5" else None, extra=extra, seq=seq)
                    seq += 1
    src = compare_reads(path)
    assert ("distribution" in src.table) == (scale == "likert5")
    assert ("chosen" in src.table) == (scale == "choice")


def test_one_study_of_several_and_an_empty_store(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        fill(st, 2, study="one")
        fill(st, 3, study="two")
    assert len(compare_reads(path, "two").table) == 3 * 6 * 2
    with Store(tmp_path / "e.sqlite") as st:
        assert st.read_study()[0] is None
    with pytest.raises(SurveyError, match="no answered queries"):
        load_source(tmp_path / "e.sqlite")


def test_record_many_is_one_transaction_and_keeps_replies(tmp_path):
    k = ("st", "m", "A", "a1", "p0", 0)
    with Store(tmp_path / "s.sqlite") as st:
        st.record(k, status="ok", response="No", answer=0)
        rows = [{"key": k, "status": "ok", "response": "Yes", "answer": 1},  # held: stays No
                {"key": (*k[:5], 1), "status": "failed", "error": "x", "error_code": "500"},
                {"key": (*k[:5], 2), "status": "ok", "answer": 1, "logprobs": {"Yes": -0.1}, "extra": {"a": 1}}]
        assert st.record_many(rows) == 2
        with pytest.raises(ValueError):  # a bad row stops the batch, and nothing of it is written
            st.record_many([{"key": (*k[:5], 3), "status": "ok"}, {"key": k[:3], "status": "ok"}])
        got = st.db.execute("SELECT replicate, status, answer, logprobs, attempts FROM responses ORDER BY 1").fetchall()
    assert got == [(0, "ok", 0, None, 1), (1, "failed", None, None, 1), (2, "ok", 1, '{"Yes": -0.1}', 1)]
