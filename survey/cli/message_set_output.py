"""`survey analyze`'s text for a study of more than two messages (survey.stats.message_set): per model the
levels table once, then the pairwise matrix (effect, CI, p, Holm p, simultaneous CI, which message wins)."""

from __future__ import annotations

import click

from survey.cli.common import print_table


def echo_message_set(res) -> None:
    """Every model's k-message analysis of ``res`` (survey.stats.message_set.MessageSetAnalysis)."""
    kind, view = res.kind, res.view
    for s in res.sets:
        click.echo(f"\nmodel {s.model}: {len(s.messages)} messages on {view.scale} — {', '.join(s.messages)}")
        lv = s.levels
        if lv is not None:
            print_table(f"{lv.quantity}, {lv.confidence:.0%} CI ({lv.method})", ["message", "estimate", "CI"],
                        [[m, _num(e), _ci(ci)] for m, (e, ci) in lv.values.items()])
            for note in lv.notes:
                click.echo(note)
        click.echo(kind.effect_words(view, "A", "B"))
        m = len(s.pairs)
        print_table(f"every pair: {s.pair_label}, p-value {s.method_name}-adjusted over the {m} pairs, "
                    f"{s.joint_label}", ["A vs B", "A − B", "CI", f"{s.short_name} p", "joint CI", "higher"],
                    [[f"{p.a} vs {p.b}", f"{p.effect.estimate:+.3f}", _ci(p.effect.ci), p.pvalue_adjusted,
                      _ci(p.simultaneous_ci), p.winner or "—"] for p in s.pairs])
        for note in s.notes:
            click.echo(f"note: {note}")
        for warning in (w for r in res.results if r.model == s.model for w in r.warnings):
            click.secho(f"WARNING: {warning}", fg="yellow", bold=True)
        wins = [p for p in s.pairs if p.winner is not None]
        said = "; ".join(f"{p.winner} > {p.b if p.winner == p.a else p.a}" for p in wins) or "no pair differs"
        click.echo(f"decision at alpha = {res.alpha:g} ({_test_words(res)}, {s.method_name} over the {m} pairs; "
                   f"\"—\": no reliable difference): {said}")
    if res.sets:
        click.echo(f"joint CI: {res.sets[0].joint}")


def _test_words(res) -> str:
    return f"each pair by the {res.kind.decided_by.replace('_', '-')} test"


def _ci(ci) -> str:
    if ci is None or ci[0] is None:
        return "-"
    return f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"


def _num(v) -> str:
    return "-" if v is None else f"{v:.3f}"
