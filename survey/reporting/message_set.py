"""The report of a study of more than two messages (survey.stats.message_set): per model a headline in words,
then one section with every message's level (share, score or mean) and its interval, and the pairwise matrix
(effect, CI, Holm-adjusted p, simultaneous CI, which message is higher)."""

from __future__ import annotations

from survey.common.formatting import fmt
from survey.reporting.context import incomplete_note


def set_headline(s, alpha: float, completeness=None) -> str:
    """One model's k messages in a sentence a marketer reads: the ranking, then which gaps are reliable."""
    k, m = len(s.messages), len(s.pairs)
    if s.levels is not None:
        ranked = ", ".join(f"“{msg}” {_level(s.levels.values[msg][0])}" for msg in s.ranking
                           if msg in s.levels.values)
        said = f"{k} messages by {s.levels.quantity}: {ranked}."
    else:
        said = f"{k} messages, {m} pairs compared."
    wins = [p for p in s.pairs if p.winner is not None]
    if wins:
        gaps = "; ".join(f"“{p.winner}” above “{p.b if p.winner == p.a else p.a}” (p = {p.pvalue_adjusted:.3g})"
                         for p in wins)
        verdict = (f" Reliable differences (each pair's sign-flip test, {s.method_name}-adjusted over the {m} pairs, α = "
                   f"{alpha}): {gaps}.")
        if len(wins) < m:
            verdict += " No reliable difference between the other pairs."
    else:
        verdict = (f" No pair differs reliably (each pair's sign-flip test, {s.method_name}-adjusted over the {m} pairs, "
                   f"above α = {alpha}).")
    return f"{s.model}: {said}{verdict}{incomplete_note(completeness, s.model)}"


def set_warnings(s) -> list[str]:
    """What the kind says once about the whole set (e.g. pick one of k's position bias, invalid replies)."""
    extra = s.levels.extra if s.levels is not None else {}
    out = [f"{s.model}: {extra['warning']}."] if extra.get("warning") else []
    if extra.get("invalid"):
        out.append(f"{s.model}: {extra['invalid']} replies were invalid; they are excluded.")
    return out


def set_sections(s, kind, view, per_pair_below: bool) -> list:
    """One model's sections (reporting Sections): the levels table with what the kind says about the whole set,
    then the pairwise matrix and how to read it."""
    from survey.reporting import Section

    out = []
    k, m = len(s.messages), len(s.pairs)
    if s.levels is not None:
        lv = s.levels
        covers = f"; it covers {lv.covers}" if lv.covers else ""
        sec = Section(f"{s.model}: the {k} messages", paragraphs=[
            f"Each message's {lv.quantity} with its {lv.confidence:.0%} interval ({lv.method}{covers})."])
        sec.paragraphs += [n[0].upper() + n[1:] + "." for n in lv.notes]
        sec.tables.append({"columns": ["message", lv.quantity, f"{lv.confidence:.0%} CI"],
                           "rows": [[msg, _level(e), _ci(ci)] for msg, (e, ci) in lv.values.items()]})
        out.append(sec)
    sec = Section(f"{s.model}: every pair of the {k} messages", paragraphs=[
        f"{kind.effect_words(view, 'A', 'B')[0].upper()}{kind.effect_words(view, 'A', 'B')[1:]}. Each pair is "
        f"tested by the kind's own sign-flip test; p-values are {s.method_name}-adjusted over the {m} pairs (“higher”: "
        f"the message that wins at α = {s.alpha}; “—”: no reliable difference). Joint intervals: "
        f"{s.joint}."])
    if per_pair_below:
        sec.paragraphs.append("The sections below give each pair's own tests; their p-values are not adjusted for "
                              "the other pairs: act on the adjusted ones here.")
    sec.paragraphs += [f"Note: {n}." for n in s.notes]
    sec.tables.append({"columns": ["pair", "A − B", s.pair_label, "p-value", f"{s.short_name} p",
                                   s.joint_label, "higher"],
                       "rows": [[f"{p.a} vs {p.b}", f"{p.effect.estimate:+.3f}", _ci(p.effect.ci), fmt(p.pvalue),
                                 fmt(p.pvalue_adjusted), _ci(p.simultaneous_ci), p.winner or "—"] for p in s.pairs]})
    out.append(sec)
    return out


def _level(v) -> str:
    return "—" if v is None else f"{v:.3f}"


def _ci(ci) -> str:
    return "—" if ci is None or ci[0] is None else f"[{ci[0]:+.3f}, {ci[1]:+.3f}]"
