"""Helpers shared by the command modules: JSON output and rich tables."""

from __future__ import annotations

import json
import math

import click
import numpy as np


def _default(o):
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def _finite(o):
    """Strict JSON has no NaN/Infinity: they become null."""
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    return o


def to_json(obj) -> str:
    return json.dumps(_finite(json.loads(json.dumps(obj, default=_default))), indent=2)


def echo_json(obj) -> None:
    click.echo(to_json(obj))


def fmt(x, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    if isinstance(x, float):
        return f"{x:.{digits}g}" if abs(x) < 1e-3 and x != 0 else f"{x:.{digits}f}"
    return str(x)


def print_table(title: str, columns: list[str], rows: list[list]) -> None:
    from rich.console import Console
    from rich.table import Table

    t = Table(title=title, title_justify="left")
    for c in columns:
        t.add_column(c)
    for r in rows:
        t.add_row(*[fmt(v) for v in r])
    Console().print(t)


json_option = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
study_option = click.option("--study", default=None, help="study to read, when a store holds several")
