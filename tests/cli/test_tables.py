"""Terminal tables never cut an identifier: on a narrow terminal a long cell folds onto more lines, so two
message ids that share a long prefix stay whole and tell their rows apart (rich's default ellipsis printed
"calc-c…" for both)."""

from __future__ import annotations

import re
from pathlib import Path

from survey.cli.common import print_table

IDS = ["calc-contract-renewal-reminder-variant-a", "calc-contract-renewal-reminder-variant-b"]
ROOT = Path(__file__).resolve().parents[2]


def column_text(out: str, index: int) -> str:
    """The text of column ``index`` of a rich table, its folded lines joined in order."""
    cells = []
    for line in out.splitlines():
        parts = re.split(r"[│┃]", line)
        if len(parts) > index + 2:  # a body or header line: border, cells..., border
            cells.append(parts[index + 1].strip())
    return "".join(cells)


def test_a_narrow_terminal_folds_long_ids_instead_of_cutting_them(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    print_table("shares chosen", ["message", "share", "95% CI"],
                [[IDS[0], 0.512, "[0.401, 0.623]"], [IDS[1], 0.488, "[0.377, 0.599]"]])
    out = capsys.readouterr().out
    assert "…" not in out and "..." not in out
    assert max(len(line) for line in out.splitlines()) <= 40
    assert column_text(out, 0) == "message" + "".join(IDS)  # both ids whole, in row order


def test_every_terminal_table_goes_through_the_folding_printer():
    """No command builds its own rich table (which would cut cells with an ellipsis by default)."""
    makers = [p.relative_to(ROOT).as_posix() for p in (ROOT / "survey").rglob("*.py")
              if re.search(r"\bTable\(|add_column\(", p.read_text()) and p.name != "common.py"]
    assert makers == []
    text = (ROOT / "survey" / "cli" / "common.py").read_text()
    assert 'overflow="fold"' in text and 'overflow="ellipsis"' not in text and "no_wrap" not in text


def test_prose_wraps_between_words_before_an_identifier_or_number_folds(capsys, monkeypatch):
    # before: rich gave every wrapable column the same width, so at 150 columns the fidelity table folded
    # "gpt-4o-mini-2024-07-18" and "disease-lives-saved" while the "in words" sentence beside them had room to wrap
    monkeypatch.setenv("COLUMNS", "100")
    model, message = "gpt-4o-mini-2024-07-18", "disease-lives-saved"
    words = ("far: farther from people than a uniform guess; answers 0.23 scale points from people's on average "
             "and a little more prose to make the sentence long enough")
    print_table("levels", ["model", "message", "humans", "JSD [CI]", "in words"],
                [[model, message, 152, "0.039 [0.013, 0.084]", words]])
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert model in out and message in out  # each on one line
    assert "0.039" in out and "[0.013," in out and "0.084]" in out  # numbers whole
    assert column_text(out, 4).replace(" ", "") == ("inwords" + words).replace(" ", "")  # wrapped at spaces only
    assert "farther" in out and "people's" in out


def test_a_table_too_narrow_for_whole_words_prints_one_record_a_row(capsys, monkeypatch):
    """Seven columns of words on 80 columns: the table would break "believable" into "believab" and "le";
    one record a row keeps every word whole."""
    monkeypatch.setenv("COLUMNS", "80")
    cols = ["question", "role", "effect", "95% CI", "family CI", "adjusted p", "verdict"]
    rows = [["believable", "secondary", "+0.198 share choosing A − share choosing B", "[+0.0597, +0.331]",
             "[-0.0292, +0.25]", 0.0113, "no reliable difference"]]
    print_table("model sim: a vs b", cols, rows)
    out = capsys.readouterr().out
    assert "- question: believable" in out and "  verdict: no reliable difference" in out
    assert max(len(line) for line in out.splitlines()) <= 80
