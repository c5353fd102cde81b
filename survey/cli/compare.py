"""`survey compare`: message A vs B across models (with agreement), and every pair of messages."""

from __future__ import annotations

import re

import click

import survey
from survey import SurveyError
from survey.cli.common import (
    FLIPS_HELP_ONE_TEST,
    alpha_option,
    echo_completeness,
    echo_json,
    flips_option,
    fmt,
    json_option,
    print_table,
    require_file,
    scale_option,
    seed_option,
)
from survey.cli.texts import ADJUSTMENTS, DECISION_TEST, TIES, WEIGHTS

# The statistics (numpy, pandas, scipy) are imported inside the command: --help stays light.

_UNITS = {"": 1.0, "K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12}
_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([KkMmBbGgTt]?)\s*$")


def parse_sizes(text: str | None) -> dict[str, float] | None:
    """'m1=3e9,m2=8B,m3=135M' -> {'m1': 3e9, 'm2': 8e9, 'm3': 1.35e8}; the last '=' splits name and size."""
    if not text:
        return None
    out = {}
    for part in text.split(","):
        name, sep, value = part.rpartition("=")
        match = _SIZE.match(value)
        if not sep or not name.strip() or not match:
            raise SurveyError(f"--sizes takes MODEL=SIZE pairs separated by commas, e.g. 'a=3e9,b=8B'; got '{part}'")
        size = float(match.group(1)) * _UNITS[match.group(2).upper()]
        if size <= 0:
            raise SurveyError(f"--sizes: the size of '{name.strip()}' must be positive; got '{value}'")
        out[name.strip()] = size
    return out


@click.command("compare")
@click.argument("table", type=click.Path(dir_okay=False))
@click.option("--study", default=None, help="study name, when a store holds several")
@scale_option
@click.option("--a", "a", default=None, help="message A (default: the first message)")
@click.option("--b", "b", default=None, help="message B (default: the second message)")
@click.option("--sizes", default=None, help="model sizes to order the plot, e.g. 'm1=3e9,m2=8B,m3=135M'")
@alpha_option()
@click.option("--holm-models", is_flag=True, help="Holm-adjust the per-model p-values before counting directions")
@click.option("--adjust", type=click.Choice(ADJUSTMENTS), default="holm", show_default=True,
              help="adjustment across message pairs (bh = Benjamini-Hochberg)")
@click.option("--fit", type=click.Choice(["a", "b", "none"]), default="a", show_default=True,
              help="fit (mu, kappa, sigma, rho) on message A's or B's responses, or skip")
@click.option("--ties", type=click.Choice(TIES), default="drop", show_default=True,
              help="agreement: a cell with as many Yes as No answers (a mean halfway between two points) is left "
                   "out, or counted as No/Yes (the lower/higher point: low/high)")
@click.option("--kappa-weights", type=click.Choice(WEIGHTS), default="auto", show_default=True,
              help="agreement on a rating scale: weighted kappa's weights (auto: quadratic on rating scales, "
                   "unweighted on Yes/No and forced choice)")
@flips_option(9999, FLIPS_HELP_ONE_TEST)
@seed_option()
@click.option("--confidence", type=float, default=None, help="level of the effect CIs  [default: 1 - alpha]")
@click.option("--plot", "plot", type=click.Path(dir_okay=False), default=None,
              help="also save the effect-by-model plot (.png, .svg or .pdf)")
@click.option("--question", "question", default=None, help="several questions: the question compared")
@json_option
def compare_cmd(table, study, scale, a, b, sizes, alpha, holm_models, adjust, fit, ties, kappa_weights, flips, seed,
                confidence, plot, question, as_json):
    """Compare A vs B across the models of TABLE (a long table or a store), and every pair of messages.

    Flags "conclusion depends on the model" when significant effects disagree in sign or the
    effects differ across models (heterogeneity test at the perturbation level).
    """
    if confidence is not None and not 0 < confidence < 1:
        raise SurveyError("--confidence must be between 0 and 1")
    size_map = parse_sizes(sizes)  # before the progress bar starts: a bad flag is one clean line
    require_file(table, "source")
    from survey import comparison_steps, open_source, progress_bar

    src = survey.one_question(open_source(table, study, scale=scale), "compare", question)
    with progress_bar("comparing", comparison_steps(src.table), not as_json) as tick:
        out = survey.compare(src, a, b, sizes=size_map, alpha=alpha, adjust_models="holm" if holm_models else "none",
                            adjust_messages=adjust, fit=fit, ties=ties, kappa_weights=kappa_weights,
                            n_resamples=flips, seed=seed,
                            confidence=confidence, progress=tick)
    res = out.models
    if plot:
        from survey import model_effects

        try:
            model_effects(res).savefig(plot, dpi=120)
        except (ValueError, OSError) as exc:
            raise SurveyError(f"--plot {plot}: cannot save ({exc}); use a .png, .svg or .pdf path") from exc
    if as_json:
        echo_json({**out.to_dict(), "plot": plot})
        return
    echo_completeness(out.completeness)
    _print_models(res, out.note, confidence or 1 - alpha)
    if out.agreement is not None:
        _print_agreement(out.agreement)
    for m in out.messages:
        _print_messages(m)
    for m, why in out.messages_left_out.items():
        click.echo(f"{m}: every pair of messages left out: {why}")
    if plot:
        click.echo(f"plot saved to {plot}")


def _level(res, confidence) -> str:
    """The models' intervals' level: the one asked for, or each result's own where it differs (a checkbox's are
    simultaneous over its options)."""
    levels = {s.effect.confidence for s in res.models} or {confidence}
    return f"{100 * levels.pop():.4g}%" if len(levels) == 1 else "each result's own"


def _print_models(res, note, confidence) -> None:
    from survey import ab_tests, deciding_part, kind_of, scale_view

    if note:
        click.echo(note)
    view = scale_view(res.scale)
    holm = res.direction.adjust != "none"
    verdict = {1: f"prefers {res.a}", -1: f"prefers {res.b}", 0: "not significant"}
    rows, tests, fits = [], [], []
    others = [t for t in ab_tests.names() if t != DECISION_TEST and any(t in s.pvalues for s in res.models)]
    # a result decided by a family of tests (a checkbox): each model's effect is on its own deciding part, named
    word = next((s.comparison.part_word for s in res.models if deciding_part(s.comparison) is not None), None)
    for s in res.models:
        lo, hi = s.effect.ci
        rows.append([s.model, _size(s.size), s.n_personas, s.n_paired, s.replicates, f"{s.invalid_rate:.1%}",
                     f"{s.effect.estimate:+.3f}", *([deciding_part(s.comparison)] if word else []),
                     f"[{lo:+.3f}, {hi:+.3f}]"])
        tests.append([s.model, s.pvalues[DECISION_TEST], *([s.pvalue_adjusted] if holm else []),
                      *(s.pvalues.get(t) for t in others), verdict[s.direction]])
        fits.append([s.model, s.fit_message or "—", *(s.fit.params.get(k) if s.fit else None for k in res.fit_params)])
    print_table(f"{res.a} vs {res.b} by model: {kind_of(view).effect_words(view, res.a, res.b)}",
                ["model", "size", "n", "m", "r", "invalid", "effect", *([f"on {word}"] if word else []),
                 f"{_level(res, confidence)} CI"], rows)
    print_table("p-values (the sign-flip permutation test decides)",
                ["model", DECISION_TEST, *(["Holm"] if holm else []),
                 *(t + ("" if ab_tests.get(t).valid_when_rho_positive else "*") for t in others), "verdict"], tests)
    fitted = next((s.fit for s in res.models if s.fit is not None), None)
    if fitted is not None:
        print_table(f"fitted {fitted.model_name} parameters ({fitted.estimator} estimator)",
                    ["model", "fitted on", *res.fit_params], fits)
        for n in fitted.notes:
            click.echo(f"note: {n}")
    click.echo(f"* invalid when rho > 0 (personas are not independent); the {ab_tests.label(DECISION_TEST)} "
               "test decides.")
    d = res.direction
    click.echo(f"significant at alpha = {d.alpha}{' (Holm across models)' if d.adjust != 'none' else ''}: "
               f"{len(d.prefer_a)} prefer {res.a}, {len(d.prefer_b)} prefer {res.b}, "
               f"{len(d.not_significant)} not significant")
    h = res.heterogeneity
    if h is not None:
        said = f"p = {fmt(h.pvalue)}" if h.parts is None else h.in_words()
        click.echo(f"heterogeneity ({h.method}): {said}; statistic {fmt(h.statistic)}")
    if res.depends_on_model:
        click.secho("CONCLUSION DEPENDS ON THE MODEL", fg="red", bold=True)
        for r in res.reasons:
            click.echo(f"  - {r}")
        click.echo(f"  (heterogeneity test's null: {res.heterogeneity_null})")
    else:
        click.echo(res.summary)
    for n in res.notes:
        click.echo(f"note: {n}")


def _size(size):
    from survey import format_size

    return format_size(size) if size else None


def _print_agreement(ag) -> None:
    from survey import STRONG, kind_of, scale_view

    view = scale_view(ag.scale)
    src = [kind_of(view).label_words(view, s) for s in sorted(set(ag.sources.values()))]
    rows = [[p.model_a, p.model_b, p.n_cells, f"{p.agreement:.1%}" if p.n_cells else None, p.kappa,
             p.to_dict()["interpretation"]] for p in ag.pairs]
    print_table(f"agreement per (message, persona, perturbation) cell — labels from {', '.join(src)}; "
                f"ties: {ag.ties} ({sum(ag.n_ties.values())} tied cells)",
                ["model", "model", "cells", "agreement", ag.kappa_name, "reading"], rows)
    d = ag.to_dict()
    click.echo(f"Fleiss' kappa across {len(ag.models)} models on {ag.n_cells_all} cells: {fmt(ag.fleiss_kappa)} "
               f"({d['fleiss_interpretation']}); mean pairwise kappa {fmt(ag.mean_kappa)}. "
               f"kappa >= {STRONG} is the usual bar for strong agreement; LLM judges averaged 0.118 (Liu et al. 2025).")
    for note in ag.notes:
        click.echo(f"note: {note}")


def _print_messages(mc) -> None:
    rows = [[p.a, p.b, f"{p.effect.estimate:+.3f}", f"[{p.effect.ci[0]:+.2f}, {p.effect.ci[1]:+.2f}]",
             f"[{p.simultaneous_ci[0]:+.2f}, {p.simultaneous_ci[1]:+.2f}]", p.pvalue, p.pvalue_adjusted,
             p.winner or "—"] for p in mc.pairs]
    print_table(f"model {mc.model}: every pair of {len(mc.messages)} messages ({mc.adjustment} adjustment, "
                f"{len(mc.pairs)} tests)",
                ["a", "b", "a − b", "CI", "joint CI", "p", "adjusted", "winner"], rows)
    ranking = ", ".join(f"{m} {mc.mean_yes[m]:.3f}" for m in mc.ranking)
    click.echo(f"mean {mc.unit} by message: {ranking}")


def register(cli: click.Group) -> None:
    cli.add_command(compare_cmd)
