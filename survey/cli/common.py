"""Helpers shared by the command modules: JSON output and rich tables."""

from __future__ import annotations

import click

from survey.common.formatting import fmt, to_json  # noqa: F401 - re-exported for the command modules


def echo_json(obj) -> None:
    click.echo(to_json(obj))


def echo_completeness(completeness) -> None:
    """Which data and study a result rests on and how complete it is; warnings stand out."""
    if completeness is None:
        return
    for line in completeness.lines():
        click.echo(line)
    for w in completeness.warnings():
        click.secho(f"WARNING: {w}", fg="yellow", bold=True)


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
