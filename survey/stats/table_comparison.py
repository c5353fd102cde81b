"""Everything `survey compare` reports about one table: message A vs B across its models (direction,
heterogeneity, fitted parameters), how far the models agree, and every pair of messages per model."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from survey.common.limits import check_alpha
from survey.data.completeness import Completeness, split_source
from survey.data.table import messages_in, models_in, pick_messages
from survey.errors import SurveyError
from survey.stats.across_messages import MessagesComparison, compare_all_messages
from survey.stats.across_models import ModelsComparison, compare_models
from survey.stats.agreement import AgreementResult, model_agreement


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


def compare_table(df, a: str | None = None, b: str | None = None, *,
                  sizes: dict[str, float] | None = None, alpha: float = 0.05, adjust_models: str = "none",
                  adjust_messages: str = "holm", fit: str = "a", ties: str = "drop", kappa_weights: str = "auto",
                  n_resamples: int = 9999,
                  seed=0, confidence: float | None = None, progress=None,
                  completeness: Completeness | None = None) -> TableComparison:
    """A vs B across the models of a validated long table, their agreement, and (with three or more
    messages) every pair of messages per model.

    A and B default to the first two messages (``note`` says so when there are more). ``adjust_models``
    ("none", "holm", "bonferroni") applies across models before directions are counted;
    ``adjust_messages`` across a model's message pairs. A model whose message pairs cannot be tested
    (e.g. every answer invalid) is left out with its reason. ``progress()`` is called
    ``comparison_steps(df)`` times. ``df``: a long table or a Source (survey.data.sources); the result
    carries its completeness (or ``completeness``). The intervals have ``confidence``, by default
    1 - ``alpha``; ``n_resamples`` are the random sign vectors (``--flips``) when a test is not exact.
    ``ties`` and ``kappa_weights`` ("auto": quadratic on rating scales) shape the agreement
    (survey.stats.agreement).
    """
    alpha = check_alpha(alpha)  # validated here once; the comparisons below trust it
    confidence = 1 - alpha if confidence is None else confidence
    df, completeness = split_source(df, completeness)
    named = a is not None or b is not None
    a, b = pick_messages(df, a, b, first_two=True)
    msgs = messages_in(df)
    note = None if named or len(msgs) == 2 else (f"A and B are the first two messages ({a}, {b}); "
                                                 "choose others with `a=` and `b=`")
    models = compare_models(df, a, b, sizes=sizes, alpha=alpha, adjust=adjust_models, fit=fit,
                            n_resamples=n_resamples, seed=seed, confidence=confidence, progress=progress)
    agreement = model_agreement(df, ties=ties, weights=kappa_weights) if len(models_in(df)) >= 2 else None
    out = TableComparison(a, b, note, models, agreement, completeness=completeness)
    for m in models_in(df) if len(msgs) >= 3 else []:
        if len(messages_in(df, m)) < 3:
            continue
        try:
            out.messages.append(compare_all_messages(df, m, adjust=adjust_messages, alpha=alpha,
                                                     n_resamples=n_resamples, seed=seed, confidence=confidence,
                                                     progress=progress))
        except SurveyError as exc:  # e.g. every answer invalid: leave this model out, say why
            out.messages_left_out[m] = str(exc)
    return out
