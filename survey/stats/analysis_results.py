"""The result objects of an A/B analysis (survey.stats.analysis): Analysis, one per table, holding each model's
and pair's result; Estimates, a response model fitted per model; and the JSON each prints. Apart from the
analysis itself so that what builds on an Analysis (several questions, survey.stats.questions) needs not import
the function that makes one.
"""

from __future__ import annotations

from survey.common.display import Display
from survey.data.completeness import Completeness
from survey.responses import response_type
from survey.responses.view import AnalysisView
from survey.stats.kinds import CompareOptions, kind_of
from survey.stats.multiplicity import deciding_part


class Analysis(Display, dict):
    """model -> its A/B result (survey.stats.results.ABResult) for the first pair compared, in table order;
    ``results`` every result (every pair of messages with ``every_pair``); ``view`` the table's
    AnalysisView; ``left_out`` the reason of each model or pair left out; ``completeness`` what the data
    rests on (the study and the queries expected, stored, failed)."""

    def __init__(self, results=(), left_out=(), completeness: Completeness | None = None,
                 alpha: float = 0.05, view: AnalysisView | None = None, options: CompareOptions | None = None):
        self.results = list(results)
        super().__init__()
        for r in self.results:
            self.setdefault(r.model, r)
        self.left_out = list(left_out)
        self.completeness = completeness
        self.alpha = alpha
        self.view = view if view is not None else response_type("binary").view
        self.options = options  # how every comparison was run: a follow-up reuses them when it asks the same

    def result(self, model: str, a: str, b: str):
        """The result of ``model``'s comparison of ``a`` with ``b``, or None when not computed here."""
        return next((r for r in self.results if (r.model, r.a, r.b) == (model, a, b)), None)

    @property
    def scale(self) -> str:
        return self.view.scale

    @property
    def kind(self):
        """The analysis kind that produced these results (survey.stats.kinds)."""
        return kind_of(self.view)

    def significant(self, result_or_model) -> bool:
        """Whether the deciding test rejects A = B at ``alpha``: the sign-flip test over paraphrase pairs
        (for forced choice the preference test, itself a sign-flip test on order-averaged shares)."""
        r = self[result_or_model] if isinstance(result_or_model, str) else result_or_model
        if r.sequential is not None:  # data collected in rounds: the sequential test decided
            return r.sequential.rejects
        return bool(decision_pvalue(r) <= self.alpha)

    def display_parts(self):
        # a result decided by a family of tests (a checkbox's options): its effect and p are its deciding part's
        word = next((r.part_word for r in self.results if deciding_part(r) is not None), None)
        rows = [{"model": r.model, "messages": f"{r.a} vs {r.b}", **({word: deciding_part(r)} if word else {}),
                 "effect": r.effect.estimate, "CI": r.effect.ci,
                 "p": decision_pvalue(r), "decided by": ("sequential test" if r.sequential
                                                         else self.kind.decided_by.replace("_", "-") + " test"),
                 "significant": self.significant(r)} for r in self.results]
        notes = [f"effect: {self.view.effect_unit}, A − B"]
        if word:
            notes.append(f"{word}: the deciding {word}, the one with the smallest Holm-adjusted p over the "
                         f"{word}s; its effect, interval and Holm p are shown")
        notes += [f"WARNING: {w}" for r in self.results for w in r.warnings]
        notes += [r.segments.sentence() for r in self.results if r.segments is not None]
        notes += (self.completeness.warnings() if self.completeness else []) + [f"left out: {x}" for x in self.left_out]
        return f"Analysis of {len(self.results)} comparison(s) on {self.scale} at α = {self.alpha}", rows, notes

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "decided_by": self.kind.decided_by, "scale": self.scale,
                "unit": self.view.unit,
                "results": [{**result_dict(r), "significant": self.significant(r)} for r in self.results],
                "left_out": self.left_out, **provenance(self.completeness)}


def decision_pvalue(result) -> float:
    """The p-value that decides A = B: the result's deciding test (sign-flip, or the preference test)."""
    return float(result.decision.pvalue)


def result_dict(result) -> dict:
    """One A/B result as `survey analyze --json` prints it: model, scale and unit first, then its own keys and
    its ``warnings`` (what makes it doubtful, survey.stats.results.ABResult); with segments or weights
    (survey.stats.segments) its ``segments``, ``interaction`` and ``population``."""
    seg = result.segments
    return {"model": result.model, "scale": result.scale, "unit": result.unit, **result.to_dict(),
            "warnings": list(result.warnings), **(seg.to_dict() if seg is not None else {})}


class Estimates(Display, dict):
    """model -> its fitted response model (survey.stats.results.Fit) for one message, in table order;
    ``view`` the table's AnalysisView; ``left_out`` as in Analysis."""

    def __init__(self, message: str, results=(), left_out=(), completeness: Completeness | None = None,
                 view: AnalysisView | None = None):
        super().__init__(results)
        self.message = message
        self.left_out = list(left_out)
        self.completeness = completeness
        self.view = view if view is not None else response_type("binary").view

    @property
    def scale(self) -> str:
        return self.view.scale

    def display_parts(self):
        rows = [{"model": m, **{k: f.params[k] for k in f.params},
                 **{f"s.e. {k}": f.se.get(k) for k in f.params if isinstance(f.se.get(k), float)},
                 "estimator": f.estimator} for m, f in self.items()]
        notes = [n for f in list(self.values())[:1] for n in f.notes]
        notes += (self.completeness.warnings() if self.completeness else []) + [f"left out: {x}" for x in self.left_out]
        return f"Estimates of message '{self.message}' ({self.scale})", rows, notes

    def to_dict(self) -> dict:
        return {"scale": self.scale,
                "results": [{"model": m, "message": self.message, **r.to_dict()} for m, r in self.items()],
                "left_out": self.left_out, **provenance(self.completeness)}


def provenance(completeness: Completeness | None) -> dict:
    """The JSON keys every result carries: the study analysed and the data's completeness."""
    if completeness is None:
        return {}
    return {"study": completeness.study, "completeness": completeness.to_dict()}
