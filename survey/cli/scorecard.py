"""Text output of `survey analyze` on a study that asks several questions: per model and message pair, a
scorecard of questions (effect with its interval, the family-adjusted p-value and which message wins, in words),
then the rule that adjusted them and what the questions' correlations say."""

from __future__ import annotations

import click

from survey import fmt, percent
from survey.cli.common import print_table

ROLE_WORDS = {"primary": "primary (decides)", "secondary": "secondary", "family": "—"}


def echo_scorecard(res) -> None:
    """Every (model, pair): one table of its questions; then the notes."""
    groups: dict = {}
    for r in res.results:
        groups.setdefault((r.model, r.a, r.b), []).append(r)
    for (model, a, b), rows in groups.items():
        roles = res.primary is not None
        # a checkbox question's interval is simultaneous over its options: each row's own level when they differ
        levels = {r.effect.confidence for r in rows}
        one = len(levels) == 1
        table = [[r.question, *([ROLE_WORDS[r.role]] if roles else []), f"{r.effect.estimate:+.3g} {r.unit}",
                  _ci(r.effect.ci) + ("" if one else f" ({percent(r.effect.confidence)})"), _ci(r.simultaneous_ci),
                  fmt(r.pvalue_adjusted), r.verdict] for r in rows]
        print_table(f"model {model}: {a} vs {b} (effect = {a} − {b})",
                    ["question", *(["role"] if roles else []), "effect",
                     f"{percent(levels.pop())} CI" if one else "CI (its level)", "family CI", "adjusted p", "verdict"],
                    table)
        for r in rows:
            for warning in r.warnings:
                click.secho(f"WARNING: question {r.question}: {warning}", fg="yellow", bold=True)
    click.echo(_level_note(res))
    for note in res.notes():
        click.echo(note)
    for r in res.results:
        if r.segments is not None:
            from survey.cli.segments import echo_segments

            click.echo(f"\nquestion {r.question}, model {r.model}, {r.a} vs {r.b}:")
            echo_segments(r.segments)


def _ci(ci) -> str:
    return "—" if ci is None else f"[{ci[0]:+.3g}, {ci[1]:+.3g}]"


def _level_note(res) -> str:
    if res.family == "holm":
        return ("family CI: Bonferroni intervals at 1 − α/m for the m tests of a family; together they cover every "
                "effect with probability at least 1 − α")
    return ("family CI: false-coverage-rate intervals (Benjamini & Yekutieli) for the effects Benjamini-Hochberg "
            "selected, at 1 − Rα/m; none for the others")
