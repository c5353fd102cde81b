"""Reading and planning commands write nothing the user did not ask for: `plan` and `validate` once wrote
./reports/*.png by default (and `dbpa` ./dbpa.png, see test_dbpa_cli)."""

from __future__ import annotations

import pytest

import survey
from survey.cli import main


def _run(argv):
    try:
        main(argv)
    except SystemExit as exc:
        assert exc.code in (0, None)


@pytest.mark.parametrize("argv", [
    ["plan", "--delta", "0.5", "--simulations", "20", "--budget", "400", "--json"],
    ["validate", "t.csv", "--message", "A", "--draws", "10", "--config", "10,3,2", "--json"],
], ids=["plan", "validate"])
def test_no_file_unless_asked(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.chdir(tmp_path)
    survey.simulate(n=12, m=6, r=2, seed=1).to_csv(tmp_path / "t.csv", index=False)
    before = set(tmp_path.rglob("*"))
    _run(argv)
    assert set(tmp_path.rglob("*")) == before
    _run([*argv, "--plot", "asked.png"])
    assert (tmp_path / "asked.png").exists()
