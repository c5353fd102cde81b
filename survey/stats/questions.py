"""A study that asks several questions, analysed as one family of conclusions.

Each question is analysed on its own rows as a one-question study is (``analyze`` on ``Source.for_question``:
the question's kind, its own sign-flip test, its segments and target weights), so nothing assumes the
questions independent. Then, per model, the (question, message pair) tests form one family, adjusted by Holm
or Benjamini-Hochberg (survey.stats.family, which says what each controls and the primary question's serial
gate), each with its family interval computed by the kind's own interval method at the family's level. The
correlation of two questions' per-pair effects (over the paraphrase pairs both share) says whether they carry
one signal.

    res = survey.analyze(source)            # a source with several questions
    res.scorecard()                         # model x message pair x question, in words
    res.by_question["intent"]               # the one-question Analysis of a question
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.formatting import fmt
from survey.data.table import messages_in
from survey.errors import SurveyError
from survey.stats.analysis_results import Analysis, decision_pvalue, provenance, result_dict
from survey.stats.effect import EffectResult
from survey.stats.family import (
    FAMILY_WORDS,
    check_family,
    correlation_interval,
    decide_family,
    effect_correlation,
)

NO_DIFFERENCE = "no reliable difference"


@dataclass(frozen=True)
class QuestionResult:
    """One (model, question, message pair) of a study with several questions: the kind's own comparison
    (``result``, an ABResult whose attributes this one also answers) placed in the family. ``pvalue``: the
    kind's deciding test, unadjusted; ``pvalue_adjusted``: after the family's adjustment (the primary's: at
    alpha unadjusted); ``simultaneous_ci`` at ``simultaneous_level`` (None: no family interval, a
    Benjamini-Hochberg effect not selected); ``decides``: the result of the primary question; ``verdict`` in
    words: "<A> wins", "<B> wins" or "no reliable difference"."""

    question: str
    model: str
    a: str
    b: str
    scale: str
    unit: str
    effect: EffectResult
    pvalue: float
    pvalue_adjusted: float
    simultaneous_ci: tuple[float, float] | None
    simultaneous_level: float | None
    decides: bool
    significant: bool
    verdict: str
    role: str  # "primary" (decides), "secondary" (gated by the primary) or "family" (no primary named)
    result: object = field(repr=False)

    def __getattr__(self, name):  # the kind's result answers the rest of the ABResult protocol
        if name == "result" or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.result, name)

    def to_dict(self) -> dict:
        return {"question": self.question, **result_dict(self.result), "pvalue_adjusted": self.pvalue_adjusted,
                "simultaneous_ci": None if self.simultaneous_ci is None else list(self.simultaneous_ci),
                "simultaneous_level": self.simultaneous_level, "decides": self.decides,
                "significant": self.significant, "verdict": self.verdict}


@dataclass(frozen=True)
class QuestionCorrelation:
    """Pearson r of two questions' per-pair effects for one model and message pair, over ``n`` shared
    paraphrase pairs (None with fewer than three), with its 95% interval ``ci`` (Fisher's z). The words follow the
    interval, not r alone: with 10 pairs an r of 0.75 is as consistent with 0.3 as with 0.9."""

    model: str
    a: str
    b: str
    first: str
    second: str
    r: float | None
    n: int
    ci: tuple[float, float] | None = None

    def sentence(self) -> str:
        if self.r is None:
            return (f"{self.model}, {self.a} vs {self.b}: {self.first} and {self.second} share {self.n} paraphrase "
                    "pair(s): too few, or effects without spread, for a correlation")
        lo, hi = self.ci if self.ci is not None else (-1.0, 1.0)
        strength = ("largely the same signal" if lo >= 0.7 else "opposed signals" if hi <= -0.7
                    else "too few pairs to tell whether they share a signal" if lo <= 0 <= hi
                    else "related, but not shown to be the same signal" if lo > 0
                    else "inversely related, but not shown to be opposed signals")
        return (f"{self.model}, {self.a} vs {self.b}: the per-pair effects of {self.first} and {self.second} "
                f"correlate r = {self.r:+.2f} (95% CI {lo:+.2f} to {hi:+.2f}) over {self.n} paraphrase pairs "
                f"({strength})")

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["ci"] = None if self.ci is None else list(self.ci)
        return out


class QuestionsAnalysis(Analysis):
    """An Analysis of a study with several questions: ``results`` every QuestionResult (model, question, pair),
    ``by_question`` each question's own Analysis, ``family`` the adjustment ("holm" or "bh"), ``primary`` the
    deciding question (None: every question in one family), ``gates`` per model whether the primary rejected,
    ``correlations`` the QuestionCorrelations. The dict and ``view`` are the first question's."""

    def __init__(self, results, by_question: dict, family: str, primary: str | None, correlations, gates: dict,
                 left_out=(), completeness=None, alpha: float = 0.05, order_effects=()):
        first = next(iter(by_question.values()))
        super().__init__(results, left_out, completeness, alpha, first.view, first.options)
        self.by_question = by_question
        self.family = family
        self.primary = primary
        self.correlations = list(correlations)
        self.gates = gates
        self.order_effects = list(order_effects)  # conversation flow: survey.stats.order_effect, per model x question

    @property
    def questions(self) -> list[str]:
        return list(self.by_question)

    def result(self, model: str, a: str, b: str, question: str | None = None):
        """The QuestionResult of ``model``'s comparison of ``a`` with ``b`` on ``question`` (default: the primary
        question, else the first), or None when not computed here."""
        question = question or self.primary or self.questions[0]
        return next((r for r in self.results if (r.model, r.a, r.b, r.question) == (model, a, b, question)), None)

    def significant(self, result_or_model) -> bool:
        r = self[result_or_model] if isinstance(result_or_model, str) else result_or_model
        return bool(r.significant) if isinstance(r, QuestionResult) else super().significant(r)

    def notes(self, order: bool = True) -> list[str]:
        """What a reader must know beside the scorecard: the adjustment, the gate, the correlations and (``order``)
        a conversation's order effects."""
        out = [family_sentence(self.family, self.primary, self.alpha)]
        out += [f"model {m}: the primary question '{self.primary}' showed no reliable difference, so the other "
                "questions are not tested (they read 'no reliable difference')" for m, g in self.gates.items()
                if g is False]
        out += [c.sentence() for c in self.correlations]
        if order and self.order_effects:
            out.append("conversation flow: each question is asked after the others' answers, so its answers can "
                       "depend on the order")
            out += [e.sentence() for e in self.order_effects]
        return out

    def scorecard(self) -> pd.DataFrame:
        """One row per (model, message pair, question): the effect (A - B) with its CI, the adjusted p-value and
        which message wins, in words."""
        rows = [{"model": r.model, "messages": f"{r.a} vs {r.b}", "question": r.question, "role": r.role,
                 "effect": r.effect.estimate, "unit": r.unit, "CI": interval_text(r.effect.ci),
                 "simultaneous CI": interval_text(r.simultaneous_ci), "p": r.pvalue,
                 "adjusted p": r.pvalue_adjusted, "verdict": r.verdict} for r in self.results]
        return pd.DataFrame(rows).set_index(["model", "messages", "question"])

    def display_parts(self):
        rows = [{"model": r.model, "messages": f"{r.a} vs {r.b}", "question": r.question, "effect": r.effect.estimate,
                 "CI": r.effect.ci, "adjusted p": r.pvalue_adjusted, "verdict": r.verdict} for r in self.results]
        notes = [f"WARNING: question {r.question}: {w}" for r in self.results for w in r.warnings]
        notes += self.notes() + (self.completeness.warnings() if self.completeness else [])
        notes += [f"left out: {x}" for x in self.left_out]
        return (f"Analysis of {len(self.questions)} questions, {len(self.results)} comparison(s) at α = {self.alpha}",
                rows, notes)

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "questions": [{"id": q, "scale": a.scale, "unit": a.view.unit,
                                                   "decided_by": a.kind.decided_by}
                                                  for q, a in self.by_question.items()],
                "family": {"method": self.family, "primary": self.primary, "gates": dict(self.gates),
                           "rule": family_sentence(self.family, self.primary, self.alpha)},
                "correlations": [c.to_dict() for c in self.correlations],
                **({"order_effects": [e.to_dict() for e in self.order_effects]} if self.order_effects else {}),
                "results": [r.to_dict() for r in self.results], "left_out": self.left_out,
                **provenance(self.completeness)}


def interval_text(ci) -> str:
    return "—" if ci is None else f"[{fmt(float(ci[0]))}, {fmt(float(ci[1]))}]"


def family_sentence(family: str, primary: str | None, alpha: float) -> str:
    """The rule that made the adjusted p-values, in one sentence."""
    words = FAMILY_WORDS[family]
    if primary is None:
        return (f"every question x message pair of a model is one family, adjusted by {words} at {alpha:g}; no "
                "primary question was named")
    return (f"the primary question '{primary}' decides at α = {alpha:g} unadjusted; the other questions form "
            f"the secondary family, adjusted by {words} and tested only when the primary rejects (serial "
            "gatekeeping)")


def verdict(r, significant: bool) -> str:
    est = r.effect.estimate
    if not significant or est == 0:
        return NO_DIFFERENCE
    return f"{r.a if est > 0 else r.b} wins"


def analyze_questions(source, analyze_one, *, family: str | None = None, primary: str | None = None,
                      **keywords) -> Analysis:
    """Every question of ``source`` through ``analyze_one(question source, **keywords)`` (the one-question
    analyze), then the family per model (``family`` "holm" or "bh"; default the study's recorded [analysis]
    family, else Holm; ``primary`` the deciding question, default the study's). One question: its Analysis."""
    recorded = source.study_context
    family = check_family(family or getattr(recorded, "family", None) or "holm")
    primary = primary if primary is not None else getattr(recorded, "primary", None)
    questions = source.questions
    if primary is not None and primary not in questions:
        raise SurveyError(f"primary: no question '{primary}'; the source asks {', '.join(questions)}")
    if len(questions) == 1:  # one question: no family, the analysis as it always was
        return analyze_one(source, **keywords)
    by_question, tables, left_out = {}, {}, []
    order = {m: i for i, m in enumerate(messages_in(source.table))}
    for q in questions:
        src = _question_source(source, q, q == (primary or questions[0]), order)
        tables[q] = src.table
        try:
            by_question[q] = analyze_one(src, **keywords)
        except SurveyError as exc:
            left_out.append(f"question '{q}': {exc}")
    if not by_question:
        raise SurveyError("; ".join(left_out))
    if primary is not None and primary not in by_question:
        raise SurveyError(f"the primary question '{primary}' cannot be analysed: "
                          + next(x for x in left_out if f"'{primary}'" in x))
    any_analysis = next(iter(by_question.values()))
    alpha = any_analysis.alpha
    results, gates = [], {}
    for model in dict.fromkeys(r.model for a in by_question.values() for r in a.results):
        placed = [(q, r) for q, a in by_question.items() for r in a.results if r.model == model]
        decision = decide_family([_gate_input(r) if q == primary else own_pvalue(r) for q, r in placed],
                                 [q == primary for q, _ in placed], alpha, family)
        if decision.gate_open is not None:
            gates[model] = decision.gate_open
        for i, (q, r) in enumerate(placed):
            level = decision.levels[i]
            # a pair decided over a family of tests (a checkbox's options): its interval is Bonferroni over them too
            # (the kind's compare at ``level`` divides by them), and its stated level says so
            shown = None if level is None else 1 - (1 - level) / getattr(r, "decision_tests", 1)
            adjusted = decision_pvalue(r) if q == primary and r.sequential is not None else decision.pvalue_adjusted[i]
            results.append(QuestionResult(
                q, r.model, r.a, r.b, r.scale, r.unit, r.effect, own_pvalue(r), adjusted,
                _family_interval(by_question[q], tables[q], r, level, shown), shown, decision.decides[i],
                decision.significant[i],
                verdict(r, decision.significant[i]),
                "family" if primary is None else "primary" if decision.decides[i] else "secondary", r))
        left_out += [f"question '{q}': {x}" for q, a in by_question.items() for x in a.left_out]
    return QuestionsAnalysis(results, by_question, family, primary, _correlations(results), gates,
                             list(dict.fromkeys(left_out)), source.completeness, alpha,
                             _order_effects(tables, by_question))


def own_pvalue(r) -> float:
    """The pair's own test, before any adjustment: a kind that compares the k messages shown together (pick one of
    k, MaxDiff, a ranking) reports its deciding p-value Holm-adjusted over its own pairs (``raw_pvalue`` is the
    pair's own); the family adjusts over questions x pairs from the pair's own p-value, not the adjusted one
    again."""
    return float(getattr(r.decision, "raw_pvalue", decision_pvalue(r)))


def _gate_input(r) -> float:
    """The primary's p-value as the gate reads it: a primary stopped by its sequential test decided by that test's
    decision (rejected: 0, else 1), not by comparing its p-value with alpha."""
    if r.sequential is None:
        return own_pvalue(r)
    return 0.0 if r.sequential.rejects else 1.0


def _in_message_order(src, order: dict):
    """A question's rows with the messages first met in the study's order, so that every question compares each
    pair the same way round (a pick question's rows list the message shown first, which the Latin square
    rotates: left alone, its pair could read "sandals vs sneakers" beside the others' "sneakers vs sandals").
    Only the order of the rows changes (a stable sort): no analysis reads a meaning into it."""
    ranks = src.table["message"].map(order).to_numpy()
    return src.with_table(src.table.iloc[np.argsort(ranks, kind="stable")])


def _question_source(source, qid: str, keeps_sequential: bool, order: dict):
    """One question's Source. A study bought in rounds stopped on its primary question (the first when none is
    named): the recorded sequential decision is that question's, and the others read as fixed designs."""
    src = _in_message_order(source.for_question(qid), order)
    if keeps_sequential or not src.study_context.sequential:
        return src
    src = dataclasses.replace(src)  # a fresh Source, whose parsed context is set here without the rounds
    src.__dict__["study_context"] = dataclasses.replace(source.study_context, sequential={})
    return src


def _family_interval(analysis: Analysis, df: pd.DataFrame, r, level: float | None, shown: float | None):
    """The effect's interval at the family's level, by the kind's own interval method (its compare again at
    ``level``, whose interval is at ``shown``: the same but for a kind that adjusts over its own tests)."""
    if level is None:
        return None
    if abs(shown - r.effect.confidence) < 1e-12:
        return tuple(r.effect.ci)
    again = analysis.kind.compare(df, r.model, r.a, r.b, analysis.view,
                                  dataclasses.replace(analysis.options, confidence=level))
    return tuple(again.effect.ci)


def _order_effects(tables: dict, by_question: dict) -> list:
    """Conversation flow (a ``position`` column): each model's question answered first vs later
    (survey.stats.order_effect); none for independent questions."""
    from survey.stats.order_effect import order_effect, row_outcomes

    out = []
    for q, analysis in by_question.items():
        df = tables[q]
        if "position" not in df.columns or df["position"].isna().all():
            continue
        for model in dict.fromkeys(r.model for r in analysis.results):
            rows = df[df["model"] == model]
            out.append(order_effect(rows, row_outcomes(rows, analysis.view), model=model, question=q,
                                    quantity=analysis.view.unit, n_resamples=analysis.options.flips,
                                    seed=analysis.options.seed))
    return out


def _correlations(results: list[QuestionResult]) -> list[QuestionCorrelation]:
    """Each model and message pair: every two questions' per-pair effects correlated, over the paraphrase pairs both
    asked. A pair is the same whichever question listed its messages first (the effect then changes sign), and a
    shown-set question's paraphrase set is read as the pair of a's and b's paraphrases it showed."""
    out = []
    groups: dict = {}
    for r in results:
        groups.setdefault((r.model, frozenset((r.a, r.b))), []).append(r)
    for rs in groups.values():
        a, b = rs[0].a, rs[0].b
        for x, y in itertools.combinations(rs, 2):
            coef, n = effect_correlation(_effects_by_pair(x, a, b), _effects_by_pair(y, a, b))
            out.append(QuestionCorrelation(x.model, a, b, x.question, y.question, coef, n,
                                           correlation_interval(coef, n)))
    return out


def _effects_by_pair(r: QuestionResult, a: str, b: str) -> dict:
    """(a's paraphrase, b's paraphrase) -> the effect a − b of one result on that pair. A paired kind keys its
    per-pair effects by (its a's id, its b's id); a shown-set kind by the set's label, the paraphrases of its
    ``messages`` joined by "|" in that order."""
    messages = list(getattr(r.result, "messages", None) or ())
    sign = 1.0 if (r.a, r.b) == (a, b) else -1.0
    out = {}
    for key, effect in r.result.per_pair().items():
        parts = key.split("|") if isinstance(key, str) else list(key)
        if isinstance(key, str) and len(parts) == len(messages) and r.a in messages and r.b in messages:
            parts = [parts[messages.index(r.a)], parts[messages.index(r.b)]]
        pair = tuple(parts) if sign > 0 else tuple(reversed(parts))
        out[pair] = sign * effect
    return out


__all__ = ["NO_DIFFERENCE", "QuestionCorrelation", "QuestionResult", "QuestionsAnalysis", "analyze_questions",
           "family_sentence"]
