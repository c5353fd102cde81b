"""HTML reports: one self-contained index.html (plots inlined as PNG) plus results.json and table.csv.

The report reads a long table, or a Source (survey.data.sources.load_source) that adds the study's
recorded context and the data's completeness, plus optional JSON outputs of other commands.
Statistics come from survey.stats; this package does the I/O.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
from jinja2 import Environment, FileSystemLoader, select_autoescape

from survey import __version__
from survey.common.formatting import fmt, to_json
from survey.data.completeness import Completeness, split_source, table_completeness
from survey.data.table import messages_in, models_in, require_messages, validate_table
from survey.errors import SurveyError, TableError
from survey.reporting.context import completeness_view, incomplete_note, paraphrase_texts, study_view
from survey.reporting.scales import BINARY, CHOICE, report_scale
from survey.reporting.summary import study_summary
from survey.stats import ab_tests, compare_messages, estimate
from survey.stats.ab_tests import DECISION_TEST
from survey.stats.beta_logit_estimate import RHO_BIAS_NOTE
from survey.stats.comparison import Comparison
from survey.stats.heterogeneity import HETEROGENEITY_NULL

_TEMPLATES = Path(__file__).parent / "templates"


@dataclass
class Fig:
    png: str  # base64 PNG
    caption: str


@dataclass
class Section:
    """A free-form report section (planning, validity, DBPA, across models...)."""

    title: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[dict] = field(default_factory=list)  # {"columns": [...], "rows": [[...]]}
    figures: list[Fig] = field(default_factory=list)


def fig_png(fig, caption: str) -> Fig:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return Fig(base64.b64encode(buf.getvalue()).decode("ascii"), caption)


def headline(c: Comparison, alpha: float, completeness: Completeness | None = None) -> str:
    pa, pb = (float(np.nanmean(c.theta_bar[x])) for x in (c.a, c.b))
    lo, hi = c.effect.ci
    t, p = c.effect.estimate, c.tests[DECISION_TEST].pvalue
    pts = f"{t * 100:+.1f} percentage points ({c.effect.confidence:.0%} CI {lo * 100:+.1f} to {hi * 100:+.1f})"
    said = f"{pa:.0%} of answers were Yes for “{c.a}” and {pb:.0%} for “{c.b}”"
    # the shares are rounded means over every paraphrase; T is unrounded, over the pairs only
    what = f"T over the {c.n_paired} paraphrase pairs; the shares are rounded"
    partial = incomplete_note(completeness, c.model)
    if p <= alpha:
        winner, loser = (c.a, c.b) if t > 0 else (c.b, c.a)
        return (f"{c.model}: personas are more likely to want to buy after “{winner}” than after “{loser}”. "
                f"{said}, a difference of {pts} ({what}). The difference holds across the {c.n_paired} "
                f"paraphrase pairs tested (sign-flip permutation test, p = {p:.3g}).{partial}")
    return (f"{c.model}: no reliable difference between “{c.a}” and “{c.b}”. {said}, a difference of {pts} "
            f"({what}), but paraphrases of the same message vary as much as that (sign-flip permutation test, "
            f"p = {p:.3g}, above α = {alpha}).{partial}")


def _warnings(c: Comparison, alpha: float, invalid_means: str = "neither Yes nor No", rates: str = "rates") -> list[str]:
    out = []
    decisive = c.tests[DECISION_TEST]
    for name, res in c.tests.items():
        spec = ab_tests.get(name)
        if not spec.valid_when_rho_positive and res.pvalue <= alpha < decisive.pvalue:
            out.append(f"{c.model}: the {spec.label} test calls this significant (p = {res.pvalue:.3g}), but it "
                       "treats personas as independent while each paraphrase shifts every persona at once; "
                       f"it is not valid here. Rely on the {ab_tests.label(DECISION_TEST)} test.")
    if c.invalid["total"]:
        out.append(f"{c.model}: {c.invalid['total']} answers were {invalid_means}; they are excluded from "
                   f"the {rates} ({sum(c.empty_cells.values())} persona×paraphrase cells had no valid answer).")
    return out


def comparison_view(c: Comparison, df: pd.DataFrame, texts: dict | None = None) -> dict:
    """One comparison's section; ``texts``: {(message, paraphrase id): wording} labels the paraphrase plot."""
    from survey.plots import survey as plots

    estimates, rho_note = [], RHO_BIAS_NOTE
    for msg in (c.a, c.b):
        try:
            e = estimate(df, msg, c.model, bootstrap=0)[c.model]
            rho_note = e.rho_note  # what this estimator's rho-hat is known to do
            estimates.append({"message": msg, **{k: fmt(getattr(e, k), 3) for k in ("mu", "kappa", "sigma", "rho")}})
        except SurveyError:
            continue
    figs = [
        fig_png(plots.perturbation_means(c, texts), f"Mean P(Yes) of every paraphrase of “{c.a}” and “{c.b}”, "
                "averaged over personas: one labelled row per paraphrase, best first within each message, so "
                "the winning and losing wordings can be read off. Vertical bar = the message's mean over all its "
                f"paraphrases. The effect T averages the paired differences over the {c.n_paired} paraphrase "
                "pairs, so the distance between the bars equals T only when every paraphrase is paired and "
                "every cell has a valid answer."),
        fig_png(plots.persona_differences(c), "Per-persona differences in P(Yes) between the messages "
                "(what the sign and Wilcoxon tests use)."),
        fig_png(plots.permutation_null(c), "Null distribution of the effect under random sign flips of "
                "paraphrase pairs, with the observed effect T marked (the same T as in the text above)."),
    ]
    lo, hi = c.effect.ci
    return {
        "model": c.model, "a": c.a, "b": c.b,
        "tests": [{"name": ab_tests.label(name), "statistic": fmt(r.statistic), "pvalue": fmt(r.pvalue),
                   "note": ab_tests.get(name).note(r)} for name, r in c.tests.items()],
        "effect": f"{c.effect.estimate:+.4f}", "confidence": f"{c.effect.confidence:.0%}",
        "ci": f"[{lo:+.4f}, {hi:+.4f}]", "ci_method": c.effect.method,
        "design": (f"{c.n_personas} personas; perturbations "
                   + ", ".join(f"{k}: {v}" for k, v in c.n_perturbations.items())
                   + f" ({c.n_paired} pairs); r = {c.replicates} replicates."),
        "estimates": estimates, "rho_note": rho_note, "figures": figs,
    }


def analyze_all(df: pd.DataFrame, a: str | None, b: str | None, alpha: float, seed: int,
                n_resamples: int, left_out: list[str] | None = None) -> list[Comparison]:
    """One comparison per model and per message pair (the named pair, or every pair present).

    A pair that cannot be tested (e.g. every answer invalid) is described in ``left_out``, so that
    one such model does not hide the others; when nothing can be tested, that is the error.
    """
    out, skipped = [], [] if left_out is None else left_out
    require_messages(df, [a or None, b or None])
    for model in models_in(df):
        msgs = messages_in(df, model)
        pairs = [(a, b)] if a and b else [(x, y) for i, x in enumerate(msgs) for y in msgs[i + 1:]]
        for x, y in pairs:
            if x in msgs and y in msgs:
                try:
                    out.append(compare_messages(df, model, x, y, seed=seed, n_resamples=n_resamples))
                except TableError as exc:
                    skipped.append(str(exc))
    if not out:
        raise SurveyError("; ".join(skipped) or "nothing to compare: the table needs two messages for at "
                          "least one model")
    return out


def exact_probability_comparisons(df: pd.DataFrame, comps: list[Comparison], seed: int,
                                  n_resamples: int) -> list[Comparison]:
    """The same comparisons on exact per-cell P(Yes), for models whose every row carries ``p_yes``
    (a local model in exact mode, or simulated respondents): theta without replicate noise."""
    if "p_yes" not in df:
        return []
    out = []
    for c in comps:
        rows = df[(df["model"] == c.model) & df["message"].isin([c.a, c.b])]
        if rows["p_yes"].notna().all():
            out.append(compare_messages(df, c.model, c.a, c.b, seed=seed, n_resamples=n_resamples,
                                        probabilities=True))
    return out


def exact_section(comps: list[Comparison], alpha: float, what: str = "P(Yes)",
                  reported: str = "the exact probability of answering Yes") -> Section:
    sec = Section(f"The same tests on the model's exact {what}", paragraphs=[
        f"These models report {reported} in every persona × paraphrase cell, so "
        "the tests can run on it directly, without replicate noise. Less noise makes the invalid tests even "
        "more confident, while the sign-flip test still accounts for paraphrases moving every persona at once."])
    rows = []
    for c in comps:
        lo, hi = c.effect.ci
        rows.append([c.model, f"{c.a} vs {c.b}", f"{c.effect.estimate:+.4f}", f"[{lo:+.4f}, {hi:+.4f}]",
                     *(fmt(r.pvalue) for r in c.tests.values())])
    names = list(comps[0].tests) if comps else ab_tests.names()
    sec.tables.append({"columns": ["model", "messages", "effect", "CI",
                                   *(f"{ab_tests.label(t)} p" + (" (valid)" if ab_tests.get(t).valid_when_rho_positive
                                                                 else "") for t in names)], "rows": rows})
    return sec


def has_expected(df: pd.DataFrame, model: str, messages: list[str]) -> bool:
    """Whether every row of ``model`` and ``messages`` carries exact mode's expected score."""
    rows = df[(df["model"] == model) & df["message"].isin(messages)]
    return "expected" in df and not rows.empty and bool(rows["expected"].notna().all())


def scale_analyses(df: pd.DataFrame, info, a: str | None, b: str | None, alpha: float, seed: int,
                   n_resamples: int, left_out: list[str], completeness: Completeness | None,
                   texts: dict) -> tuple[list[str], list[dict], list[dict], list[str], list[Section], list[dict]]:
    """(headlines, section views, results.json entries, warnings, exact-mode sections, exact-mode results)
    of a rating-scale or forced-choice table."""
    if info.kind == CHOICE:
        from survey.reporting.choice import (
            analyze_choices,
            choice_headline,
            choice_view,
            choice_warnings,
            exact_choice_section,
            exact_choices,
        )

        choices = analyze_choices(df, a, b, alpha, seed, n_resamples, left_out)
        exact = exact_choices(df, choices, alpha, seed, n_resamples)
        return ([choice_headline(mc, alpha, completeness) for mc in choices], [choice_view(mc, df) for mc in choices],
                [mc.to_dict() for mc in choices], [w for mc in choices for w in choice_warnings(mc, alpha)],
                [exact_choice_section(exact)] if exact else [], [mc.to_dict() for mc in exact])
    from survey.reporting.scales import ordinal_headline, ordinal_results, ordinal_view

    comps = analyze_all(df, a, b, alpha, seed, n_resamples, left_out)
    boxes = [c.top_box for c in comps]  # None on a scale of fewer than four points
    invalid = f"not one of the {len(info.scores)} labels of the {info.name} scale"
    exact = [compare_messages(df, c.model, c.a, c.b, seed=seed, n_resamples=n_resamples, probabilities=True)
             for c in comps if has_expected(df, c.model, [c.a, c.b])]
    sections = [exact_section(exact, alpha, "expected scores", "the exact expected score (from the probabilities "
                              "of the scale's labels)")] if exact else []
    return ([ordinal_headline(c, tb, info, alpha, completeness) for c, tb in zip(comps, boxes, strict=True)],
            [ordinal_view(c, tb, df, info, texts) for c, tb in zip(comps, boxes, strict=True)],
            [ordinal_results(c, tb, info) for c, tb in zip(comps, boxes, strict=True)],
            [w for c in comps for w in _warnings(c, alpha, invalid, "mean scores")],
            sections, [c.to_dict() for c in exact])


def build_report(df, out_dir: str | Path, *, title: str | None = None, a: str | None = None,
                 b: str | None = None, alpha: float = 0.05, seed: int = 0, n_resamples: int = 9999,
                 sizes: dict | None = None, extras: dict | None = None, completeness: Completeness | None = None,
                 context: dict | None = None) -> dict:
    """Write index.html, results.json and table.csv into out_dir; return the results dict.

    ``df``: a long table or a Source (survey.data.sources.load_source), whose study context and
    completeness the report shows; ``completeness``/``context`` override them (a bare table's
    completeness is its own grid's, its context unknown).
    ``extras``: optional {"plan": ..., "validate": ..., "dbpa": ...} outputs of those commands' --json.
    ``sizes``: model -> size, to order the across-model plot.
    """
    from survey.reporting.extras import extra_sections

    context = context if context is not None else getattr(df, "context", None)
    df, completeness = split_source(df, completeness)
    df = validate_table(df)
    completeness = completeness or table_completeness(df)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    left_out: list[str] = []
    info = report_scale(df)
    if info.kind == BINARY:
        comps = analyze_all(df, a, b, alpha, seed, n_resamples, left_out)
        exact = exact_probability_comparisons(df, comps, seed, n_resamples)
        found = [w for c in comps for w in _warnings(c, alpha)]
        headlines = [headline(c, alpha, completeness) for c in comps]
        views = [comparison_view(c, df, paraphrase_texts(context)) for c in comps]
        results_list = [c.to_dict() for c in comps]
        exact_sections = [exact_section(exact, alpha)] if exact else []
    else:
        exact, (headlines, views, results_list, found, exact_sections, exact_json) = [], scale_analyses(
            df, info, a, b, alpha, seed, n_resamples, left_out, completeness, paraphrase_texts(context))
    summary = study_summary(df)
    sections, extra_json = extra_sections(df, extras, alpha=alpha, sizes=sizes, a=a, b=b, kind=info.kind)
    sections = exact_sections + sections
    if info.kind != BINARY and exact_json:
        extra_json = {"exact_expected": exact_json, **extra_json}
    warnings = [f"Left out: {x}" for x in left_out] + found
    across = extra_json.get("across_models")
    if across and across["models"]["depends_on_model"]:
        warnings.insert(0, "The conclusion depends on the model: " + "; ".join(across["models"]["reasons"])
                        + f". (The heterogeneity test's null: {across['models'].get('heterogeneity_null', HETEROGENEITY_NULL)}.)")
    warnings = [w[0].upper() + w[1:] for w in completeness.warnings()] + warnings
    results = {"study": completeness.study, "completeness": completeness.to_dict(), "context": context,
               "summary": summary, "alpha": alpha, "results": results_list,
               **({"left_out": left_out} if left_out else {}),
               **({"exact_probabilities": [c.to_dict() for c in exact]} if exact else {}),
               **extra_json}
    env = Environment(loader=FileSystemLoader(_TEMPLATES), autoescape=select_autoescape(["html", "j2"]))
    html = env.get_template("report.html.j2").render(
        title=title or "Generative survey report", generated=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        version=__version__, n_rows=len(df), headlines=headlines,
        warnings=warnings, summary=summary, study=study_view(df, context, completeness),
        completeness=completeness_view(completeness), kind=info.kind, scale=info,
        comparisons=views, extra_sections=sections,
    )
    (out / "index.html").write_text(html, encoding="utf-8")
    (out / "results.json").write_text(to_json(results), encoding="utf-8")
    df.to_csv(out / "table.csv", index=False)
    return results
