"""Text output of `survey analyze` and `survey estimate` for rating scales and forced choice (Yes/No keeps
its own lines in survey.cli.analysis)."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.stats import ab_tests
from survey.stats.choice import PERSONA_NOTE, ChoiceResult
from survey.stats.comparison import Comparison


def echo_scale_effect(r: Comparison) -> None:
    """The effect in scale points, the mean score of each message and the top-2-box."""
    lo, hi = r.effect.ci
    click.echo(f"effect T = mean score({r.a}) - mean score({r.b}) = {r.effect.estimate:+.4f} points on the "
               f"{r.scale} scale ({r.unit}), {r.effect.confidence:.0%} CI [{lo:+.4f}, {hi:+.4f}] ({r.effect.method})")
    click.echo("mean scores: " + ", ".join(f"{m} {_num(v)}" for m, v in r.means.items()))
    tb = r.top_box
    if tb is None:
        return
    blo, bhi = tb.ci
    click.echo(f"top-2-box (scores {', '.join(map(str, tb.points))}): "
               + ", ".join(f"{m} {_share(v)}" for m, v in tb.shares.items())
               + f"; difference {tb.effect.estimate:+.4f} ({tb.effect.confidence:.0%} CI [{blo:+.4f}, {bhi:+.4f}]), "
               f"sign-flip p = {tb.pvalue:.4g}")


def echo_choice(model: str, r: ChoiceResult, alpha: float, significant: bool) -> None:
    """One model's forced-choice result: preference, position bias, the persona tests for comparison."""
    click.echo(f"\nmodel {model}: {r.a} vs {r.b} (forced choice, both orders) — {r.n_personas} personas, "
               f"{r.n_pairs} pairs, r = {r.replicates}, invalid replies {r.invalid}, empty cells {r.empty_cells}")
    if r.pairs_left_out:
        click.echo(f"pairs left out (no valid reply in some order): {len(r.pairs_left_out)}")
    pref, pos = r.preference, r.position_bias
    click.echo(f"preference: {pref.what} = {pref.share:.4f}, {pref.confidence:.0%} CI "
               f"[{pref.ci[0]:.4f}, {pref.ci[1]:.4f}], sign-flip p = {pref.pvalue:.4g}")
    click.echo(f"position bias: {pos.what} = {pos.share:.4f}, {pos.confidence:.0%} CI "
               f"[{pos.ci[0]:.4f}, {pos.ci[1]:.4f}], sign-flip p = {pos.pvalue:.4g}")
    rows = [["preference (sign-flip, pairs)", pref.statistic, pref.pvalue, "valid for any rho and position bias"],
            ["position bias (sign-flip, pairs)", pos.statistic, pos.pvalue, "two-sided"]]
    rows += [[ab_tests.label(name), t.statistic, t.pvalue, PERSONA_NOTE] for name, t in r.persona_tests.items()]
    print_table("tests", ["test", "statistic", "p-value", "note"], rows)
    if r.warning:
        click.secho(f"WARNING: {r.warning}", fg="yellow", bold=True)
    for note in r.notes[1:]:  # the first says why the preference test is valid: the table's note has it
        click.echo(f"note: {note}")
    verdict = "significant" if significant else "not significant"
    click.echo(f"decision at alpha = {alpha:g} (preference sign-flip test, valid for any rho): {verdict}")


def echo_ordinal_estimate(res: dict, message: str) -> None:
    """One model's ordinal-model estimate (``OrdinalEstimate.to_dict()`` with its model)."""
    se, ci = res["se"], res["ci"]
    cut_se = se.get("cuts") or [None] * len(res["cuts"])
    rows = [[p, res[p], se.get(p), "[{:.4g}, {:.4g}]".format(*ci[p]) if p in ci else None]
            for p in ("tau", "sigma", "rho")]
    rows += [[f"cut {k + 1}", c, s, None] for k, (c, s) in enumerate(zip(res["cuts"], cut_se, strict=True))]
    print_table(f"model {res['model']}, message {message}: {res['n']} personas, {res['m']} perturbations, "
                f"{res['points']}-point scale; estimator: {res['method']}",
                ["parameter", "estimate", "bootstrap s.e.", "95% interval"], rows)
    for note in res["notes"]:
        click.echo(f"note: {note}")


def _num(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def _share(v) -> str:
    return "-" if v is None else f"{v:.1%}"
