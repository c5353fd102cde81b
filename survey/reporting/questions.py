"""The report's part for a study that asks several questions: the scorecard per model and message pair
(each question's effect with its interval, family interval, adjusted p-value and the verdict in words, the
primary marked as deciding), the family's rule, the correlations between questions and, in conversation flow,
the order effect. Everything is read from the one QuestionsAnalysis the report computed
(survey.stats.questions); nothing is tested again here."""

from __future__ import annotations

from survey.common.formatting import fmt
from survey.reporting import Section
from survey.stats.questions import interval_text

ROLE_WORDS = {"primary": "primary: decides", "secondary": "secondary", "family": "in the family"}
ORDER_INTRO = ("In conversation flow each question is asked after the earlier questions and the model's answers to "
               "them, so a question's answers can depend on the order in which it was asked. The order effect below "
               "compares the answers when the question came first with those when it came later, by a "
               "randomisation test over the persona × paraphrase cells (the order was drawn per cell).")


def _groups(res) -> dict:
    out: dict = {}
    for r in res.results:
        out.setdefault((r.model, r.a, r.b), []).append(r)
    return out


def headlines(res) -> list[str]:
    """Per model and message pair, the scorecard in one sentence."""
    out = []
    for (model, a, b), rows in _groups(res).items():
        parts = [f"{r.question}{' (primary, decides)' if r.decides else ''}: {r.verdict}" for r in rows]
        out.append(f"{model}, {a} vs {b}: " + "; ".join(parts) + ".")
    return out


def scorecard_sections(res) -> list[Section]:
    """One table per model and message pair, then the family's rule and the correlations."""
    sections = []
    roles = res.primary is not None
    for (model, a, b), rows in _groups(res).items():
        # a checkbox question's interval is simultaneous over its options: each row's own level when they differ
        levels = {r.effect.confidence for r in rows}
        level = f"{100 * levels.pop():.4g}% CI" if len(levels) == 1 else "CI (level below)"
        table = {"columns": ["question", *(["role"] if roles else []), "effect", "unit", level,
                             "family CI", "adjusted p", "verdict"],
                 "rows": [[r.question, *([ROLE_WORDS[r.role]] if roles else []), f"{r.effect.estimate:+.3f}",
                           _unit(res, r), interval_text(r.effect.ci), interval_text(r.simultaneous_ci),
                           fmt(r.pvalue_adjusted), r.verdict] for r in rows]}
        levels = ", ".join(f"{r.question} {r.simultaneous_level:.1%}" if r.simultaneous_level is not None
                           else f"{r.question} none (not selected)" for r in rows)
        own = ", ".join(f"{r.question} {100 * r.effect.confidence:.4g}%" for r in rows)
        paragraphs = [f"Effect = {a} − {b} in each question's own unit: positive means {a} scores higher. "
                      + (f"CI levels: {own}. " if level.startswith("CI (") else "")
                      + f"Family intervals' levels: {levels}."]
        paragraphs += [f"Warning, question {r.question}: {w}" for r in rows for w in r.warnings]
        sections.append(Section(f"Scorecard — {model}: {a} vs {b}", paragraphs=paragraphs, tables=[table]))
    notes = [n[0].upper() + n[1:] + "." for n in res.notes(order=False)]
    sections.append(Section("Across the questions", paragraphs=[*notes, _level_note(res.family)]))
    return sections


def _unit(res, r) -> str:
    """The effect's unit with the messages named where the kind's effect is not one quantity's difference (a pick:
    "share choosing sneakers − share choosing boots", not "... A − ... B")."""
    view = res.by_question[r.question].view
    return view.effect_of(r.a, r.b) if view.effect_quantity else r.unit


def _level_note(family: str) -> str:
    if family == "holm":
        return ("Family CI: Bonferroni intervals at 1 − α/m for the m tests of a model's family; together they cover "
                "every effect with probability at least 1 − α.")
    return ("Family CI: false-coverage-rate intervals (Benjamini & Yekutieli) for the effects Benjamini-Hochberg "
            "selected, at 1 − Rα/m; none (—) for the others.")


def order_section(effects: list) -> Section | None:
    """The order effect of a conversation-flow study: a table of the questions whose place varied, and a
    sentence for each that was always asked at one place (fixed order: nothing to compare)."""
    if not effects:
        return None
    measured = [e for e in effects if e.varies]
    fixed = [e for e in effects if not e.varies]
    sec = Section("Order effect (conversation flow)", paragraphs=[ORDER_INTRO])
    if measured:
        sec.tables.append({"columns": ["model", "question", "places asked", "asked first", "asked later",
                                       "first − later", "cells (first)", "p"],
                           "rows": [[e.model, e.question, ", ".join(str(p + 1) for p in e.positions),
                                     _value(e.first), _value(e.later), f"{e.difference:+.3f}"
                                     if not isinstance(e.first, dict) else f"{e.difference:.3f} (distance)",
                                     f"{e.cells} ({e.cells_first})", fmt(e.pvalue)] for e in measured]})
        sec.paragraphs += [e.sentence()[0].upper() + e.sentence()[1:] + "." for e in measured if e.pvalue <= 0.05]
    sec.paragraphs += [e.sentence()[0].upper() + e.sentence()[1:] + "." for e in fixed]
    return sec


def _value(x) -> str:
    if isinstance(x, dict):
        return ", ".join(f"{k} {v:.0%}" for k, v in x.items())
    return f"{x:.3f}"


def scorecard_json(res) -> dict:
    """results.json's scorecard: the family, its rule, one row per (model, pair, question), the correlations and
    the order effects."""
    doc = res.to_dict()
    rows = [{"model": r.model, "a": r.a, "b": r.b, "question": r.question, "role": r.role, "decides": r.decides,
             "effect": r.effect.estimate, "unit": r.unit, "ci": list(r.effect.ci),
             "simultaneous_ci": None if r.simultaneous_ci is None else list(r.simultaneous_ci),
             "simultaneous_level": r.simultaneous_level, "pvalue": r.pvalue, "pvalue_adjusted": r.pvalue_adjusted,
             "verdict": r.verdict} for r in res.results]
    return {"questions": doc["questions"], "family": doc["family"], "rows": rows,
            "correlations": doc["correlations"], **({"order_effects": doc["order_effects"]}
                                                    if "order_effects" in doc else {})}
