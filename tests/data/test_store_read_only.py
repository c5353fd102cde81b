"""Reading commands never write: an unrelated or empty SQLite file is refused as not a survey store and left
as it was (analyze, status, export and report once added six survey tables to it), and a dry run creates no
store file."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

from survey.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("argv", [["analyze", "{f}"], ["status", "{f}"], ["export", "{f}", "--out", "{d}/e.csv"],
                                  ["report", "{f}", "--out", "{d}/r"]], ids=["analyze", "status", "export", "report"])
@pytest.mark.parametrize("content", ["empty", "other"])
def test_a_file_that_is_no_store_is_refused_and_left_unchanged(tmp_path, capsys, argv, content):
    f = tmp_path / "x.sqlite"
    db = sqlite3.connect(f)
    if content == "other":
        db.execute("CREATE TABLE people (name TEXT)")
        db.execute("INSERT INTO people VALUES ('ada')")
        db.commit()
    db.close()
    before = _digest(f)
    with pytest.raises(SystemExit) as exc:
        main([a.format(f=f, d=tmp_path) for a in argv])
    assert exc.value.code == 2 and "not a survey store" in capsys.readouterr().err
    assert _digest(f) == before
    tables = {r[0] for r in sqlite3.connect(f).execute("SELECT name FROM sqlite_master")}
    assert tables == (set() if content == "empty" else {"people"})


def _ok(argv) -> None:
    try:
        main(argv)
    except SystemExit as exc:
        assert exc.code in (0, None)


def test_a_dry_run_creates_no_store(tmp_path, capsys):
    shutil.copy(ROOT / "studies" / "sim.toml", tmp_path / "sim.toml")
    _ok(["run", str(tmp_path / "sim.toml"), "--dry-run"])
    assert not (tmp_path / "sim.sqlite").exists()


def test_reading_a_store_leaves_it_byte_for_byte(tmp_path, capsys):
    shutil.copy(ROOT / "studies" / "sim.toml", tmp_path / "sim.toml")
    text = (tmp_path / "sim.toml").read_text().replace("count = 30", "count = 4").replace("count = 20", "count = 3")
    (tmp_path / "sim.toml").write_text(text)
    _ok(["run", str(tmp_path / "sim.toml"), "--yes", "--json"])
    store = tmp_path / "sim.sqlite"
    before = _digest(store)
    for argv in (["analyze", str(store), "--json"], ["status", str(store)], ["run", str(tmp_path / "sim.toml"),
                                                                             "--dry-run"]):
        _ok(argv)
    capsys.readouterr()
    assert _digest(store) == before


def test_an_interrupted_store_says_it_is_incomplete_not_that_it_has_one_message(tmp_path):
    # interrupted after 4 of the 36 queries, persona-major: only message A was asked yet
    from partial_store import context, fill

    import survey
    from survey.data.store import Store
    from survey.errors import SurveyError

    with Store(tmp_path / "s.sqlite") as store:
        store.record_context("st", context(3))
        fill(store, 3, upto=4)
    with pytest.raises(SurveyError, match=r"incomplete for study 'st' \(4 of 36 expected queries stored\); "
                                          "`survey run`"):
        survey.analyze(survey.load_source(tmp_path / "s.sqlite"))
