"""Text output of `survey analyze`, `survey estimate` and the demo's summary: the printers every kind shares.

Each kind's printers are a part of its manifest (survey.common.kinds): a ``KindText`` in the kind's folder
(survey/kinds/<name>/text.py). A kind without printers of its own gets the mean-score ones below, which read
the view's words (quantity, unit), so a new kind prints without a line here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import click

from survey import Comparison, ab_tests, fmt, kind_part, response_type
from survey.cli.common import print_table


def header(r: Comparison) -> None:
    perts = ", ".join(f"{k} {v}" for k, v in r.n_perturbations.items())
    click.echo(f"\nmodel {r.model}: {r.a} vs {r.b} — {r.n_personas} personas, "
               f"perturbations {perts} ({r.n_paired} pairs), r = {r.replicates}, "
               f"invalid answers {r.invalid['total']}, empty cells {sum(r.empty_cells.values())}")
    click.echo(r.pairing.describe())


def tests_and_decision(res, r: Comparison) -> None:
    print_table("tests", ["test", "statistic", "p-value", "note"],
                [[ab_tests.label(name), t.statistic, t.pvalue, ab_tests.get(name).note(t)]
                 for name, t in r.tests.items()])
    verdict = "significant" if res.significant(r) else "not significant"
    if r.sequential is not None:
        d = r.sequential
        click.echo(f"decision at alpha = {res.alpha:g} ({d.method} test the study stopped by, look {d.look}, "
                   f"{d.pairs} of {d.max_pairs} pairs: {d.decision}, p = {d.pvalue:.4g}): {verdict}")
        click.echo(f"note: {d.to_dict()['note']}")
        return
    click.echo(f"decision at alpha = {res.alpha:g} (sign-flip test, valid for any rho): {verdict}")


def echo_scored(res, r: Comparison) -> None:
    """One model's comparison of mean scores (rating scales, and any kind without its own printer)."""
    header(r)
    echo_scale_effect(r)
    tests_and_decision(res, r)


def echo_scale_effect(r: Comparison) -> None:
    """The effect in scale points, the mean score of each message and the top-2-box."""
    lo, hi = r.effect.ci
    view = response_type(r.scale).view
    click.echo(f"effect T = {view.of(r.a)} - {view.of(r.b)} = {r.effect.estimate:+.4f} points on the "
               f"{r.scale} scale ({r.unit}), {r.effect.confidence:.0%} CI [{lo:+.4f}, {hi:+.4f}] ({r.effect.method})")
    click.echo("mean scores: " + ", ".join(f"{m} {_num(v)}" for m, v in r.means.items()))
    echo_direction(r)
    tb = r.top_box
    if tb is None:
        return
    blo, bhi = tb.ci
    click.echo(f"top-2-box (scores {', '.join(map(str, tb.points))}): "
               + ", ".join(f"{m} {_share(v)}" for m, v in tb.shares.items())
               + f"; difference {tb.effect.estimate:+.4f} ({tb.effect.confidence:.0%} CI [{blo:+.4f}, {bhi:+.4f}]), "
               f"sign-flip p = {tb.pvalue:.4g}")


def echo_direction(r: Comparison) -> None:
    """A balanced scale's direction effect, beside the A/B effect as forced choice shows its position bias."""
    d = r.direction
    if d is None:
        return
    lo, hi = d.effect.ci
    click.echo(f"direction effect (scale shown forward − reversed, both messages): {d.effect.estimate:+.4f} points, "
               f"{d.effect.confidence:.0%} CI [{lo:+.4f}, {hi:+.4f}], sign-flip p = {d.pvalue:.4g} over "
               f"{d.n_pairs} paraphrase pairs; mean score forward {_num(d.means.get('forward'))}, reversed "
               f"{_num(d.means.get('reversed'))}; the A/B effect averages both directions")
    if d.warning:
        click.secho(f"WARNING: {d.warning}", fg="yellow", bold=True)


def set_header(r, design: str) -> None:
    """The first line of a result whose rows show a set of messages (pick one of k, best-worst scaling)."""
    click.echo(f"\nmodel {r.model}: {r.a} vs {r.b} ({design}) — {r.n_personas} personas, {r.n_sets} paraphrase sets, "
               f"r = {r.replicates}, invalid replies {r.invalid}")


def set_effect(r, what: str) -> None:
    """A shown-set pair's effect (``what`` minus what) with its interval and its sign-flip test, Holm-adjusted."""
    lo, hi = r.effect.ci
    click.echo(f"effect = {what} = {r.effect.estimate:+.4f}, {r.effect.confidence:.0%} CI [{lo:+.4f}, {hi:+.4f}]; "
               f"sign-flip p = {r.pair.raw_pvalue:.4g} over {r.n_sets} sets, Holm-adjusted over the pairs "
               f"p = {r.pair.pvalue:.4g}")


def set_decision(res, r) -> None:
    verdict = "significant" if res.significant(r) else "not significant"
    click.echo(f"decision at alpha = {res.alpha:g} (sign-flip test over paraphrase sets, Holm): {verdict}")


def echo_fit(row: dict, message: str) -> None:
    """A fitted model of a kind without a printer of its own: every number of its dict."""
    print_table(f"model {row['model']}, message {message}", ["parameter", "estimate"],
                [[k, v] for k, v in row.items() if isinstance(v, int | float) and not isinstance(v, bool)])


def effect_line(r: dict, view) -> str:
    """The effect in the view's words with its CI and the deciding p-value, and the top-2-box if any."""
    eff, p = r["effect"], r["tests"]["sign_flip"]["pvalue"]
    a, b = r["a"], r["b"]
    what = f"{view.of(a)} - {view.of(b)}" + (f" on {r['scale']}" if view.ranged else "")
    line = (f"{r['model']}: {a} vs {b}: effect {what} = {eff['estimate']:+.3f} "
            f"CI [{eff['ci'][0]:+.3f}, {eff['ci'][1]:+.3f}], sign-flip p = {p:.3g}")
    top = r.get("top_box")
    if top:
        shares = ", ".join(f"{m} {fmt(v, 3)}" for m, v in top["shares"].items())
        line += f"; top-2-box ({'/'.join(map(str, top['points']))}): {shares}, sign-flip p = {top['pvalue']:.3g}"
    return line


@dataclass(frozen=True)
class KindText:
    """A kind's printers: ``result(res, r)`` one analyze result, ``estimate(row, message)`` one fitted model,
    ``summary(r, view)`` the demo's line for one result dict; None: the mean-score printer. ``humans(res)``: the
    kind's own comparison with people (its manifest's ``humans`` part), None: its tables
    (survey.cli.humans_output.echo_people)."""

    result: Callable | None = None
    estimate: Callable | None = None
    summary: Callable | None = None
    humans: Callable | None = None


def _text(kind: str) -> KindText:
    return kind_part(kind, "text", KindText) or KindText()


def print_result(res, r) -> None:
    """`survey analyze`'s text for one result of ``res`` (survey.stats.analysis.Analysis), then its warnings."""
    (_text(res.view.kind).result or echo_scored)(res, r)
    for warning in r.warnings:
        click.secho(f"WARNING: {warning}", fg="yellow", bold=True)


def print_estimate(view, row: dict, message: str) -> None:
    (_text(view.kind).estimate or echo_fit)(row, message)


def summary_line(r: dict) -> str:
    """One line per model for the demo: the effect in the scale's unit with its CI and the deciding p-value."""
    view = response_type(r.get("scale", "binary")).view
    return (_text(view.kind).summary or effect_line)(r, view)


def _num(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def _share(v) -> str:
    return "-" if v is None else f"{v:.1%}"
