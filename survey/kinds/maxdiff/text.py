"""The command line's text for best-worst scaling: best-minus-worst scores and the pair's Holm-adjusted test."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.cli.kind_output import KindText, set_decision, set_effect, set_header


def echo_maxdiff(res, r) -> None:
    """One model's best-worst result: every message's best-minus-worst score, the pair's test (Holm)."""
    set_header(r, f"best-worst scaling, subsets of {len(r.best_by_position)}")
    print_table("best-minus-worst scores", ["message", "score", f"{r.effect.confidence:.0%} CI"],
                [[m, s, f"[{ci[0]:+.4f}, {ci[1]:+.4f}]"] for m, (s, ci) in r.scores.items()])
    set_effect(r, f"score {r.a} - score {r.b}")
    click.echo("named best by position: " + ", ".join(f"{t + 1}: {s:.3f}" for t, s in enumerate(r.best_by_position)))
    set_decision(res, r)


TEXT = KindText(result=echo_maxdiff)
