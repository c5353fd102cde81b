"""A store written before studies had several questions (tests/fixtures/before_questions, made by the code of
that time from the two study files beside it) reads as one question "q", analyses to the same numbers, is never
written by reading, and is migrated by the first run that writes to it, keeping every row."""

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from cli_result import run_cli

from survey.data.sources import load_source
from survey.data.store import Store

FIXTURE = Path(__file__).parent.parent / "fixtures" / "before_questions"


@pytest.fixture
def old_store(tmp_path) -> Path:
    for f in FIXTURE.iterdir():
        shutil.copy(f, tmp_path / f.name)
    return tmp_path / "before_questions.sqlite"


def _numbers(doc: dict) -> dict:
    """The analysis without where it was read from (the fixture's path differs per machine)."""
    drop = {"source", "path", "store", "completeness"}
    if isinstance(doc, dict):
        return {k: _numbers(v) for k, v in doc.items() if k not in drop}
    if isinstance(doc, list):
        return [_numbers(v) for v in doc]
    return doc


@pytest.mark.parametrize("kind", ["binary", "likert"])
def test_an_old_store_analyses_to_the_same_numbers_and_is_not_written(capsys, old_store, kind):
    before = hashlib.sha256(old_store.read_bytes()).hexdigest()
    code, out, err = run_cli(capsys, "analyze", old_store, "--study", f"fx-{kind}", "--json")
    assert code == 0, err
    expected = json.loads((FIXTURE / f"analyze_{kind}.json").read_text())
    assert _numbers(json.loads(out)) == _numbers(expected)
    assert hashlib.sha256(old_store.read_bytes()).hexdigest() == before  # reading never writes
    src = load_source(old_store, f"fx-{kind}")
    assert src.questions == ["q"] and set(src.table["question"]) == {"q"}
    assert [q["id"] for q in src.study_context.questions] == ["q"]
    assert src.for_question("q").table.equals(src.table)


def test_a_run_migrates_an_old_store_keeping_every_row_and_sends_nothing_again(capsys, old_store):
    with Store(old_store, read_only=True) as st:
        rows_before = st.db.execute("SELECT * FROM responses ORDER BY study, model, message, perturbation, persona, "
                                    "replicate").fetchall()
        assert st.q == "'q'"
    code, out, err = run_cli(capsys, "run", old_store.parent / "binary.toml", "--yes", "--json")
    assert code == 0, err
    assert json.loads(out)["plan"]["to_send"] == 0  # nothing paid twice: every reply is already there
    assert "added the question column (384 rows kept as question 'q')" in err  # said, not done silently
    with Store(old_store, read_only=True) as st:
        cols = [r[1] for r in st.db.execute("PRAGMA table_info(responses)")]
        assert "question" in cols and "position" in cols
        rows_after = st.db.execute(f"SELECT {', '.join(c for c in cols if c not in ('question', 'position'))} "
                                   "FROM responses ORDER BY study, model, message, perturbation, persona, "
                                   "replicate").fetchall()
        assert rows_after == rows_before
        assert {r[0] for r in st.db.execute("SELECT DISTINCT question FROM responses")} == {"q"}
    code, out, err = run_cli(capsys, "analyze", old_store, "--study", "fx-binary", "--json")
    assert code == 0, err
    expected = json.loads((FIXTURE / "analyze_binary.json").read_text())
    assert _numbers(json.loads(out)) == _numbers(expected)
