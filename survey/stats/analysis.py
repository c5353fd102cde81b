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

Both take a survey.data.sources.Source (``load_source``, or ``Source.of`` a DataFrame: ``survey.analyze``
and ``survey.estimate`` wrap one, and read the study's recorded defaults, survey.api.analysis): the result
carries the data's completeness (``res.completeness``, survey.data.completeness) and says which study it
analysed. The options are checked once, where they are built (CompareOptions, FitOptions).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from survey.data.completeness import Completeness
from survey.data.sources import Source
from survey.data.table import models_in, pick_messages, require_messages, require_models, validate_table
from survey.errors import SurveyError, TableError
from survey.responses import response_type
from survey.stats.analysis_results import Analysis, Estimates, decision_pvalue, result_dict
from survey.stats.invalid_rates import invalid_rate_warnings
from survey.stats.kinds import CompareOptions, FitOptions, kind_of, table_view
from survey.stats.sequential_decision import StoredSequential

# the options of analyze and estimate: one frozen class each, checked once when built
AnalyzeOptions = CompareOptions
EstimateOptions = FitOptions
ANALYZE_DEFAULTS = CompareOptions()  # the interval's confidence is 1 - alpha unless given
SEGMENT_ADJUSTMENTS = ("holm", "bonferroni")


@dataclass(frozen=True)
class SegmentOptions:
    """For whom, and in which market (survey.stats.segments): ``by`` segments of personas, ``weights`` target
    margins, a Target, PersonaWeights or persona id -> weight, ``personas`` their attributes when the source
    does not carry them, ``adjust`` the adjustment across segments. None is none: a study's recorded
    [segments] and [target] are applied above (survey.api.analysis)."""

    by: object = None
    weights: object = None
    personas: object = None
    adjust: str = "holm"

    def __post_init__(self):
        if self.adjust not in SEGMENT_ADJUSTMENTS:
            raise SurveyError(f"adjust: the adjustment across segments must be holm or bonferroni; got "
                              f"'{self.adjust}'")

    @property
    def active(self) -> bool:
        return self.by is not None or self.weights is not None


def with_scale(df, scale: str | None):
    """A DataFrame checked against the contract with ``scale`` for a table without a scale column."""
    if scale is None:
        return df
    response_type(scale)  # an unknown name: the SurveyError lists the known ones
    return validate_table(df, min_perturbations=0, scale=scale)


def analyze(source: Source, a: str | None = None, b: str | None = None, *, models: list[str] | None = None,
            every_pair: bool = False, pairs: list[tuple[str, str]] | None = None, strict: bool = False,
            options: CompareOptions = ANALYZE_DEFAULTS, segments: SegmentOptions | None = None,
            family: str | None = None, primary: str | None = None) -> Analysis:
    """Message A vs B for every model (or those named) of ``source``: the kind's tests and the effect with its CI.

    With two messages in the table, a and b may be left out (or one of them). With more than two and neither
    named, the study is analysed as designed (survey.stats.message_set.MessageSetAnalysis): each model's levels
    (share, score or mean with its interval) and every pair, Holm-adjusted, with simultaneous intervals.
    ``pairs``: the (A, B) pairs to compare for every model instead (e.g. every pair of chosen messages).
    ``strict``: a pair that cannot be compared is an error instead of being left out. ``every_pair``: with a
    and b left out, every pair of messages the kind can compare (forced choice: every pair shown together);
    ``res.results`` holds them all. ``options`` (CompareOptions): the alternative,
    ``alpha`` (the level at which each result says whether its deciding test rejects, ``significant``), the
    effect interval's confidence (1 - alpha unless given), ``flips`` (random sign vectors when there are more
    than 40 perturbation pairs; below that the test is exact), the seed, ``probabilities`` (test the exact
    per-cell expected score, ``expected``, instead of answer means) and ``pairing`` ([(A id, B id), ...] for
    every model; by default design or natural order of the ids, survey.data.pairing; each result's ``pairs``
    and ``to_dict()`` say which pairs were formed).
    The table's kind (survey.stats.kinds) runs each comparison: Yes/No compares P(Yes), a rating scale mean
    scores (effect in scale points, top-2-box beside it), forced choice the order-averaged preference
    (with the position bias). A table that mixes scales is refused.

    ``segments`` (SegmentOptions): for whom, and in which market (survey.stats.segments), on every result as
    ``result.segments``: each segment gets the kind's comparison on its personas, Holm-adjusted (or
    Bonferroni) with simultaneous intervals, and the segments' interaction test; with weights the weighted
    population effect. On data collected in rounds and stopped by a sequential test, that test decides A vs B
    for the messages it monitored (``result.sequential``; survey.stats.sequential_decision).

    A source of several questions gives a QuestionsAnalysis: each question as above, then per model the family of
    (question, pair) tests adjusted by ``family`` with ``primary`` deciding (survey.stats.questions).
    """
    if len(source.questions) > 1 or primary is not None:
        from survey.stats.questions import analyze_questions

        return analyze_questions(source, analyze, family=family, primary=primary, a=a, b=b, models=models,
                                 every_pair=every_pair, pairs=pairs, strict=strict, options=options, segments=segments)
    segmenting = _segmenting(source, segments) if segments is not None and segments.active else None
    df, completeness = source.table, source.completeness
    view = table_view(df)
    kind = kind_of(view)  # free text has nothing to compare: say so
    if pairs is not None:
        require_messages(df, [m for pair in pairs for m in pair])

        def pairs_of(_df, _model):
            return list(pairs)
    elif a is None and b is None and (every_pair or df["message"].nunique() > 2):
        require_messages(df, [])
        require_models(df, models or [])
        order = source.study_context.messages
        work = {model: in_study_order(kind.message_pairs(df, model), order) for model in models or models_in(df)}
        if any(len(set(sum(p, ()))) > 2 for p in work.values()):  # a study of k > 2 messages, as designed
            return _message_set(source, kind, view, work, options, strict, segmenting, family)
        if not every_pair:
            a, b = _pick(df, a, b, completeness)

        def pairs_of(_df, model):
            return work[model] if every_pair else [(a, b)]
    else:
        a, b = _pick(df, a, b, completeness)

        def pairs_of(_df, _model):
            return [(a, b)]
    require_models(df, models or [])
    # a pair of one model that cannot be compared must not hide the others; every_pair also leaves out a
    # pair the kind refuses (e.g. forced choice without valid replies in both orders)
    catch = () if strict else (SurveyError if every_pair else TableError)
    work = [(model, pairs_of(df, model)) for model in models or models_in(df)]
    results, left_out = compare_pairs(source, kind, view, work, options, catch, every_pair, segmenting)
    if not results:
        raise SurveyError("; ".join(left_out) or "nothing to compare: the table needs two messages for at "
                          "least one model")
    return Analysis(results, left_out, completeness, options.alpha, view, options)


def in_study_order(pairs: list[tuple[str, str]], order) -> list[tuple[str, str]]:
    """``pairs`` with A before B and the pairs sorted as the study file lists the messages (``order``; a message
    it does not list keeps its place after them). A kind's own order is the table's, which on kinds that show
    several messages together is the first-shown message of the first rows, a random one."""
    if not order:
        return pairs
    rank = {m: i for i, m in enumerate(order)}

    def key(m):
        return rank.get(m, len(rank))

    oriented = [tuple(sorted(p, key=key)) for p in pairs]
    return sorted(oriented, key=lambda p: (key(p[0]), key(p[1])))


def _message_set(source: Source, kind, view, work: dict, options: CompareOptions, strict: bool, segmenting,
                 family: str | None):
    """Three or more messages (survey.stats.message_set): every pair the kind compares (``work``: model -> its
    pairs; one it refuses is left out with its reason unless ``strict``), then each model's levels and matrix,
    adjusted by ``family`` (default the study's recorded [analysis] family, else Holm)."""
    from survey.stats.message_set import message_set_analysis

    results, left_out = compare_pairs(source, kind, view, list(work.items()), options,
                                      () if strict else SurveyError, True, segmenting)
    if not results:
        raise SurveyError("; ".join(left_out) or "nothing to compare: the table needs two messages for at "
                          "least one model")
    res = Analysis(results, left_out, source.completeness, options.alpha, view, options)
    messages = {model: list(dict.fromkeys(m for pair in pairs for m in pair)) for model, pairs in work.items()}
    return message_set_analysis(res, messages, family or getattr(source.study_context, "family", None))


def compare_pairs(source: Source, kind, view, work: list, options: CompareOptions, catch: tuple, every_pair: bool,
                  segmenting) -> tuple[list, list[str]]:
    """(results, reasons left out) of each (model, [pairs]) of ``work``, each result declared whole: its
    stored sequential decision and its segments are set when it is built."""
    df = source.table
    order = source.study_context.messages
    results, left_out = [], []
    for model, pairs in work:
        for x, y in pairs:
            try:
                r = kind.compare(df, model, x, y, view, options)
            except catch as exc:
                left_out.append(str(exc) if not every_pair else f"model '{model}', {x} vs {y}: {exc}")
                continue
            if order and hasattr(r, "in_message_order"):  # a result listing every message: in the study's order
                r = r.in_message_order(order)
            sequential = None if options.probabilities else _stored_sequential(r, source.study_context.sequential)
            warnings = [*r.warnings, *invalid_rate_warnings(kind, df, model, x, y, options)]
            seg = None
            if segmenting is not None:
                from survey.stats.segments import segment_analysis

                seg = segment_analysis(df, r.model, r.a, r.b, kind, view, options, *segmenting)
                if sequential is not None:
                    seg.warnings.append("the data were collected in rounds until the pooled sequential test "
                                        "decided: the segment, interaction and population p-values are "
                                        "fixed-design ones and do not account for that stopping rule")
            changed = sequential is not None or seg is not None or warnings != r.warnings
            results.append(dataclasses.replace(r, sequential=sequential, segments=seg, warnings=warnings)
                           if changed else r)
    return results, left_out


def reuse_or_analyze(prior: Analysis | None, source: Source, models: list[str], pairs: list[tuple[str, str]], *,
                     options: CompareOptions, strict: bool = False, recorded: bool = False,
                     effects_only: bool = False) -> Analysis:
    """``analyze(source, models=models, pairs=pairs, options=options, strict=strict)``, taking every (model, pair)
    that ``prior`` (an Analysis of the same data run with the same options, or None) already holds instead of
    testing it again: a report analyses once and hands the results to its other views. ``recorded``: keep
    what the prior results carry from the study (its sequential decision, its segments); without it they
    read as the fixed-design comparison a table alone gives. ``effects_only``: the caller reads only each
    result's effect and interval, which ``alpha`` does not change: a prior run at another alpha serves."""
    # a prior of several questions holds each (model, pair) once per question: it is analysed again here
    same = prior is not None and not hasattr(prior, "by_question") and (prior.options == options or effects_only and
                                  dataclasses.replace(prior.options, alpha=options.alpha) == options)
    if not same:
        return analyze(source, models=models, pairs=pairs, options=options, strict=strict)
    df = source.table
    require_messages(df, [m for pair in pairs for m in pair])
    require_models(df, models)
    view = table_view(df)
    work = [(model, [p for p in pairs if prior.result(model, *p) is None]) for model in models]
    fresh, left_out = compare_pairs(source, kind_of(view), view, work, options, () if strict else TableError, False,
                                    None)
    held = {(r.model, r.a, r.b): r for r in fresh}
    results = []
    for model in models:
        for x, y in pairs:
            r = prior.result(model, x, y)
            if r is not None and not recorded:
                r = dataclasses.replace(r, sequential=None, segments=None)
            if r is None:
                r = held.get((model, x, y))
            if r is not None:
                results.append(r)
    if not results:
        raise SurveyError("; ".join(left_out) or "nothing to compare: the table needs two messages for at "
                          "least one model")
    return Analysis(results, left_out, source.completeness, options.alpha, view, options)


def _segmenting(source: Source, segments: SegmentOptions):
    """(segmentation, persona weights, adjustment) for ``by`` and ``weights``, built from the personas'
    attributes alone, before any answer is read."""
    from survey.data.attributes import persona_attributes
    from survey.stats.segments import PersonaWeights, Target, given_weights, rake, segment_by

    by, weights = segments.by, segments.weights
    margins = isinstance(weights, Target) or (isinstance(weights, dict) and not _per_persona(weights))
    needs_attributes = by is not None or margins
    attributes = persona_attributes(source, segments.personas) if needs_attributes else None
    segmentation = segment_by(attributes, by) if by is not None else None
    if weights is None or isinstance(weights, PersonaWeights):
        w = weights
    elif margins:
        w = rake(attributes, weights)
    else:
        w = given_weights(weights)
    return segmentation, w, segments.adjust


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


def _stored_sequential(result, paths: dict):
    """On data collected in rounds and stopped by a sequential test, that test decides A vs B for the
    messages it monitored (survey.stats.sequential_decision): the fixed-design p-value is not valid for
    the stopping rule. None otherwise."""
    doc = paths.get(result.model)
    if doc and {doc.get("a"), doc.get("b")} == {result.a, result.b}:
        return StoredSequential.from_doc(doc, flipped=doc.get("a") != result.a)
    return None


def estimate(source: Source, message: str, model: str | None = None, *,
             options: FitOptions = FitOptions()) -> Estimates:
    """The kind's response model fitted on one message's answers, for every model or the one named.

    Yes/No: mu, kappa, sigma, rho of the Beta-logit model of Helm & Priebe. ``options.method``: "moments" (the
    default everywhere: unbiased on the probability scale; with one answer per cell it falls back to
    appendix C and its note says so) or "appendix-c" (the paper's estimator, biased; kept for comparison),
    see survey.stats.beta_logit_estimate. A rating scale: tau, sigma, rho and the cut points of the ordinal model by
    its moment estimator (survey.kinds.ordinal.estimate; "moments" only). A kind without a
    response model (forced choice) raises a SurveyError saying to use analyze. ``options.bootstrap`` resamples
    of personas and perturbations give standard errors and 95% percentile intervals (0: none)."""
    df, completeness = source.table, source.completeness
    view = table_view(df)
    kind = kind_of(view)
    if not kind.fit_params:
        kind.fit(df, "", message, view, options)  # says why this kind has no model
    if options.method not in kind.methods:
        kind.fit(df, "", message, view, options)  # says which method the kind's model takes
    require_messages(df, [message])
    models = models_in(df) if model is None else [model]
    require_models(df, models)
    done, left_out = [], []
    for m in models:
        try:
            done.append((m, kind.fit(df, m, message, view, options)))
        except SurveyError as exc:  # a degenerate model (e.g. always "No") cannot be fitted: say so, go on
            left_out.append(f"model '{m}': {exc}")
    if not done:
        raise SurveyError("; ".join(left_out))
    return Estimates(message, done, left_out, completeness, view)


__all__ = ["Analysis", "AnalyzeOptions", "Estimates", "EstimateOptions", "SegmentOptions", "analyze", "decision_pvalue",
           "estimate", "result_dict", "reuse_or_analyze"]
