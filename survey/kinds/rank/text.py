"""The command line's text for a ranking: mean ranks and Borda scores, every pair's Holm-adjusted test, the
position test."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.cli.kind_output import KindText, set_decision, set_effect, set_header
from survey.common.formatting import fmt


def echo_rank(res, r) -> None:
    """One model's ranking result: every message's mean rank and Borda score, the pairs' tests (Holm), the
    position test."""
    k = len(r.messages)
    set_header(r, f"ranking of {k}, positions averaged")
    conf = f"{r.effect.confidence:.0%} CI"
    print_table("mean rank (1 = best) and Borda score (k − rank), order-averaged",
                ["message", "mean rank", conf, "Borda score", conf],
                [[m, r.mean_rank[m][0], f"[{r.mean_rank[m][1][0]:.3f}, {r.mean_rank[m][1][1]:.3f}]", s,
                  f"[{ci[0]:.3f}, {ci[1]:.3f}]"] for m, (s, ci) in r.borda.items()])
    print_table("every pair (sign-flip over paraphrase sets; Holm over the pairs)",
                ["pair", "Borda difference", "p", "Holm p"],
                [[f"{p['a']} vs {p['b']}", f"{p['difference']:+.3f}", fmt(p["raw_pvalue"]), fmt(p["pvalue"])]
                 for p in r.pairs])
    set_effect(r, f"Borda score {r.a} - Borda score {r.b}")
    pos = r.position
    click.echo("mean rank by position: " + ", ".join(f"{t + 1}: {x:.2f}" for t, x in enumerate(pos.mean_ranks))
               + f" (no bias: {(k + 1) / 2:g}); position test p = {pos.pvalue:.4g} (exchanges {pos.exchanges})")
    if r.warning:
        click.secho(f"WARNING: {r.warning}", fg="yellow", bold=True)
    set_decision(res, r)


def rank_line(r: dict, view) -> str:
    ranks = ", ".join(f"{m} {fmt(v['rank'], 2)}" for m, v in sorted(r["mean_rank"].items(), key=lambda x: x[1]["rank"]))
    return (f"{r['model']}: ranking of {len(r['messages'])}: mean ranks {ranks}; {r['a']} vs {r['b']} Holm p = "
            f"{r['pair']['pvalue']:.3g}; position test p = {r['position']['pvalue']:.3g}")


TEXT = KindText(result=echo_rank, summary=rank_line)
