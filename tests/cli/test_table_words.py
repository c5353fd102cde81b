"""At 80 columns a terminal table never splits a word of its body: a number stays on one line and an interval
breaks only at the space between its bounds (a user once read "[+0.07639" on one line and "," on the next, and
"stylis" over "h", in checkbox studies' tables). The header may fold; when the body's words cannot all fit, the
table prints one record a row."""

from __future__ import annotations

import pytest
from cli_result import run_cli
from kinds.test_new_kinds_matrix import MARGINS, humans_csv, study_toml
from rich.table import Table

from survey.cli import main
from survey.cli.common import print_table


@pytest.fixture
def cells(monkeypatch):
    """Every body cell handed to rich, as the text it was given."""
    seen: list[str] = []
    add_row = Table.add_row

    def spy(self, *renderables, **kwargs):
        seen.extend(str(r) for r in renderables)
        return add_row(self, *renderables, **kwargs)

    monkeypatch.setattr(Table, "add_row", spy)
    monkeypatch.setenv("COLUMNS", "80")
    return seen


def split_words(out: str, cells: list[str]) -> list[str]:
    """The pieces on a table's body lines that are not whole words of any cell: a number or a word cut in two."""
    words = {w for c in cells for w in c.split()}
    pieces = [w for line in out.splitlines() if line.startswith("│")
              for cell in line.split("│")[1:-1] for w in cell.split()]
    return [w for w in pieces if w not in words]


def test_a_table_whose_headers_and_numbers_cannot_all_stay_whole_prints_one_record_a_row(cells, capsys):
    # before: the headers' words were kept whole first and the 98.75% CI column was capped at 9 characters,
    # leaving "[+0.07639" on one line and "," on the next
    cols = ["option", "renewal-reminder-variant-a", "renewal-reminder-variant-b", "difference", "98.75% CI", "p",
            "Holm p"]
    rows = [["comfortable", 0.8929, 0.8214, 0.0714, "[-0.08333, +0.2262]", 0.1505, 0.3009],
            ["good value", 0.6786, 0.2381, 0.4405, "[+0.07639, +0.6111]", 0.0156, 0.0625]]
    print_table("options ticked (share of replies)", cols, rows)
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 80
    assert split_words(out, cells) == [], out
    assert "  98.75% CI: [+0.07639, +0.6111]" in out and "  renewal-reminder-variant-a: 0.6786" in out


def test_an_interval_breaks_only_between_its_bounds(cells, capsys):
    cols = ["option", "sneakers", "boots", "difference", "98.75% CI", "p", "Holm p"]
    rows = [["comfortable", 0.8929, 0.8214, 0.0714, "[-0.08333, +0.2262]", 0.1505, 0.3009]]
    print_table("options ticked (share of replies)", cols, rows)
    out = capsys.readouterr().out
    assert "┃" in out and max(len(line) for line in out.splitlines()) <= 80  # still a table
    assert split_words(out, cells) == [], out
    assert any("[-0.08333," in line and "+0.2262]" not in line for line in out.splitlines()), out


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    """The checkbox and rank studies of the kinds' matrix, run on the simulated backend."""
    folders = {}
    for kind in ("checkbox", "rank"):
        folder = folders[kind] = tmp_path_factory.mktemp(kind)
        (folder / "study.toml").write_text(study_toml(kind))
        (folder / "humans.csv").write_text(humans_csv(kind))
        (folder / "margins.csv").write_text(MARGINS)
        try:
            main(["run", str(folder / "study.toml"), "--yes", "--json"])
        except SystemExit as exc:
            assert exc.code in (0, None)
    return folders


@pytest.mark.parametrize("kind, args", [
    ("checkbox", ["analyze", "--every-pair"]),
    ("checkbox", ["analyze", "--a", "sneakers", "--b", "boots"]),
    ("checkbox", ["analyze", "--a", "sneakers", "--b", "boots", "--by", "gender"]),
    ("checkbox", ["analyze", "--a", "sneakers", "--b", "boots", "--by", "age:18-39,40+"]),
    ("checkbox", ["fidelity"]),
    ("rank", ["analyze", "--every-pair"]),
    ("rank", ["analyze", "--a", "sneakers", "--b", "boots", "--by", "gender"]),
    ("rank", ["fidelity"]),
])
def test_commands_keep_every_number_whole_at_80_columns(studies, cells, capsys, kind, args):
    store = studies[kind] / "store.sqlite"
    flips = ["--flips", "199"] if args[0] == "analyze" else []
    code, out, err = run_cli(capsys, args[0], store, *args[1:], *flips)
    assert code == 0, err
    assert split_words(out, cells) == [], out
