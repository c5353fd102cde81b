"""The shipped studies/price.toml (a number, then a checkbox): its scorecard labels each interval with its own
level, since a checkbox's interval is simultaneous over its options (98.75% for four) while the number's is 95%."""

from __future__ import annotations

import shutil
from pathlib import Path

from cli_result import run_cli

import survey

REPO = Path(__file__).resolve().parents[2]


def test_each_question_s_interval_is_labelled_with_its_own_level(tmp_path, capsys, monkeypatch):
    shutil.copy(REPO / "studies" / "price.toml", tmp_path / "price.toml")
    monkeypatch.chdir(tmp_path)
    survey.Study.from_toml(tmp_path / "price.toml").run(yes=True, progress=False)
    monkeypatch.setenv("COLUMNS", "160")
    code, out, err = run_cli(capsys, "analyze", "reports/price/store.sqlite")
    assert code == 0, err
    table = out.split("family CI:")[0]
    assert "CI (its level)" in table and "(98.75%)" in table and "(95%)" in table and "95% CI" not in table
