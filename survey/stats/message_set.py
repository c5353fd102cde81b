"""A study of more than two messages, analysed as designed: per model one table of every message's level (the
share chosen on pick one of k, the best-minus-worst score on best-worst scaling, the mean P(Yes) or mean score
on per-message answers) with its interval, then the pairwise matrix.

Each pair is the kind's own valid A/B comparison (survey.stats.kinds: e.g. the sign-flip test over paraphrase
sets on pick one of k, over paraphrase pairs on Yes/No), run from the same answers. With k messages the
m = k(k-1)/2 pairwise tests form one family: their unadjusted p-values are Holm-adjusted over the m pairs
(survey.stats.multiplicity; equal to statsmodels' ``multipletests(method="holm")``), which keeps the chance of any
false "X beats Y" at most alpha under any dependence between the pairs. Holm has no matching interval, so each
pair also gets a Bonferroni-simultaneous interval: the kind's interval at confidence 1 - alpha/m, so that all m
intervals cover their true effects together with probability at least 1 - alpha (each interval covers what the
pair's own interval covers: the effect over new paraphrases for these personas). A Holm-significant pair's
simultaneous interval may still touch 0 (Holm is the more powerful of the two); a simultaneous interval that
excludes 0 always comes with a Holm-significant pair.

    res = analyze(source)            # a source of three or more messages: a MessageSetAnalysis
    res.sets[0].levels.values        # message -> (share, (lo, hi))
    res.sets[0].pairs                # PairResult per pair: effect, CI, pvalue, pvalue_adjusted, simultaneous_ci
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field, replace

from survey.common.formatting import percent
from survey.stats.analysis_results import Analysis, provenance, result_dict
from survey.stats.family import check_family, interval_levels
from survey.stats.kinds.base import MessageLevels
from survey.stats.pairwise import PairResult, pairwise

ADJUSTMENT = "holm"
SIMULTANEOUS = ("Bonferroni-simultaneous: each pair's interval at confidence 1 − α/m (m pairs), so all m cover "
                "their effects together with probability ≥ 1 − α")
FALSE_COVERAGE = ("false-coverage-rate intervals (Benjamini & Yekutieli 2005): each of the R pairs Benjamini-Hochberg "
                  "selects gets its interval at 1 − Rα/m, and the expected share of those intervals that miss their "
                  "effect is at most α; unselected pairs get none")
METHOD_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg"}


def joint_words(method: str, parts: int = 1, part_word: str = "part") -> str:
    """What the joint intervals of a family adjusted by ``method`` guarantee; ``parts``: the tests each pair's own
    decision is adjusted over (a checkbox's options), over which the intervals are Bonferroni too."""
    words = FALSE_COVERAGE if method == "bh" else SIMULTANEOUS
    if parts == 1:
        return words
    return (f"{words}; each pair's own decision is adjusted over its {parts} {part_word}s, so its interval is "
            f"Bonferroni over them too (α/{parts} in place of α)")


@dataclass
class MessageSet:
    """One model's k messages: ``levels`` (survey.stats.kinds.base.MessageLevels, None for a kind whose reply
    compares messages, e.g. forced choice) and ``pairs`` (survey.stats.across_messages.PairResult per pair,
    Holm-adjusted over the pairs, with the Bonferroni-simultaneous interval)."""

    model: str
    messages: list[str]
    levels: MessageLevels | None
    pairs: list[PairResult]
    alpha: float
    confidence: float
    adjustment: str = ADJUSTMENT
    notes: list = field(default_factory=list)

    @property
    def joint(self) -> str:
        """What the joint intervals of this set guarantee, in words."""
        first = self.pairs[0].comparison if self.pairs else None
        return joint_words(self.adjustment, self.decision_tests, getattr(first, "part_word", "part"))

    @property
    def decision_tests(self) -> int:
        """How many tests each pair's own decision is adjusted over (a checkbox's options; 1 for other kinds)."""
        return getattr(self.pairs[0].comparison, "decision_tests", 1) if self.pairs else 1

    @property
    def pair_confidence(self) -> float:
        """The level of each pair's own interval: the confidence asked for, or the kind's own (a checkbox's is
        simultaneous over its options)."""
        return self.pairs[0].effect.confidence if self.pairs else self.confidence

    @property
    def pair_label(self) -> str:
        """The pair interval's column header: "95% CI", "98.75% CI"."""
        return f"{percent(self.pair_confidence)} CI"

    @property
    def simultaneous_confidence(self) -> float | None:
        """The level of every pair's joint interval under Holm (Bonferroni over the pairs and the tests each pair
        is decided over); None under BH, where it varies."""
        if self.adjustment == "bh":
            return None
        return 1 - (1 - self.confidence) / (max(len(self.pairs), 1) * self.decision_tests)

    @property
    def method_name(self) -> str:
        return METHOD_NAMES.get(self.adjustment, self.adjustment)

    @property
    def short_name(self) -> str:
        """The method in a column header: "Holm", "BH"."""
        return "BH" if self.adjustment == "bh" else self.method_name

    @property
    def joint_label(self) -> str:
        """The joint interval's column header."""
        level = self.simultaneous_confidence
        return "FCR interval (selected)" if level is None else f"{level:.1%} joint CI"

    @property
    def ranking(self) -> list[str]:
        """Messages from the highest level to the lowest (descriptive; the pairs say which gaps are reliable)."""
        if self.levels is None:
            return list(self.messages)
        est = self.levels.values
        return sorted(self.messages, key=lambda m: -(est[m][0] if m in est and est[m][0] is not None else -1e9))

    def to_dict(self) -> dict:
        return {"model": self.model, "messages": list(self.messages), "k": len(self.messages),
                "levels": None if self.levels is None else self.levels.to_dict(), "ranking": self.ranking,
                "adjustment": self.adjustment, "n_pairs": len(self.pairs), "alpha": self.alpha,
                "confidence": self.confidence, "simultaneous_confidence": self.simultaneous_confidence,
                "pair_confidence": self.pair_confidence, "simultaneous": self.joint, "notes": list(self.notes),
                "pairs": [p.to_dict() for p in self.pairs]}


class MessageSetAnalysis(Analysis):
    """survey.analyze on a source of three or more messages (or with ``every_pair``): an Analysis whose
    ``results`` are every pair's own result (as before) and whose ``sets`` hold, per model, the levels table and
    the pairwise matrix. A pair is ``significant`` when its adjusted p-value (Holm, or Benjamini-Hochberg when the
    study's [analysis] family asks for it) is at most alpha."""

    def __init__(self, sets: list[MessageSet], results=(), left_out=(), completeness=None, alpha: float = 0.05,
                 view=None, options=None):
        super().__init__(results, left_out, completeness, alpha, view, options)
        self.sets = list(sets)

    def pair(self, result) -> PairResult | None:
        """The matrix row of one of ``results``."""
        return next((p for s in self.sets if s.model == result.model for p in s.pairs
                     if (p.a, p.b) == (result.a, result.b)), None)

    def significant(self, result_or_model) -> bool:
        r = self[result_or_model] if isinstance(result_or_model, str) else result_or_model
        row = self.pair(r)
        return super().significant(r) if row is None else row.significant

    def display_parts(self):
        rows = []
        for s in self.sets:
            for msg, (est, ci) in (s.levels.values.items() if s.levels else ()):
                rows.append({"model": s.model, "row": msg, "estimate": est, "CI": ci,
                             "adjusted p": "", "joint CI": ""})
            for p in s.pairs:
                rows.append({"model": s.model, "row": f"{p.a} − {p.b}", "estimate": p.effect.estimate,
                             "CI": p.effect.ci, "adjusted p": p.pvalue_adjusted,
                             "joint CI": p.simultaneous_ci or "—"})
        ks = sorted({len(s.messages) for s in self.sets})
        quantity = next((s.levels.quantity for s in self.sets if s.levels), None)
        title = (f"Analysis of {'/'.join(map(str, ks))} messages on {self.scale} at α = {self.alpha}: "
                 + (f"each message's {quantity}, then " if quantity else "")
                 + f"every pair ({self.sets[0].method_name if self.sets else 'Holm'} over the pairs)")
        notes = [f"effect: {self.view.effect_unit}; joint CI: "
                 + (self.sets[0].joint if self.sets else joint_words(ADJUSTMENT))]
        notes += [f"WARNING: {w}" for r in self.results for w in r.warnings]
        notes += (self.completeness.warnings() if self.completeness else []) + [f"left out: {x}" for x in self.left_out]
        return title, rows, notes

    def _repr_html_(self) -> str:
        out = ["<div>"]
        for s in self.sets:
            out.append(f"<strong>{html.escape(s.model)}: {len(s.messages)} messages</strong>")
            if s.levels is not None:
                out.append(_html_table([s.levels.quantity, f"{s.levels.confidence:.0%} CI"],
                                       [[m, _num(e), _ci(ci)] for m, (e, ci) in s.levels.values.items()], "message"))
            out.append(_html_table(["A − B", s.pair_label, "p", f"{s.short_name} p", s.joint_label,
                                    "winner"],
                                   [[f"{p.a} vs {p.b}", _num(p.effect.estimate), _ci(p.effect.ci), _num(p.pvalue),
                                     _num(p.pvalue_adjusted), _ci(p.simultaneous_ci), p.winner or "—"]
                                    for p in s.pairs], "pair"))
            out += [f"<p>{html.escape(n)}</p>" for n in (s.levels.notes if s.levels else ())]
            out.append(f"<p>{html.escape('Joint intervals: ' + s.joint)}</p>")
        out.append("</div>")
        return "".join(out)

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "decided_by": self.kind.decided_by, "scale": self.scale, "unit": self.view.unit,
                "message_sets": [s.to_dict() for s in self.sets],
                "results": [{**result_dict(r), "significant": self.significant(r)} for r in self.results],
                "left_out": self.left_out, **provenance(self.completeness)}


def message_set_analysis(analysis: Analysis, messages_of: dict, method: str | None = None) -> MessageSetAnalysis:
    """The k-message analysis of ``analysis`` (every pair of each model's messages, run by the kind): the levels
    table from the kind (Kind.message_levels) and the pairwise matrix (Holm, simultaneous intervals).
    ``messages_of``: model -> its messages in table order. ``method``: "holm" or "bh" (None: Holm)."""
    method = check_family(method or ADJUSTMENT)
    opts, view, kind = analysis.options, analysis.view, analysis.kind
    sets = []
    for model, messages in messages_of.items():
        comps = [r for r in analysis.results if r.model == model]
        if not comps:
            continue
        # a result listing every message (a ranking's mean ranks, said in the levels' notes) in the set's order, so
        # that the notes list the messages as the table below does
        levels = kind.message_levels([r.in_message_order(messages) if hasattr(r, "in_message_order") else r
                                      for r in comps], view, opts.confidence)
        if levels is not None:  # rows in the set's order (the study's), whatever order the kind found them in
            levels = replace(levels, values={m: levels.values[m] for m in [*messages, *levels.values]
                                             if m in levels.values})
        fcr = (lambda adj: interval_levels(adj, opts.alpha, "bh")) if method == "bh" else None
        pairs = pairwise(comps, view.bounds, opts.confidence, opts.alpha, method, opts.flips, opts.seed, fcr)
        missing = len(messages) * (len(messages) - 1) // 2 - len(pairs)
        notes = ([f"{missing} pair(s) left out (see left out); the adjustment runs over the {len(pairs)} compared"]
                 if missing > 0 else [])
        sets.append(MessageSet(model, list(messages), levels, pairs, opts.alpha, opts.confidence, method,
                               notes=notes))
    return MessageSetAnalysis(sets, analysis.results, analysis.left_out, analysis.completeness, analysis.alpha,
                              view, opts)


def _num(v) -> str:
    return "—" if v is None else f"{v:.4g}"


def _ci(ci) -> str:
    return "—" if ci is None or ci[0] is None else f"[{ci[0]:.4g}, {ci[1]:.4g}]"


def _html_table(columns: list[str], rows: list[list], first: str) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in [first, *columns])
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


__all__ = ["ADJUSTMENT", "FALSE_COVERAGE", "SIMULTANEOUS", "MessageSet", "MessageSetAnalysis", "joint_words",
           "message_set_analysis"]
