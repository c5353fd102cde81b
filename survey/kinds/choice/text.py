"""The command line's text for forced choice: preference, position bias, the persona tests."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.cli.kind_output import KindText
from survey.kinds.choice.statistics import PERSONA_NOTE, POSITION_QUANTITY, ChoiceResult, preference_name
from survey.stats import ab_tests


def echo_choice_result(res, r: ChoiceResult) -> None:
    echo_choice(r.model, r, res.alpha, res.significant(r))


def echo_choice(model: str, r: ChoiceResult, alpha: float, significant: bool) -> None:
    """One model's forced-choice result: preference, position bias, the persona tests for comparison."""
    click.echo(f"\nmodel {model}: {r.a} vs {r.b} (forced choice, both orders) — {r.n_personas} personas, "
               f"{r.n_pairs} pairs, r = {r.replicates}, invalid replies {r.invalid}, empty cells {r.empty_cells}")
    if r.pairs_left_out:
        click.echo(f"pairs left out (no valid reply in some order): {len(r.pairs_left_out)}")
    pref, pos = r.preference, r.position_bias
    for words, t in ((preference_name(r.a, r.b), pref), (f"position bias ({POSITION_QUANTITY})", pos)):
        lo, hi = t.difference_ci
        click.echo(f"{words} = {t.statistic:+.4f}, {t.confidence:.0%} CI [{lo:+.4f}, {hi:+.4f}], "
                   f"sign-flip p = {t.pvalue:.4g}")
    rows = [[f"preference for {r.a} (sign-flip, pairs)", pref.statistic, pref.pvalue,
             "valid for any rho and position bias"],
            ["position bias (sign-flip, pairs)", pos.statistic, pos.pvalue, "two-sided"]]
    rows += [[ab_tests.label(name), t.statistic, t.pvalue, PERSONA_NOTE] for name, t in r.persona_tests.items()]
    print_table("tests", ["test", "statistic", "p-value", "note"], rows)
    if r.warning:
        click.secho(f"WARNING: {r.warning}", fg="yellow", bold=True)
    for note in r.notes[1:]:  # the first says why the preference test is valid: the table's note has it
        click.echo(f"note: {note}")
    verdict = "significant" if significant else "not significant"
    click.echo(f"decision at alpha = {alpha:g} (preference sign-flip test, valid for any rho): {verdict}")


def choice_line(r: dict, view) -> str:
    pref, pos = r["preference"], r["position_bias"]
    lo, hi = pref["estimate_ci"]
    return (f"{r['model']}: {r['a']} vs {r['b']} (forced choice): {preference_name(r['a'], r['b'])} "
            f"{pref['estimate']:+.3f} CI [{lo:+.3f}, {hi:+.3f}], p = {pref['pvalue']:.3g}; "
            f"position bias ({POSITION_QUANTITY}) {pos['estimate']:+.3f}, p = {pos['pvalue']:.3g}")


TEXT = KindText(result=echo_choice_result, summary=choice_line)
