"""The command line's text for a checkbox question: every option's shares, difference and (Holm) p-values."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.cli.kind_output import KindText, header
from survey.stats.tie_breaking import TIE_WORDS


def echo_checkbox(res, r) -> None:
    header(r)
    print_table(f"options ticked (share of replies), {r.a} vs {r.b}",
                ["option", r.a, r.b, "difference", f"{r.effect.confidence:.0%} CI", "p", "Holm p"],
                [[o["option"], o["share_a"], o["share_b"], o["effect"].estimate,
                  f"[{o['effect'].ci[0]:+.3f}, {o['effect'].ci[1]:+.3f}]", o["pvalue"], o["holm"]]
                 for o in r.per_option])
    verdict = "significant" if res.significant(r) else "not significant"
    click.echo(f"decision at alpha = {res.alpha:g} (smallest Holm-adjusted sign-flip p over the options, "
               f"'{r.decision.option}', p = {r.pvalue:.4g}): {verdict}")
    click.echo(f"each option's sign-flip test: {TIE_WORDS}; the same --seed gives the same p")


def checkbox_line(r: dict, view) -> str:
    t = r["tests"]["sign_flip"]
    return f"{r['model']}: checkbox {r['a']} vs {r['b']}: '{t['option']}' Holm p = {t['pvalue']:.3g}"


TEXT = KindText(result=echo_checkbox, summary=checkbox_line)
