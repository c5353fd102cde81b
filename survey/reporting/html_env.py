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

TEMPLATES = Path(__file__).parent / "templates"
_SCIENTIFIC = re.compile(r"(?<![\w.+/])[-+]?\d+(?:\.\d+)?[eE][-+]\d+(?![\w+/])")


def keep_numbers_whole(value):
    """Jinja's ``finalize``: the value, escaped, with each number in scientific notation in a ``num`` span."""
    if value is None or isinstance(value, Markup) or not _SCIENTIFIC.search(str(value)):
        return value
    return Markup(_SCIENTIFIC.sub(lambda m: f'<span class="num">{m.group(0)}</span>', str(escape(value))))


def html_environment() -> Environment:
    return Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]),
                       finalize=keep_numbers_whole)
