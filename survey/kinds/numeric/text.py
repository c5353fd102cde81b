"""The command line's text for a numeric question: the shared header, the effect in the question's unit, the
messages' means, every test."""

from __future__ import annotations

import click

from survey.cli.kind_output import KindText, header, tests_and_decision
from survey.responses import response_type


def echo_numeric(res, r) -> None:
    view = response_type(r.scale).view
    lo, hi = r.effect.ci
    header(r)
    click.echo(f"effect = {view.of(r.a)} - {view.of(r.b)} = {r.effect.estimate:+.4g} ({r.unit}), "
               f"{r.effect.confidence:.0%} CI [{lo:+.4g}, {hi:+.4g}]")
    click.echo(f"{view.quantity} by message: " + ", ".join(f"{m} {v:.4g}" for m, v in r.means.items()))
    tests_and_decision(res, r)


def numeric_line(r: dict, view) -> str:
    return f"{r['model']}: {view.quantity} {r['a']} vs {r['b']}: {r['effect']['estimate']:+.4g}"


TEXT = KindText(result=echo_numeric, summary=numeric_line)
