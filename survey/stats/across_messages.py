"""Three or more messages compared from the same responses: every pair, no new queries.

Each pair (X, Y) is the two-message analysis of `compare_messages` (sign-flip test on paired
perturbations, effect T = P(Yes|X) - P(Yes|Y) with its sign-flip-inversion CI; on a rating scale
T = mean score(X) - mean score(Y), in scale points). With k messages
there are k(k-1)/2 tests on one set of responses, so the sign-flip p-values are adjusted for
multiplicity: Holm by default (controls the family-wise error under any dependence, and is
uniformly more powerful than Bonferroni), Bonferroni, or Benjamini-Hochberg (false discovery rate;
valid under the positive dependence that shared personas induce, not under arbitrary dependence).

The per-pair CI is marginal (95% for that pair alone). A Bonferroni-simultaneous CI (confidence
1 - alpha/k for each of the k pairs) is reported alongside, because Holm has no matching interval.

Forced choice (scale "choice") asks pairs in one prompt; its rows are not the per-message answers
compared here, so every pair of messages is refused with a SurveyError (analyse each asked pair).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from survey.common.formatting import finite
from survey.data.sources import Source
from survey.data.table import messages_in, require_messages
from survey.errors import SurveyError
from survey.responses import DEFAULT_SCALE
from survey.stats.analysis import Analysis, reuse_or_analyze
from survey.stats.kinds import CompareOptions, kind_of, table_view
from survey.stats.multiplicity import check_adjustment
from survey.stats.pairwise import PairResult, pairwise


@dataclass
class MessagesComparison:
    """All pairs of messages for one model, with adjusted p-values."""

    model: str
    messages: list[str]
    mean_yes: dict  # message -> mean over perturbations of the perturbation-level P(Yes) (or mean score)
    pairs: list[PairResult]
    adjustment: str
    alpha: float
    confidence: float
    scale: str = DEFAULT_SCALE
    unit: str = "P(Yes)"  # of mean_yes and of the effects

    @property
    def mean_score(self) -> dict:
        """message -> mean over perturbations of the perturbation-level mean (P(Yes) on Yes/No)."""
        return self.mean_yes

    @property
    def ranking(self) -> list[str]:
        """Messages from the highest to the lowest mean P(Yes) or mean score (descriptive, not a test)."""
        return sorted(self.messages, key=lambda msg: -_or(self.mean_yes[msg], -np.inf))

    def beats(self) -> dict:
        """message -> the messages it beats significantly after adjustment."""
        out = {msg: [] for msg in self.messages}
        for p in self.pairs:
            if p.winner is not None:
                out[p.winner].append(p.b if p.winner == p.a else p.a)
        return out

    def table(self) -> pd.DataFrame:
        rows = [{"a": p.a, "b": p.b, "effect": p.effect.estimate, "ci_low": p.effect.ci[0],
                 "ci_high": p.effect.ci[1], "pvalue": p.pvalue, "pvalue_adjusted": p.pvalue_adjusted,
                 "significant": p.significant, "winner": p.winner} for p in self.pairs]
        return pd.DataFrame(rows)

    def to_dict(self) -> dict:
        means = {k: finite(v) for k, v in self.mean_yes.items()}
        return {"model": self.model, "messages": self.messages,
                kind_of(self.scale).means_key: means,
                "scale": self.scale, "unit": self.unit,
                "ranking": self.ranking, "beats": self.beats(), "adjustment": self.adjustment,
                "alpha": self.alpha, "confidence": self.confidence, "n_tests": len(self.pairs),
                "pairs": [p.to_dict() for p in self.pairs]}


def _or(x, default):
    return default if x is None or not np.isfinite(x) else x



def compare_all_messages(df: pd.DataFrame, model: str, messages: list[str] | None = None,
                         adjust: str = "holm", alpha: float = 0.05, alternative: str = "two-sided",
                         n_resamples: int = 9999, seed=0, confidence: float = 0.95,
                         progress=None, prior: Analysis | None = None) -> MessagesComparison:
    """Test every pair of ``messages`` (default: all of the model's, in table order).

    ``progress``, if given, is called once per pair (for a progress bar); it does no I/O here. ``prior``: an
    Analysis of the same table (a report's) whose comparisons are taken instead of run again.
    """
    check_adjustment(adjust)
    known = messages_in(df, model)
    if not known:
        raise SurveyError(f"no rows for model '{model}'")
    messages = known if messages is None else list(messages)
    require_messages(df, messages, model=model)
    view = table_view(df[(df["model"] == model) & df["message"].isin(messages)], "these rows")
    if not kind_of(view).every_pair:
        raise SurveyError(f"model '{model}': every pair of messages is not compared on forced choice (each prompt "
                          "already shows two messages); analyse each pair that was asked with `survey analyze`")
    if len(set(messages)) != len(messages) or len(messages) < 2:
        raise SurveyError(f"compare at least two distinct messages; got {', '.join(messages) or 'none'}")
    # the one loop over pairs (survey.stats.analysis); the options are validated when built
    res = reuse_or_analyze(prior, Source.of(df), [model], list(itertools.combinations(messages, 2)), strict=True,
                           options=CompareOptions(alternative, alpha, confidence, n_resamples, seed))
    comps = res.results
    for _ in comps if progress is not None else ():
        progress()
    pairs = pairwise(comps, view.bounds, confidence, alpha, adjust, n_resamples, seed)
    mean_yes = {}
    for c in comps:
        for msg in (c.a, c.b):
            bar = c.theta_bar[msg]
            mean_yes.setdefault(msg, float(bar[~np.isnan(bar)].mean()) if np.any(~np.isnan(bar)) else np.nan)
    return MessagesComparison(model, messages, mean_yes, pairs, adjust, alpha, confidence, view.scale, view.effect_unit)
