"""What `survey analyze` and `survey estimate` compute, as Python calls on a long table: every model
of the table, each analysed on its own. A model that cannot be analysed (e.g. no valid answer) is
left out with its reason instead of hiding the others; when none can be, that is the error.

    res = analyze(df, "sneakers", "boots")
    res["gpt"].decision.pvalue, res["gpt"].effect.ci
    res.to_dict()  # what `survey analyze --json` prints

``analyze`` is the one loop over models and message pairs: the table's analysis kind
(survey.stats.kinds: Yes/No, rating scales, forced choice, ...) runs each comparison, and every result
follows one protocol (survey.stats.results.ABResult), so across-model and across-message comparisons,
the command line and the report read them alike. ``estimate`` fits the kind's response model (the
Beta-logit model on Yes/No answers, the ordinal model on a rating scale) by the moment estimator unless
another method is asked for.

Both take a DataFrame or a survey.data.sources.Source (``load_source``): the result carries the data's
completeness (``res.completeness``, survey.data.completeness) and says which study it analysed.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from survey.common.display import Display
from survey.common.limits import BOOTSTRAP_MAX, Alpha, Flips, Seed
from survey.data.completeness import Completeness, split_source
from survey.data.table import models_in, pick_messages, require_messages, require_models, validate_table
from survey.errors import SurveyError, TableError, validated
from survey.responses import response_type
from survey.responses.view import AnalysisView
from survey.stats.kinds import CompareOptions, FitOptions, kind_of, table_view


class AnalyzeOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    alternative: Literal["two-sided", "greater", "less"] = "two-sided"
    alpha: Alpha = 0.05
    confidence: float | None = Field(default=None, gt=0, lt=1)  # None: 1 - alpha
    flips: Flips = 9999
    seed: Seed | None = 0
    probabilities: bool = False
    pairing: list[tuple[str, str]] | None = None


class EstimateOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    bootstrap: int = Field(default=200, ge=0, le=BOOTSTRAP_MAX)
    seed: Seed | None = 0
    method: Literal["moments", "appendix-c"] = "moments"


class Analysis(Display, dict):
    """model -> its A/B result (survey.stats.results.ABResult) for the first pair compared, in table order;
    ``results`` every result (every pair of messages with ``every_pair``); ``view`` the table's
    AnalysisView; ``left_out`` the reason of each model or pair left out; ``completeness`` what the data
    rests on (the study and the queries expected, stored, failed)."""

    def __init__(self, results=(), left_out=(), completeness: Completeness | None = None,
                 alpha: float = 0.05, view: AnalysisView | None = None):
        self.results = list(results)
        super().__init__()
        for r in self.results:
            self.setdefault(r.model, r)
        self.left_out = list(left_out)
        self.completeness = completeness
        self.alpha = alpha
        self.view = view if view is not None else response_type("binary").view

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
        stored = getattr(r, "sequential", None)  # data collected in rounds: the sequential test decided
        return stored.rejects if stored is not None else bool(decision_pvalue(r) <= self.alpha)

    def display_parts(self):
        rows = [{"model": r.model, "messages": f"{r.a} vs {r.b}", "effect": r.effect.estimate, "CI": r.effect.ci,
                 "p": decision_pvalue(r), "decided by": ("sequential test" if getattr(r, "sequential", None)
                                                         else self.kind.decided_by.replace("_", "-") + " test"),
                 "significant": self.significant(r)} for r in self.results]
        notes = [f"effect: {self.view.effect_unit}, A − B"]
        notes += [r.segments.sentence() for r in self.results if getattr(r, "segments", None) is not None]
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
    """One A/B result as `survey analyze --json` prints it: model, scale and unit first, then its own keys;
    with segments or weights (survey.stats.segments) its ``segments``, ``interaction`` and ``population``."""
    seg = getattr(result, "segments", None)
    return {"model": result.model, "scale": result.scale, "unit": result.unit, **result.to_dict(),
            **(seg.to_dict() if seg is not None else {})}


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


def with_scale(df, scale: str | None):
    """A DataFrame checked against the contract with ``scale`` for a table without a scale column."""
    if scale is None:
        return df
    response_type(scale)  # an unknown name: the SurveyError lists the known ones
    return validate_table(df, min_perturbations=0, scale=scale)


def analyze(df, a: str | None = None, b: str | None = None, *, models: list[str] | None = None,
            every_pair: bool = False, pairs: list[tuple[str, str]] | None = None, strict: bool = False,
            alternative: str = "two-sided", alpha: float = 0.05,
            confidence: float | None = None, flips: int = 9999, seed: int | None = 0,
            probabilities: bool = False, pairing: list[tuple[str, str]] | None = None,
            completeness: Completeness | None = None, scale: str | None = None, by=None, weights=None,
            personas=None, adjust: str = "holm") -> Analysis:
    """Message A vs B for every model (or those named): the kind's tests and the effect with its CI.

    With two messages in the table, a and b may be left out (or one of them). ``pairs``: the (A, B) pairs
    to compare for every model instead (e.g. every pair of chosen messages). ``strict``: a pair that
    cannot be compared is an error instead of being left out. ``every_pair``: with a and b
    left out, compare every pair of messages the kind can compare (forced choice: every pair shown
    together) for each model; ``res.results`` holds them all. ``alpha``: the level at which each result
    says whether its deciding test rejects (``significant``); the effect's interval has confidence
    1 - alpha unless ``confidence`` is given. ``flips``: random sign vectors when there are more than 40
    perturbation pairs (below that the test is exact).
    ``probabilities``: test the exact per-cell expected score (``expected``; P(Yes) for Yes/No) instead
    of answer means.
    ``pairing``: [(A id, B id), ...] for every model; by default design or natural order of the ids
    (survey.data.pairing). Each result's ``pairs`` and ``to_dict()`` say which pairs were formed.
    ``df``: a long table or a Source (survey.data.sources.load_source); ``completeness`` overrides its own.
    ``scale``: the response type of a table without a ``scale`` column (e.g. "likert5"; default Yes/No).
    The table's kind (survey.stats.kinds) runs each comparison: Yes/No compares P(Yes), a rating scale mean
    scores (effect in scale points, top-2-box beside it), forced choice the order-averaged preference
    (with the position bias). A table that mixes scales is refused.

    For whom, and in which market (survey.stats.segments), on every result as ``result.segments``:
    ``by``: segments of personas: an attribute ("gender"), bins of a numeric one ("age:18-34,35-54,55+") or
    named filters ({"young_high": "age < 35 and income == 'high'"}); each segment gets the kind's comparison
    on its personas, Holm-adjusted (``adjust="bonferroni"`` on request) with simultaneous intervals, and the
    segments' interaction test. ``weights``: target margins ({"gender": {"male": 0.49, ...}} or a Target) the
    personas are raked to, PersonaWeights, or persona id -> weight: the weighted population effect.
    ``personas``: the personas' attributes (a persona set or a DataFrame) when the source does not carry them
    (a store records its persona set's; a table may carry attribute columns). On the store of a study with
    [segments] or [target], ``by`` and ``weights`` left at None are the study's (False: none).
    """
    segmenting = _segmenting(df, by, weights, personas, adjust)
    df, completeness = split_source(df, completeness)
    df = with_scale(df, scale)
    opts = validated(AnalyzeOptions, "analyze options", alternative=alternative, alpha=alpha, confidence=confidence,
                     flips=flips, seed=seed, probabilities=probabilities, pairing=pairing)
    view = table_view(df)
    kind = kind_of(view)  # free text has nothing to compare: say so
    run_opts = CompareOptions(opts.alternative, opts.alpha, 1 - opts.alpha if opts.confidence is None else
                              opts.confidence, opts.flips, opts.seed, opts.probabilities, opts.pairing)
    if pairs is not None:
        require_messages(df, [m for pair in pairs for m in pair])

        def pairs_of(_df, _model):
            return list(pairs)
    elif every_pair and a is None and b is None:
        require_messages(df, [])
        pairs_of = kind.message_pairs
    else:
        a, b = _pick(df, a, b, completeness)

        def pairs_of(_df, _model):
            return [(a, b)]
    require_models(df, models or [])
    results, left_out = [], []
    # a pair of one model that cannot be compared must not hide the others; every_pair also leaves out a
    # pair the kind refuses (e.g. forced choice without valid replies in both orders)
    catch = () if strict else (SurveyError if every_pair else TableError)
    for model in models or models_in(df):
        for x, y in pairs_of(df, model):
            try:
                results.append(kind.compare(df, model, x, y, view, run_opts))
            except catch as exc:
                left_out.append(str(exc) if not every_pair else f"model '{model}', {x} vs {y}: {exc}")
    if not results:
        raise SurveyError("; ".join(left_out) or "nothing to compare: the table needs two messages for at "
                          "least one model")
    if not opts.probabilities:
        _decide_sequentially(results, completeness)
    if segmenting is not None:
        from survey.stats.segments import segment_analysis

        for r in results:
            r.segments = segment_analysis(df, r.model, r.a, r.b, kind, view, run_opts, *segmenting)
            if getattr(r, "sequential", None) is not None:
                r.segments.warnings.append("the data were collected in rounds until the pooled sequential test "
                                           "decided: the segment, interaction and population p-values are "
                                           "fixed-design ones and do not account for that stopping rule")
    return Analysis(results, left_out, completeness, opts.alpha, view)


def _segmenting(source, by, weights, personas, adjust: str):
    """(segmentation, persona weights, adjustment) for ``by`` and ``weights``, or None without either;
    built from the personas' attributes alone, before any answer is read. Left at None, they are the
    study's own (its recorded [segments] and [target]); False turns them off."""
    from survey.data.attributes import persona_attributes
    from survey.stats.segments import PersonaWeights, Target, given_weights, rake, segment_by

    recorded = ((getattr(source, "context", None) or {}).get("analysis") or {})
    by = recorded.get("segments") if by is None else by
    if weights is None and recorded.get("target"):
        weights = Target(recorded["target"]["margins"], recorded["target"].get("source") or "the study's target")
    by = None if by is False else by
    weights = None if weights is False else weights
    if by is None and weights is None:
        return None
    if adjust not in ("holm", "bonferroni"):
        raise SurveyError(f"adjust: the adjustment across segments must be holm or bonferroni; got '{adjust}'")
    margins = isinstance(weights, Target) or (isinstance(weights, dict) and not _per_persona(weights))
    needs_attributes = by is not None or margins
    attributes = persona_attributes(source, personas) if needs_attributes else None
    segmentation = segment_by(attributes, by) if by is not None else None
    if weights is None or isinstance(weights, PersonaWeights):
        w = weights
    elif margins:
        w = rake(attributes, weights)
    else:
        w = given_weights(weights)
    return segmentation, w, adjust


def _per_persona(weights) -> bool:
    """Whether a mapping gives one number per persona (rather than shares per attribute level)."""
    return not isinstance(weights, dict) or not any(isinstance(v, dict) for v in weights.values())


def _pick(df, a, b, completeness: Completeness | None) -> tuple[str, str]:
    """The two messages; on an incomplete store, a missing message is the store's incompleteness, said so."""
    try:
        return pick_messages(df, a, b)
    except SurveyError as exc:
        shown = _one_order(df)
        if shown:  # forced choice asked in one order only: not "the table has one message"
            raise SurveyError(f"every forced-choice prompt showed {shown[0]} first and {shown[1]} second; the "
                              "preference test needs both orders (averaging them cancels the pull of the first "
                              "position): ask the pairs in both orders, as a study with type = 'choice' does") from None
        if completeness is None or completeness.complete is not False:
            raise
        stored = sum(m.stored for m in completeness.models)
        expected = sum(m.expected or 0 for m in completeness.models)
        raise SurveyError(f"{exc}: the store is incomplete for study '{completeness.study}' ({stored} of {expected} "
                          "expected queries stored); `survey run` on the study file resumes it") from None


def _one_order(df) -> tuple[str, str] | None:
    """(first, second) when every forced-choice row showed the same message first and the same one second."""
    if "second" not in df.columns or df.empty:
        return None
    firsts, seconds = set(df["message"].astype(str)), set(df["second"].dropna().astype(str))
    if len(firsts) == 1 and len(seconds) == 1 and firsts != seconds:
        return next(iter(firsts)), next(iter(seconds))
    return None


def _decide_sequentially(results: list, completeness: Completeness | None) -> None:
    """On data collected in rounds and stopped by a sequential test, that test decides A vs B for the
    messages it monitored (survey.stats.sequential.stored): the fixed-design p-value is not valid for
    the stopping rule."""
    from survey.stats.sequential.stored import StoredSequential

    for r in results:
        doc = (getattr(completeness, "sequential", None) or {}).get(r.model)
        if doc and {doc.get("a"), doc.get("b")} == {r.a, r.b} and hasattr(r, "sequential"):
            r.sequential = StoredSequential.from_doc(doc, flipped=doc.get("a") != r.a)


def estimate(df, message: str, model: str | None = None, *, bootstrap: int = 200, seed: int | None = 0,
             method: str = "moments", completeness: Completeness | None = None,
             scale: str | None = None) -> Estimates:
    """The kind's response model fitted on one message's answers, for every model or the one named.

    Yes/No: mu, kappa, sigma, rho of the Beta-logit model of Helm & Priebe. ``method``: "moments" (the
    default everywhere: unbiased on the probability scale; with one answer per cell it falls back to
    appendix C and its note says so) or "appendix-c" (the paper's estimator, biased; kept for comparison),
    see survey.stats.beta_logit_estimate. A rating scale: tau, sigma, rho and the cut points of the ordinal model by
    its moment estimator (survey.kinds.ordinal.estimate; ``method`` "moments" only). A kind without a
    response model (forced choice) raises a SurveyError saying to use analyze. ``bootstrap`` resamples of
    personas and perturbations give standard errors and 95% percentile intervals (0: none). ``df``,
    ``completeness`` and ``scale`` as in analyze."""
    df, completeness = split_source(df, completeness)
    df = with_scale(df, scale)
    opts = validated(EstimateOptions, "estimate options", bootstrap=bootstrap, seed=seed, method=method)
    view = table_view(df)
    kind = kind_of(view)
    fit_opts = FitOptions(opts.bootstrap, opts.seed, opts.method)
    if not kind.fit_params:
        kind.fit(df, "", message, view, fit_opts)  # says why this kind has no model
    if opts.method not in kind.methods:
        kind.fit(df, "", message, view, fit_opts)  # says which method the kind's model takes
    require_messages(df, [message])
    models = models_in(df) if model is None else [model]
    require_models(df, models)
    done, left_out = [], []
    for m in models:
        try:
            done.append((m, kind.fit(df, m, message, view, fit_opts)))
        except SurveyError as exc:  # a degenerate model (e.g. always "No") cannot be fitted: say so, go on
            left_out.append(f"model '{m}': {exc}")
    if not done:
        raise SurveyError("; ".join(left_out))
    return Estimates(message, done, left_out, completeness, view)


__all__ = ["Analysis", "Estimates", "analyze", "decision_pvalue", "estimate", "result_dict"]
