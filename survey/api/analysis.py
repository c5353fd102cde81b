"""`survey.analyze`, `survey.estimate` and `survey.compare`: the public door of the statistics.

A user hands over a long table (a DataFrame) or a Source (survey.load_source); it is wrapped here, once,
into a survey.data.sources.Source, and the options given as keywords are built into their options object
(checked once, when built). A study's recorded defaults are read here too, above the statistics: on the
store of a study with [segments] or [target], ``by`` and ``weights`` left at None are the study's (False:
none). Below this door every function takes a Source and its options objects.

    res = survey.analyze(df, a="sneakers", b="boots", alpha=0.01)
    res = survey.analyze(source, options=survey.AnalyzeOptions(flips=999), by="gender")
"""

from __future__ import annotations

import dataclasses

from survey.common.options import options_from, split_keywords
from survey.data.completeness import Completeness
from survey.data.sources import Source
from survey.errors import SurveyError
from survey.stats.analysis import (
    ANALYZE_DEFAULTS,
    Analysis,
    AnalyzeOptions,
    EstimateOptions,
    Estimates,
    SegmentOptions,
    with_scale,
)
from survey.stats.analysis import analyze as analyze_source
from survey.stats.analysis import estimate as estimate_source
from survey.stats.table_comparison import CompareTableOptions, TableComparison, compare_table


def source_of(data, completeness: Completeness | None = None, scale: str | None = None) -> Source:
    """``data`` (a DataFrame or a Source) as a Source, its table checked against ``scale`` when one is given
    (a table without a ``scale`` column: e.g. "likert5"; default Yes/No)."""
    source = Source.of(data, completeness)
    return source if scale is None else source.with_table(with_scale(source.table, scale))


def one_question(source: Source, what: str, question: str | None = None) -> Source:
    """The Source of ``question``, or the source itself when it asks one question; a source of several questions
    without a choice is refused in one line (``what`` reads one question at a time)."""
    if question is not None:
        return source.for_question(question)
    if len(source.questions) == 1:
        return source
    raise SurveyError(f"{what} reads one question at a time; the source asks {', '.join(source.questions)}: name "
                      "one (question=... in Python, --question on the command line)")


def study_segments(source: Source, segments: SegmentOptions) -> SegmentOptions:
    """``segments`` with ``by`` and ``weights`` left at None read from the study's recorded [segments] and
    [target] (a table file records none); False turns either off."""
    from survey.stats.segments import Target

    recorded = source.study_context
    by, weights = segments.by, segments.weights
    by = recorded.segments if by is None else by
    if weights is None and recorded.target:
        weights = Target(recorded.target["margins"], recorded.target.get("source") or "the study's target")
    return dataclasses.replace(segments, by=None if by is False else by, weights=None if weights is False else weights)


def analyze(data, a: str | None = None, b: str | None = None, *, models: list[str] | None = None,
            every_pair: bool = False, pairs: list[tuple[str, str]] | None = None, strict: bool = False,
            completeness: Completeness | None = None, scale: str | None = None,
            options: AnalyzeOptions | None = None, question: str | None = None, **keywords) -> Analysis:
    """Message A vs B for every model (or those named): the kind's tests and the effect with its CI
    (survey.stats.analysis.analyze says what each is).

    ``data``: a long table or a Source (survey.load_source); ``completeness`` overrides its own. ``scale``: the
    response type of a table without a ``scale`` column (e.g. "likert5"; default Yes/No). ``options``: an
    AnalyzeOptions; or its fields as keywords: ``alternative``, ``alpha``, ``confidence`` (default 1 - alpha),
    ``flips``, ``seed``, ``probabilities``, ``pairing``. For whom, and in which market (survey.stats.segments),
    the keywords ``by``, ``weights``, ``personas`` and ``adjust`` (SegmentOptions); on the store of a study with
    [segments] or [target], ``by`` and ``weights`` left at None are the study's (False: none).

    A source that asks several questions (survey.stats.questions): every question is analysed and the family of
    (question, pair) tests adjusted by ``family`` ("holm" or "bh"; default the study's [analysis] family, else
    Holm), ``primary`` deciding at alpha unadjusted (default the study's [analysis] primary); ``res.scorecard()``.
    ``question``: analyse that question alone, as a one-question study.
    With a and b left out, a study of three or more messages is analysed as designed (each message's level, then
    every pair, Holm-adjusted: survey.stats.message_set), unless the study declared its pair (``[humans] compare``).
    """
    segment_keywords = split_keywords(keywords, SegmentOptions)  # ``weights``: a target population, a segment option
    family, primary = keywords.pop("family", None), keywords.pop("primary", None)  # the family's, not a comparison's
    source = source_of(data, completeness, scale)
    if question is not None:
        source = source.for_question(question)
    opts = options_from(AnalyzeOptions, options, keywords, where="analyze") if options or keywords else ANALYZE_DEFAULTS
    segments = study_segments(source, SegmentOptions(**segment_keywords))
    if a is None and b is None and pairs is None and not every_pair:
        a, b = source.study_context.humans_pair or (None, None)  # a pair the study declared ([humans] compare)
    return analyze_source(source, a, b, models=models, every_pair=every_pair, pairs=pairs, strict=strict,
                          options=opts, segments=segments if segments.active else None, family=family,
                          primary=primary)


def estimate(data, message: str, model: str | None = None, *, completeness: Completeness | None = None,
             scale: str | None = None, options: EstimateOptions | None = None, question: str | None = None,
             **keywords) -> Estimates:
    """The kind's response model fitted on one message's answers, for every model or the one named
    (survey.stats.analysis.estimate). ``options``: an EstimateOptions; or its fields as keywords: ``bootstrap``
    (resamples for standard errors; 0: none), ``seed``, ``method`` ("moments" or "appendix-c"). ``data``,
    ``completeness`` and ``scale`` as in analyze; ``question``: the question fitted, on a source of several."""
    source = one_question(source_of(data, completeness, scale), "estimate", question)
    opts = options_from(EstimateOptions, options, keywords, where="estimate")
    return estimate_source(source, message, model, options=opts)


def compare(data, a: str | None = None, b: str | None = None, *, sizes: dict | None = None,
            completeness: Completeness | None = None, progress=None, options: CompareTableOptions | None = None,
            question: str | None = None, **keywords) -> TableComparison:
    """What `survey compare` reports: A vs B across the models, their agreement, and every pair of messages per
    model (survey.stats.table_comparison.compare_table). ``options``: a CompareTableOptions; or its fields as
    keywords (``alpha``, ``confidence``, ``n_resamples``, ``seed``, ``adjust_models``, ``adjust_messages``,
    ``fit``, ``ties``, ``kappa_weights``). ``sizes``: model -> size, to order the plot; ``progress()`` is called
    once per step (survey.stats.table_comparison.comparison_steps). ``question``: the question compared, on a
    source of several."""
    opts = options_from(CompareTableOptions, options, keywords, where="compare")
    source = one_question(source_of(data, completeness), "compare", question)
    return compare_table(source, a, b, sizes=sizes, options=opts, progress=progress)


def validate(data, *args, completeness: Completeness | None = None, question: str | None = None, **keywords):
    """Rejection rates of every test on random sub-samples of the table (survey.stats.planning.validate, whose
    arguments it takes); ``data``: a long table or a Source; ``question``: the question, on a source of several."""
    from survey.stats.planning import validate as validate_source

    return validate_source(one_question(source_of(data, completeness), "validate", question), *args, **keywords)


def sequential(data, *args, completeness: Completeness | None = None, pooled: bool = False,
               question: str | None = None, **keywords):
    """A sequential design run over each model's pairs of a finished table (survey.stats.sequential.replay, whose
    arguments it takes); ``data``: a long table or a Source. The replay is of the pooled rule: on the store of a
    study with [segments] or [target] it is refused unless ``pooled=True`` says the pooled rule is meant. On a
    source of several questions the rule monitors one, ``question``, by default the study's primary question."""
    from survey.stats.sequential.table_replay import replay

    source = source_of(data, completeness)
    primary = getattr(source.study_context, "primary", None)
    source = one_question(source, "a sequential replay", question or (primary if len(source.questions) > 1 else None))
    recorded = source.study_context
    if not pooled and (recorded.segments or recorded.target):
        what = " and ".join(n for n, v in (("[segments]", recorded.segments), ("[target]", recorded.target)) if v)
        raise SurveyError(f"the study's {what} cannot be replayed sequentially: pooled=True (--pooled) replays the "
                          "pooled rule; for the segments, analyze without the sequential replay")
    return replay(source, *args, **keywords)


__all__ = ["analyze", "compare", "estimate", "one_question", "sequential", "source_of", "study_segments", "validate"]
