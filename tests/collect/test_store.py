import json

import pytest

from survey.data.store import Store
from survey.data.table import validate_table
from survey.errors import SurveyError

K = ("st", "m", "A", "A-01", "P1", 0, "q")  # the row key: the question "q" of a one-question study


def key(msg="A", pert="A-01", persona="P1", rep=0, model="m", study="st"):
    return (study, model, msg, pert, persona, rep, "q")


def test_wal_mode_and_reopen(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as s:
        assert s.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        s.record(K, status="ok", response="Yes", answer=1)
    with Store(path, create=False) as s:
        assert s.done_keys("st") == {K}


def test_missing_store_is_a_user_error(tmp_path):
    with pytest.raises(SurveyError, match="no such store"):
        Store(tmp_path / "none.sqlite", create=False)


def test_not_a_store(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(SurveyError, match="not a usable survey store"):
        Store(bad)


def test_stored_reply_is_never_overwritten(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        assert s.record(K, status="ok", response="No", answer=0, attempts=2)
        assert not s.record(K, status="failed", error="boom")
        assert not s.record(K, status="ok", response="Yes", answer=1)
        row = s.db.execute("SELECT status, response, answer, attempts FROM responses").fetchone()
        assert row == ("ok", "No", 0, 2)


def test_failed_row_is_replaced_by_a_reply_and_attempts_add_up(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.record(K, status="failed", error="content filter", error_code="content_filter", attempts=1)
        assert s.keys("st", "m", "failed") == {K} and s.done_keys("st") == set()
        assert s.errors("st") == [{"model": "m", "code": "content_filter", "error": "content filter", "rows": 1}]
        assert s.record(K, status="ok", response="Yes", answer=1, attempts=3)
        row = s.db.execute("SELECT status, error, attempts FROM responses").fetchone()
        assert row == ("ok", None, 4)


def test_long_table_matches_contract(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        seq = 0
        for persona in ("P1", "P2"):
            for msg in ("A", "B"):
                for j in ("01", "02"):
                    for r in range(2):
                        text = {0: "Yes", 1: "No"}[r] if persona == "P1" else "Maybe"
                        s.record(key(msg, f"{msg}-{j}", persona, r), status="ok", response=text,
                                 answer={"Yes": 1, "No": 0}.get(text), logprobs={"Yes": -0.1},
                                 p_yes=0.9, prompt_tokens=50, completion_tokens=1, seq=seq)
                        seq += 1
        s.record(key("A", "A-01", "P3", 0), status="failed", error="bad", seq=seq)
        df = s.to_long_table()
        assert len(df) == 16
        out = validate_table(df)
        assert out["answer"].isna().sum() == 8
        assert list(out["perturbation"].unique()) == ["A-01", "A-02", "B-01", "B-02"]  # design order
        assert {"response", "p_yes", "model_id", "prompt_hash", "attempts", "study"} <= set(df.columns)
        assert json.loads(df["logprobs"].iloc[0]) == {"Yes": -0.1}
        assert len(s.to_long_table(include_failed=True)) == 17
        summary = s.summary("st")[0]
        assert (summary["replies"], summary["valid"], summary["invalid"], summary["failed"]) == (16, 8, 8, 1)
        assert summary["prompt_tokens"] == 800


def test_several_studies_need_a_choice(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.record(key(study="one"), status="ok", response="Yes", answer=1)
        s.record(key(study="two"), status="ok", response="No", answer=0)
        with pytest.raises(SurveyError, match="several studies.*`study=`"):
            s.to_long_table()
        with pytest.raises(SurveyError, match="no study 'three'"):
            s.to_long_table("three")
        assert s.to_long_table("two")["answer"].tolist() == [0]


def test_batch_jobs_roundtrip(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.add_batch_job("job-1", "st", "m", ["a", "b"])
        s.add_batch_job("job-2", "st", "other", ["c"])
        s.update_batch_job("job-1", status="RUNNING")
        jobs = s.batch_jobs("st", "m", open_only=True)
        assert [(j["job_id"], j["status"], j["custom_ids"], j["n_queries"]) for j in jobs] == \
            [("job-1", "RUNNING", ["a", "b"], 2)]
        s.update_batch_job("job-1", status="SUCCESS", ingested=True)
        assert s.batch_jobs("st", "m", open_only=True) == []
        assert len(s.batch_jobs()) == 2


def test_the_study_response_type_is_recorded_and_a_change_is_refused(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.record_scale("st", "text")
        s.record_scale("st", "text")  # the same type again: fine (every run records it)
        with pytest.raises(SurveyError, match="study 'st' holds 'text' replies, not 'binary'"):
            s.record_scale("st", "binary")
        s.record(key(), status="ok", response="Yes, I like them a lot.", completion_tokens=6)
        s.record(key(rep=1), status="ok", response="Not for me.", completion_tokens=4)
        summary = s.summary("st")[0]
        assert (summary["scale"], summary["replies"], summary["valid"], summary["invalid"], summary["text"]) == \
            ("text", 2, 0, 0, 2)
        df = s.to_long_table()
        assert (df["scale"] == "text").all() and validate_table(df, min_perturbations=0)["answer"].isna().all()


def test_a_store_without_the_record_reads_free_text_only_when_no_reply_has_an_answer(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.record(key(study="dbpa"), status="ok", response="I would, they look comfortable.", completion_tokens=7)
        s.record(key(study="yesno"), status="ok", response="Yes", answer=1, completion_tokens=1)
        s.record(key(study="garbled"), status="ok", response="Maybe", completion_tokens=1)  # binary, all invalid
        s.record(key(study="waiting"), status="failed", error="timeout")
        assert [s.scale(x) for x in ("dbpa", "yesno", "garbled", "waiting")] == ["text", "binary", "binary", "binary"]
        assert {d["study"]: (d["text"], d["invalid"]) for d in s.summary()} == \
            {"dbpa": (1, 0), "yesno": (0, 0), "garbled": (0, 1), "waiting": (0, 0)}


def test_the_study_context_is_recorded_and_read_back(tmp_path):
    ctx = {"study": "st", "personas": {"set": "shoppers", "path": "/x/shoppers.jsonl", "sha256": "ab", "ids": ["1", "0"]},
           "messages": [{"id": "B", "paraphrases": [{"id": "b1", "text": "x"}]}, {"id": "A", "paraphrases": []}],
           "models": [{"name": "m", "backend": "simulated", "model_id": "", "expected_queries": 4}]}
    with Store(tmp_path / "s.sqlite") as s:
        assert s.context("st") is None  # never run: no record
        s.record_context("st", ctx)
        got = s.context("st")
        assert {k: got[k] for k in ctx} == ctx and got["recorded_at"]  # lists keep their order
        s.record_context("st", {**ctx, "replicates": 2})  # the latest run wins
    with Store(tmp_path / "s.sqlite", create=False) as s:
        assert s.context("st")["replicates"] == 2 and s.context("other") is None


def test_a_store_from_before_the_context_record_opens_and_reads_none(tmp_path):
    import sqlite3

    path = tmp_path / "old.sqlite"
    with Store(path) as s:
        s.record(key(), status="ok", response="Yes", answer=1)
    db = sqlite3.connect(path)
    db.execute("DROP TABLE contexts")
    db.commit()
    db.close()
    with Store(path, create=False) as s:
        assert s.context("st") is None and len(s.to_long_table("st")) == 1
