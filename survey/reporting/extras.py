"""Optional report sections: planning, validity, DBPA (from the commands' --json files) and the
across-model comparison (computed from the table when it holds two or more models)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from survey.common.formatting import fmt  # noqa: E402
from survey.data.table import models_in  # noqa: E402
from survey.errors import SurveyError  # noqa: E402
from survey.reporting import Section, fig_png  # noqa: E402
from survey.stats import ab_tests  # noqa: E402


def records_table(records: list[dict], columns: list[str] | None = None) -> dict:
    """A list of flat dicts as a report table (nested values are shown compactly)."""
    columns = columns or list(dict.fromkeys(k for r in records for k in r))
    return {"columns": columns, "rows": [[_cell(r.get(c)) for c in columns] for r in records]}


def _cell(v) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_cell(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "[" + ", ".join(_cell(x) for x in v) + "]"
    return fmt(v, 3) if isinstance(v, float) else ("—" if v is None else str(v))


def plan_section(plan: dict) -> Section:
    rows = plan.get("results", [])
    if not rows or not all(isinstance(r, dict) and isinstance(r.get("power"), dict) for r in rows):
        raise SurveyError("--plan: no 'results' with 'power'; pass the output of `survey plan --json`")
    rows = [{**r, "power": ab_tests.canonical_keys(r["power"])} for r in rows]  # one column per test
    df = pd.json_normalize(rows)
    power_cols = [c for c in df.columns if c.startswith("power.")]
    fig, axes = plt.subplots(1, len(power_cols), figsize=(3.4 * len(power_cols), 3.2), sharey=True, squeeze=False)
    for ax, col in zip(axes[0], power_cols, strict=True):
        for strategy, g in df.groupby("strategy", sort=False):
            g = g.sort_values("budget")
            ax.plot(g["budget"], g[col], marker="o", ms=3, label=str(strategy))
        ax.set_title(ab_tests.label(col.split(".", 1)[1]), fontsize=9)
        ax.set_xlabel("budget N = 2·n·m·r")
        ax.axhline(0.8, color="#999", lw=0.8, ls=":")
    axes[0][0].set_ylabel("power")
    axes[0][-1].legend(fontsize=7, title="n:m:r")
    fig.tight_layout()
    sec = Section("Planning: power by budget and allocation")
    sec.figures.append(fig_png(fig, "Simulated power against total budget, one line per n:m:r allocation "
                                    "(dotted line: 80% power)."))
    cheapest = plan.get("cheapest")
    if cheapest:
        sec.paragraphs.append("Cheapest design reaching the target power: " + _cell(cheapest) + ".")
    sec.tables.append(records_table(rows))
    return sec


def validate_section(data: dict, alpha: float) -> Section:
    """`survey validate --json`: rejection rates with intervals and verdicts, and the p-value ECDFs."""
    rows = data.get("results")
    if not rows or not all(isinstance(r, dict) and {"model", "condition", "n", "m", "r"} <= set(r)
                           and isinstance(r.get("tests"), dict)
                           and all(isinstance(t, dict) and "rate" in t for t in r["tests"].values())
                           for r in rows):
        raise SurveyError("--validate: no 'results' with 'tests'; pass the output of `survey validate --json`")
    rows = [{**r, "tests": ab_tests.canonical_keys(r["tests"]), "ecdf": ab_tests.canonical_keys(r.get("ecdf", {}))}
            for r in rows]  # one column and one curve per test, without the deprecated aliases
    tests = list(dict.fromkeys(t for r in rows for t in r["tests"]))
    table = {"columns": ["model", "condition", "n", "m", "r", *map(ab_tests.label, tests)], "rows": []}
    for r in rows:
        cells = []
        for t in tests:
            x = r["tests"].get(t)
            cells.append("—" if x is None else f"{x['rate']:.3f} [{x['ci'][0]:.3f}, {x['ci'][1]:.3f}] {x['verdict']}")
        table["rows"].append([r["model"], r["condition"], r["n"], r["m"], r["r"], *cells])
    cols = min(3, len(rows))
    nrows = -(-len(rows) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(3.3 * cols, 3.0 * nrows), squeeze=False)
    for ax, r in zip(axes.ravel(), rows, strict=False):
        ax.plot([0, 1], [0, 1], color="#999", lw=1, ls="--")
        for t, pts in r.get("ecdf", {}).items():
            xs = [0.0, *map(float, pts)]
            ax.plot(xs, [0.0, *pts.values()], marker="o", ms=3, label=ab_tests.label(t),
                    color=getattr(ab_tests.AB_TESTS.get(t), "color", None))
        ax.set_title(f"{r['model']}: n={r['n']}, m={r['m']}, r={r['r']}", fontsize=9)
        ax.set_xlim(0, max(0.5, *(float(k) for p in r.get("ecdf", {}).values() for k in p)))
        ax.set_ylim(0, 1)
    for ax in axes.ravel()[len(rows):]:
        ax.axis("off")
    axes[0][0].legend(fontsize=7)
    fig.supxlabel("p-value")
    fig.supylabel("share of draws with p ≤ x")
    fig.tight_layout()
    cond = rows[0].get("condition", "null")
    sec = Section("Validity on this data: " + ("null split" if cond == "null" else "power by sub-sampling"),
                  paragraphs=[f"{data.get('draws', '?')} random sub-samples per configuration. Under the null, a valid "
                              f"test's ECDF lies on or under the diagonal and it rejects at most α = {alpha} of the time; "
                              "'oversized' means the rejection rate's interval lies above α."])
    sec.tables.append(table)
    sec.figures.append(fig_png(fig, "Empirical CDF of the p-values of each test, one panel per (n, m, r) "
                                    "configuration, against the diagonal."))
    return sec


def json_section(title: str, data: dict, caption: str) -> Section:
    """A faithful table view of another command's JSON results (list-valued keys become tables)."""
    sec = Section(title, paragraphs=[caption])
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            sec.tables.append(records_table(value))
        elif not isinstance(value, (list, dict)):
            sec.paragraphs.append(f"{key}: {_cell(value)}")
    return sec


# The across-model table's columns, for people (the JSON keeps the keys).
COLUMN_WORDS = {"model": "model", "size": "size", "n": "personas", "m": "pairs", "r": "replicates",
                "invalid_rate": "invalid", "effect": "effect", "ci_low": "CI low", "ci_high": "CI high",
                "p_sign_flip": "sign-flip p", "p_unpaired": "unpaired p", "p_sign": "sign p*",
                "p_wilcoxon": "Wilcoxon p*", "p_adjusted": "adjusted p"}


def models_section(table) -> tuple[Section, dict]:
    """Across models (survey.stats.table_comparison's result): per-model effects, direction agreement,
    heterogeneity, the 'depends' flag, and how far the models agree."""
    from survey.plots.models import model_effects
    from survey.stats.agreement import interpret_kappa

    res, a, b, alpha = table.models, table.a, table.b, table.models.alpha
    sec = Section(f"Across models: {a} vs {b}", paragraphs=[res.summary])
    d = res.direction
    sec.paragraphs.append(f"Significant at α = {alpha}: {len(d.prefer_a)} model(s) prefer {a}, "
                          f"{len(d.prefer_b)} prefer {b}, {len(d.not_significant)} show no reliable difference.")
    if res.heterogeneity is not None:
        h = res.heterogeneity
        said = f"p = {fmt(h.pvalue)}" if h.parts is None else h.in_words()
        sec.paragraphs.append(f"Heterogeneity test (are the effects equal across models?): {said} "
                              f"({h.method}). Its null: {res.heterogeneity_null}.")
    sec.paragraphs.extend(res.notes)
    fitted = next((s.fit for s in res.models if s.fit is not None), None)
    if fitted is not None:
        sec.paragraphs.append(f"{', '.join(res.fit_params)} in the table: the {fitted.model_name} fit of each "
                              f"model on {a} ({fitted.estimator} estimator). " + " ".join(fitted.notes))
    frame = res.table()
    frame["CI"] = [f"[{lo:+.3f}, {hi:+.3f}]" for lo, hi in zip(frame["ci_low"], frame["ci_high"], strict=True)]
    # three narrow tables rather than one that overflows the page: effects, the other tests, the fits
    # forced choice's share A columns stay out: its effect is the preference, the one number it reports
    # a result decided by a family of tests (a checkbox): each model's effect is on its deciding part, named
    part = next((s.comparison.part_word for s in res.models if s.comparison.part_word in frame), None) \
        if all(hasattr(s.comparison, "part_word") for s in res.models) else None
    main = ["model", "size", "n", "m", "r", "invalid_rate", "effect", *([part] if part else []), "CI", "p_sign_flip",
            "p_adjusted"]
    others = ["model", *[c for c in ("p_unpaired", "p_sign", "p_wilcoxon") if c in frame]]
    fits = ["model", *[c for c in res.fit_params if c in frame]]
    for cols in (main, others, fits if len(fits) > 1 else []):
        if cols:
            sec.tables.append(records_table(frame[cols].rename(columns=COLUMN_WORDS).to_dict("records")))
    sec.paragraphs.append("* treats personas as independent: not valid when a paraphrase shifts every persona; "
                          "the sign-flip test decides.")
    levels = {s.effect.confidence for s in res.models}
    level = f"{100 * levels.pop():.4g}%" if len(levels) == 1 else "its"
    unit = res.unit + (f", each model on its deciding {part}" if part else "")
    sec.figures.append(fig_png(model_effects(res), f"Effect of {a} over {b} (difference in {unit}) with its "
                                                   f"{level} CI for each model, ordered by model size where given."))
    agree = table.agreement
    out = {"models": res.to_dict()}
    if agree is not None:
        sec.paragraphs.append(
            f"Agreement of the models' answers per persona × paraphrase cell: Fleiss' κ = {fmt(agree.fleiss_kappa, 3)} "
            f"({interpret_kappa(agree.fleiss_kappa)}); mean pairwise Cohen's κ = {fmt(agree.mean_kappa, 3)}. κ ≥ 0.6 "
            "is the usual bar for strong agreement; LLM judges averaged 0.118 in Liu et al. (2025), “Statistically "
            "Significant Results On Biases and Errors of LLMs Do Not Guarantee Generalizable Results”.")
        sec.paragraphs.extend(f"Note: {n}." for n in agree.notes)
        words = {"model_a": "model", "model_b": "model ", "n_cells": "cells", "kappa": "κ", "interpretation": "reading",
                 "strong": "strong (κ ≥ 0.6)"}
        sec.tables.append(records_table([{words.get(k, k): v for k, v in p.to_dict().items()} for p in agree.pairs]))
        out["agreement"] = agree.to_dict()
    return sec, out


def messages_sections(table) -> tuple[list[Section], dict]:
    """Three or more messages: every pair from the same responses, Holm-adjusted (table_comparison's)."""
    from survey.stats.kinds import scale_view

    sections, out = [], {}
    for model, why in table.messages_left_out.items():
        sections.append(Section(f"{model}: every pair of messages", paragraphs=[f"Left out: {why}"]))
    for res in table.messages:
        sec = Section(f"{res.model}: every pair of messages ({res.adjustment}-adjusted)", paragraphs=[
            f"Ranking by {scale_view(res.scale).quantity}: " + " > ".join(res.ranking) + ". Each pair is a sign-flip test on the "
            f"same responses; p-values are adjusted ({res.adjustment}) across all pairs."])
        sec.tables.append(records_table(res.table().to_dict("records")))
        sections.append(sec)
        out[res.model] = res.to_dict()
    return sections, out


def extra_sections(df: pd.DataFrame, extras: dict | None, *, table=None, alpha: float = 0.05,
                   messages_html: bool = True) -> tuple[list[Section], dict]:
    """Across-model and across-message sections (``table``: survey.stats.table_comparison's result, None when
    the table has neither two models nor three messages), then those of the given JSON files.
    ``messages_html``: False when the report already shows every pair of messages (a k-message study's own
    sections): the across-message results then go to results.json only."""
    extras = extras or {}
    sections, extra_json = [], {}
    if table is not None and len(models_in(df)) >= 2:
        sec, data = models_section(table)
        sections.append(sec)
        extra_json["across_models"] = data
    if table is not None:
        msg_secs, msg_json = messages_sections(table)
        sections.extend(msg_secs if messages_html else [])
        if msg_json:
            extra_json["across_messages"] = msg_json
    if extras.get("sequential"):
        from survey.reporting.sequential import sequential_section

        sections.append(sequential_section(extras["sequential"]))
        extra_json["sequential"] = extras["sequential"]
    if extras.get("plan"):
        sections.append(plan_section(extras["plan"]))
        extra_json["plan"] = extras["plan"]
    if extras.get("validate"):
        sections.append(validate_section(extras["validate"], alpha))
        extra_json["validate"] = extras["validate"]
    if extras.get("dbpa"):
        if "embedder" not in extras["dbpa"] or not ({"results", "tests"} & set(extras["dbpa"])):
            raise SurveyError("--dbpa: no DBPA 'results' or 'tests'; pass the output of `survey dbpa --json`")
        sections.append(json_section("Free-text answers (DBPA)", extras["dbpa"],
                                     "Distribution-based perturbation analysis of the free-text answers."))
        extra_json["dbpa"] = extras["dbpa"]
    return sections, extra_json
