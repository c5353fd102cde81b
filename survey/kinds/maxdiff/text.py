"""The command line's text for best-worst scaling: best-minus-worst scores and the pair's Holm-adjusted test."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.cli.kind_output import KindText


def echo_maxdiff(res, r) -> None:
    """One model's best-worst result: every message's best-minus-worst score, the pair's test (Holm)."""
    click.echo(f"\nmodel {r.model}: {r.a} vs {r.b} (best-worst scaling, subsets of {len(r.best_by_position)}) — "
               f"{r.n_personas} personas, {r.n_sets} paraphrase sets, r = {r.replicates}, invalid replies {r.invalid}")
    print_table("best-minus-worst scores", ["message", "score", f"{r.effect.confidence:.0%} CI"],
                [[m, s, f"[{ci[0]:+.4f}, {ci[1]:+.4f}]"] for m, (s, ci) in r.scores.items()])
    lo, hi = r.effect.ci
    click.echo(f"effect = score {r.a} - score {r.b} = {r.effect.estimate:+.4f}, {r.effect.confidence:.0%} CI "
               f"[{lo:+.4f}, {hi:+.4f}]; sign-flip p = {r.pair.raw_pvalue:.4g} over {r.n_sets} sets, Holm-adjusted "
               f"over the pairs p = {r.pair.pvalue:.4g}")
    click.echo("named best by position: " + ", ".join(f"{t + 1}: {s:.3f}" for t, s in enumerate(r.best_by_position)))
    verdict = "significant" if res.significant(r) else "not significant"
    click.echo(f"decision at alpha = {res.alpha:g} (sign-flip test over paraphrase sets, Holm): {verdict}")


TEXT = KindText(result=echo_maxdiff)
