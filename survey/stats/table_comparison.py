"""Everything `survey compare` reports about one table: message A vs B across its models (direction,
heterogeneity, fitted parameters), how far the models agree, and every pair of messages per model."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from survey.common.limits import check_alpha
from survey.data.completeness import Completeness
from survey.data.sources import Source
from survey.data.table import messages_in, models_in, pick_messages
from survey.errors import SurveyError
from survey.stats.across_messages import MessagesComparison, compare_all_messages
from survey.stats.across_models import ModelsComparison, compare_models
from survey.stats.agreement import AgreementResult, model_agreement
from survey.stats.analysis import Analysis
from survey.stats.multiplicity import check_adjustment


@dataclass
class TableComparison:
    a: str
    b: str
    note: str | None  # how A and B were chosen, when the table has more than two messages
    models: ModelsComparison
    agreement: AgreementResult | None  # None with a single model
    messages: list[MessagesComparison] = field(default_factory=list)  # models with 3+ messages
    messages_left_out: dict[str, str] = field(default_factory=dict)  # model -> why its pairs are missing
    completeness: Completeness | None = None  # what the table rests on (survey.data.completeness)

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "note": self.note, "models": self.models.to_dict(),
                "agreement": None if self.agreement is None else self.agreement.to_dict(),
                "messages": [m.to_dict() for m in self.messages], "messages_left_out": self.messages_left_out,
                **({"study": self.completeness.study, "completeness": self.completeness.to_dict()}
                   if self.completeness else {})}


def comparison_steps(df: pd.DataFrame) -> int:
    """How often ``compare_table`` calls ``progress``: once per model, then once per message pair."""
    n_models, n_msgs = len(models_in(df)), len(messages_in(df))
    return n_models + (n_models * n_msgs * (n_msgs - 1) // 2 if n_msgs >= 3 else 0)


@dataclass(frozen=True)
class CompareTableOptions:
    """How ``compare_table`` compares, checked once here. ``adjust_models`` ("none", "holm", "bonferroni")
    applies across models before directions are counted; ``adjust_messages`` across a model's message pairs.
    The intervals have ``confidence``, by default 1 - ``alpha``; ``n_resamples`` are the random sign vectors
    (``--flips``) when a test is not exact. ``fit``: which message's response model each model fits ("a",
    "b" or "none"); ``ties`` and ``kappa_weights`` ("auto": quadratic on rating scales) shape the agreement
    (survey.stats.agreement)."""

    alpha: float = 0.05
    confidence: float | None = None
    n_resamples: int = 9999
    seed: int | None = 0
    adjust_models: str = "none"
    adjust_messages: str = "holm"
    fit: str = "a"
    ties: str = "drop"
    kappa_weights: str = "auto"

    def __post_init__(self):
        alpha = check_alpha(self.alpha)  # validated here once; the comparisons below trust it
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "confidence", 1 - alpha if self.confidence is None else self.confidence)
        check_adjustment(self.adjust_models)
        check_adjustment(self.adjust_messages)


def compare_table(source: Source, a: str | None = None, b: str | None = None, *,
                  sizes: dict[str, float] | None = None, options: CompareTableOptions = CompareTableOptions(),
                  progress=None, prior: Analysis | None = None) -> TableComparison:
    """A vs B across the models of a source's validated long table, their agreement, and (with three or more
    messages) every pair of messages per model; the result carries the source's completeness.

    A and B default to the first two messages (``note`` says so when there are more). A model whose message
    pairs cannot be tested (e.g. every answer invalid) is left out with its reason. ``progress()`` is called
    ``comparison_steps(df)`` times. ``options``: CompareTableOptions. ``sizes``: model -> size (e.g.
    parameters), to order the plot. ``prior``: an Analysis of the same source (a report's), whose comparisons
    are taken instead of run again.
    """
    df, completeness = source.table, source.completeness
    opts = options
    named = a is not None or b is not None
    a, b = pick_messages(df, a, b, first_two=True)
    msgs = messages_in(df)
    note = None if named or len(msgs) == 2 else (f"A and B are the first two messages ({a}, {b}); "
                                                 "choose others with `a=` and `b=`")
    models = compare_models(df, a, b, sizes=sizes, alpha=opts.alpha, adjust=opts.adjust_models, fit=opts.fit,
                            n_resamples=opts.n_resamples, seed=opts.seed, confidence=opts.confidence,
                            progress=progress, prior=prior)
    agreement = (model_agreement(df, ties=opts.ties, weights=opts.kappa_weights) if len(models_in(df)) >= 2
                 else None)
    out = TableComparison(a, b, note, models, agreement, completeness=completeness)
    for m in models_in(df) if len(msgs) >= 3 else []:
        if len(messages_in(df, m)) < 3:
            continue
        try:
            out.messages.append(compare_all_messages(df, m, adjust=opts.adjust_messages, alpha=opts.alpha,
                                                     n_resamples=opts.n_resamples, seed=opts.seed,
                                                     confidence=opts.confidence, progress=progress, prior=prior))
        except SurveyError as exc:  # e.g. every answer invalid: leave this model out, say why
            out.messages_left_out[m] = str(exc)
    return out
