"""The command line's text for pick one of k: shares, the pair's Holm-adjusted test, the position test."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.cli.kind_output import KindText, set_decision, set_effect, set_header
from survey.common.formatting import fmt


def echo_pick(res, r) -> None:
    """One model's pick-one-of-k result: every message's share, the pair's test (Holm), the position test."""
    set_header(r, f"pick one of {len(r.messages)}, positions averaged")
    print_table("shares chosen (order-averaged)", ["message", "share", f"{r.effect.confidence:.0%} CI"],
                [[m, s, f"[{ci[0]:.4f}, {ci[1]:.4f}]"] for m, (s, ci) in r.shares.items()])
    set_effect(r, f"share choosing {r.a} - share choosing {r.b}")
    pos = r.position
    click.echo("position shares: " + ", ".join(f"{t + 1}: {s:.3f}" for t, s in enumerate(pos.shares))
               + f"; position test p = {pos.pvalue:.4g} (exchanges {pos.exchanges})")
    if r.warning:
        click.secho(f"WARNING: {r.warning}", fg="yellow", bold=True)
    set_decision(res, r)


def pick_line(r: dict, view) -> str:
    shares = ", ".join(f"{m} {fmt(v['share'], 3)}" for m, v in r["shares"].items())
    return (f"{r['model']}: pick one of {len(r['messages'])}: shares {shares}; {r['a']} vs {r['b']} Holm p = "
            f"{r['pair']['pvalue']:.3g}; position test p = {r['position']['pvalue']:.3g}")


TEXT = KindText(result=echo_pick, summary=pick_line)
