"""The slider's command-line text: the shared header, the effect in slider points, every test."""

from __future__ import annotations

import click

from survey.cli.kind_output import KindText, header, tests_and_decision


def echo_slider(res, r) -> None:
    lo, hi = r.effect.ci
    header(r)
    click.echo(f"slider effect = mean position({r.a}) - mean position({r.b}) = {r.effect.estimate:+.2f} points, "
               f"{r.effect.confidence:.0%} CI [{lo:+.2f}, {hi:+.2f}]")
    tests_and_decision(res, r)


def slider_line(r: dict, view) -> str:
    return f"{r['model']}: slider {r['a']} vs {r['b']}: {r['effect']['estimate']:+.2f} points"


TEXT = KindText(result=echo_slider, summary=slider_line)
