"""The Jinja environment both reports render with (the study report and the human benchmark).

Every value keeps a number in scientific notation on one line: an 800 px window wrapped a p-value of
5.475e-06 as "5.475e-" over "06", which reads as two numbers. The number goes in a span that does not wrap
(``.num`` in _style.html.j2); its hyphen stays a hyphen, so it copies as a number. A value inside an attribute (an image's data, its alt text) is passed through ``|e``,
which marks it as done, so no span lands in an attribute."""

from __future__ import annotations

import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup, escape

from survey.common.formatting import fmt

TEMPLATES = Path(__file__).parent / "templates"
_SCIENTIFIC = re.compile(r"(?<![\w.+/])[-+]?\d+(?:\.\d+)?[eE][-+]\d+(?![\w+/])")


def keep_numbers_whole(value):
    """Jinja's ``finalize``: the value, escaped, with each number in scientific notation in a ``num`` span."""
    if value is None or isinstance(value, Markup) or not _SCIENTIFIC.search(str(value)):
        return value
    return Markup(_SCIENTIFIC.sub(lambda m: f'<span class="num">{m.group(0)}</span>', str(escape(value))))


# a cell that reads as a number or an interval of numbers ("0.003 (0.000 to 0.056)", "+0.12", "40%", "—")
_NUMERIC = re.compile(r"[-+−]?(\d[\d.,]*(e[-+]?\d+)?%?|—|nan|inf)([\s(\[,;]+(to\s+)?[-+−]?(\d[\d.,]*(e[-+]?\d+)?%?|—|nan|inf)"
                      r"[)\]]?)*", re.IGNORECASE)


# An identifier up to this long is never broken (a model id such as claude-3-5-haiku-20241022); a longer one may
# break at its hyphens and slashes, so that a table of several such columns still fits an 800-pixel window.
ID_WHOLE = 30


def column_classes(table) -> list[Markup]:
    """Per column of a table ({"columns", "rows"}), the class attribute its cells take: none for numbers
    (right-aligned, as in a ledger), "id" for identifiers (one word each, e.g. a model id: left-aligned and never
    broken at its hyphens when at most ID_WHOLE characters), "t" for text (left-aligned prose, e.g. "in words")."""
    return [Markup(f' class="{k}"') if k != "n" else Markup("") for k in _column_kinds(table)]


def _column_kinds(table) -> list[str]:
    columns, rows = (table["columns"], table["rows"]) if isinstance(table, dict) else (table.columns, table.rows)
    classes = []
    for i, _ in enumerate(columns):
        cells = [str(r[i]).strip() for r in rows if i < len(r) and r[i] is not None and str(r[i]).strip()]
        if cells and all(_NUMERIC.fullmatch(c) for c in cells):
            classes.append("n")
        elif all(len(c.split()) == 1 and len(c) <= ID_WHOLE for c in cells):
            classes.append("id")
        else:
            classes.append("t")
    return classes


def html_environment() -> Environment:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]),
                      finalize=keep_numbers_whole)
    env.globals["column_classes"] = column_classes
    env.globals["ID_WHOLE"] = ID_WHOLE
    env.globals["fmt"] = fmt
    return env
