"""Text output of `survey analyze`, `survey estimate` and the demo's summary, one printer per response kind.

The printers are chosen by the result's analysis view (``view.kind``) from the small tables at the end of
this module; a kind without a printer of its own gets the mean-score printer, which reads the view's words
(quantity, unit), so a new kind prints without a line here."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.common.formatting import fmt
from survey.responses import response_type
from survey.stats import ab_tests
from survey.stats.choice import PERSONA_NOTE, POSITION_QUANTITY, ChoiceResult, preference_name
from survey.stats.comparison import Comparison


def _header(r: Comparison) -> None:
    perts = ", ".join(f"{k} {v}" for k, v in r.n_perturbations.items())
    click.echo(f"\nmodel {r.model}: {r.a} vs {r.b} — {r.n_personas} personas, "
               f"perturbations {perts} ({r.n_paired} pairs), r = {r.replicates}, "
               f"invalid answers {r.invalid['total']}, empty cells {sum(r.empty_cells.values())}")
    click.echo(r.pairing.describe())


def _tests_and_decision(res, r: Comparison) -> None:
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


def echo_binary(res, r: Comparison) -> None:
    """One model's Yes/No comparison: P(Yes) difference, its interval, every test."""
    lo, hi = r.effect.ci
    _header(r)
    click.echo(f"effect T = mean P(Yes|{r.a}) - P(Yes|{r.b}) = {r.effect.estimate:+.4f}, "
               f"{r.effect.confidence:.0%} CI [{lo:+.4f}, {hi:+.4f}] ({r.effect.method})")
    _tests_and_decision(res, r)


def echo_scored(res, r: Comparison) -> None:
    """One model's comparison of mean scores (rating scales, and any kind without its own printer)."""
    _header(r)
    echo_scale_effect(r)
    _tests_and_decision(res, r)


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
    d = getattr(r, "direction", None)
    if d is None:
        return
    lo, hi = d.effect.ci
    click.echo(f"direction effect (scale shown forward − reversed, both messages): {d.effect.estimate:+.4f} points, "
               f"{d.effect.confidence:.0%} CI [{lo:+.4f}, {hi:+.4f}], sign-flip p = {d.pvalue:.4g} over "
               f"{d.n_pairs} paraphrase pairs; mean score forward {_num(d.means.get('forward'))}, reversed "
               f"{_num(d.means.get('reversed'))}; the A/B effect averages both directions")
    if d.warning:
        click.secho(f"WARNING: {d.warning}", fg="yellow", bold=True)


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


def echo_pick(res, r) -> None:
    """One model's pick-one-of-k result: every message's share, the pair's test (Holm), the position test."""
    click.echo(f"\nmodel {r.model}: {r.a} vs {r.b} (pick one of {len(r.messages)}, positions averaged) — "
               f"{r.n_personas} personas, {r.n_sets} paraphrase sets, r = {r.replicates}, invalid replies {r.invalid}")
    print_table("shares chosen (order-averaged)", ["message", "share", f"{r.effect.confidence:.0%} CI"],
                [[m, s, f"[{ci[0]:.4f}, {ci[1]:.4f}]"] for m, (s, ci) in r.shares.items()])
    lo, hi = r.effect.ci
    click.echo(f"effect = share choosing {r.a} - share choosing {r.b} = {r.effect.estimate:+.4f}, "
               f"{r.effect.confidence:.0%} CI [{lo:+.4f}, {hi:+.4f}]; sign-flip p = {r.pair.raw_pvalue:.4g} over "
               f"{r.n_sets} sets, Holm-adjusted over the pairs p = {r.pair.pvalue:.4g}")
    pos = r.position
    click.echo("position shares: " + ", ".join(f"{t + 1}: {s:.3f}" for t, s in enumerate(pos.shares))
               + f"; position test p = {pos.pvalue:.4g} (exchanges {pos.exchanges})")
    if r.warning:
        click.secho(f"WARNING: {r.warning}", fg="yellow", bold=True)
    verdict = "significant" if res.significant(r) else "not significant"
    click.echo(f"decision at alpha = {res.alpha:g} (sign-flip test over paraphrase sets, Holm): {verdict}")


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


def pick_line(r: dict, view) -> str:
    shares = ", ".join(f"{m} {fmt(v['share'], 3)}" for m, v in r["shares"].items())
    return (f"{r['model']}: pick one of {len(r['messages'])}: shares {shares}; {r['a']} vs {r['b']} Holm p = "
            f"{r['pair']['pvalue']:.3g}; position test p = {r['position']['pvalue']:.3g}")


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


def echo_beta_estimate(row: dict, message: str) -> None:
    """One model's Beta-logit estimate (``EstimateResult.to_dict()`` with its model)."""
    se, ci = row["se"], row["ci"]
    print_table(f"model {row['model']}, message {message}: {row['n_personas']} personas, "
                f"{row['n_perturbations']} perturbations; estimator: {row['method']}",
                ["parameter", "estimate", "bootstrap s.e.", "95% interval"],
                [[p, row[p], se.get(p), "[{:.4g}, {:.4g}]".format(*ci[p]) if p in ci else None]
                 for p in ("mu", "kappa", "a", "b", "sigma", "rho")])
    if row.get("note"):
        click.echo(f"note: {row['note']}")
    click.echo(f"rho: {row['rho_note']}")


def echo_fit(row: dict, message: str) -> None:
    """A fitted model of a kind without a printer of its own: every number of its dict."""
    print_table(f"model {row['model']}, message {message}", ["parameter", "estimate"],
                [[k, v] for k, v in row.items() if isinstance(v, int | float) and not isinstance(v, bool)])


def choice_line(r: dict, view) -> str:
    pref, pos = r["preference"], r["position_bias"]
    lo, hi = pref["estimate_ci"]
    return (f"{r['model']}: {r['a']} vs {r['b']} (forced choice): {preference_name(r['a'], r['b'])} "
            f"{pref['estimate']:+.3f} CI [{lo:+.3f}, {hi:+.3f}], p = {pref['pvalue']:.3g}; "
            f"position bias ({POSITION_QUANTITY}) {pos['estimate']:+.3f}, p = {pos['pvalue']:.3g}")


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


# The printers of each kind (AnalysisView.kind); a kind not named here gets the mean-score ones.
RESULT_PRINTERS = {"binary": echo_binary, "choice": echo_choice_result, "pick": echo_pick, "maxdiff": echo_maxdiff}
ESTIMATE_PRINTERS = {"binary": echo_beta_estimate, "ordinal": echo_ordinal_estimate}
SUMMARY_LINES = {"choice": choice_line, "pick": pick_line}


def print_result(res, r) -> None:
    """`survey analyze`'s text for one result of ``res`` (survey.stats.analysis.Analysis)."""
    RESULT_PRINTERS.get(res.view.kind, echo_scored)(res, r)


def print_estimate(view, row: dict, message: str) -> None:
    ESTIMATE_PRINTERS.get(view.kind, echo_fit)(row, message)


def summary_line(r: dict) -> str:
    """One line per model for the demo: the effect in the scale's unit with its CI and the deciding p-value."""
    view = response_type(r.get("scale", "binary")).view
    return SUMMARY_LINES.get(view.kind, effect_line)(r, view)


def _num(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def _share(v) -> str:
    return "-" if v is None else f"{v:.1%}"
