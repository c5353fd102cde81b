"""People's rankings beside the models' (ours): what a human file of a ranking study says, and how far each
model's ranking agrees with it.

A human file of a ranking study (survey.data.humans, read by survey.kinds.rank.parsing.RankOrder.human_answers)
has one row per respondent and message, ``answer`` the rank the respondent gave that message (1 = best; each
respondent ranks all k). Per message: the humans' mean rank and Borda score (k − mean rank), weighted by the
file's ``weight`` column, with the t interval of a weighted mean (linearised standard error, n − 1 degrees of
freedom). Per pair: the humans' Borda difference A − B (= mean rank B − mean rank A), every respondent ranking
both, with its paired t interval: the same quantity as a model's effect (survey.kinds.rank.statistics), so the
two sit side by side. Per model: Spearman's rank correlation between its mean ranks and the humans' over the k
messages, and each message's mean rank, model minus humans.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from survey.common.display import Display
from survey.errors import SurveyError


def weighted_mean_ci(x, w, confidence: float = 0.95) -> tuple[float, tuple[float, float]]:
    """The weighted mean of ``x`` and its t interval (linearised standard error, n − 1 degrees of freedom)."""
    x, w = np.asarray(x, dtype=float), np.asarray(w, dtype=float)
    mean = float(np.sum(w * x) / np.sum(w))
    n = len(x)
    if n < 2:
        return mean, (float("nan"), float("nan"))
    se = float(np.sqrt(np.sum(w**2 * (x - mean) ** 2) * n / (n - 1)) / np.sum(w))
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * se
    return mean, (mean - half, mean + half)


def _within(estimate, low: float, high: float):
    """A t interval cut to the range its mean cannot leave (a mean rank lies in 1..k)."""
    mean, (lo, hi) = estimate
    return mean, (max(lo, low), min(hi, high))


@dataclass(repr=False)
class HumanRanks(Display):
    """The humans' ranking: per message the mean rank and Borda score with intervals; per pair the Borda difference
    with its paired interval; ``models`` each model's agreement (rank_agreement), when compared."""

    messages: list[str]
    k: int
    respondents: int
    mean_rank: dict  # message -> (mean rank, (lo, hi))
    borda: dict  # message -> (Borda score, (lo, hi))
    pairs: list  # {"a", "b", "difference", "ci"}: Borda a − Borda b
    confidence: float
    weighted: bool
    models: dict = field(default_factory=dict)  # model -> {"spearman", "difference": {message: model − humans}}

    def pair(self, a: str, b: str) -> dict:
        for p in self.pairs:
            if (p["a"], p["b"]) == (a, b):
                return p
            if (p["b"], p["a"]) == (a, b):
                return {"a": a, "b": b, "difference": -p["difference"], "ci": [-p["ci"][1], -p["ci"][0]]}
        raise SurveyError(f"the humans ranked no pair '{a}', '{b}'; they ranked {', '.join(self.messages)}")

    def display_parts(self):
        rows = [{"message": m, "mean rank": r, "CI": tuple(ci), "Borda score": self.borda[m][0]}
                for m, (r, ci) in self.mean_rank.items()]
        rows += [{"message": f"model {name}", "mean rank": None, "CI": None, "Borda score": None,
                  "Spearman": v["spearman"]} for name, v in self.models.items()]
        title = f"Humans' ranking of {self.k} messages: {self.respondents} respondents" + (
            " (weighted)" if self.weighted else "")
        return title, rows, [f"{self.confidence:.0%} t intervals of weighted means over respondents"]

    def to_dict(self) -> dict:
        return {"messages": list(self.messages), "k": self.k, "respondents": self.respondents,
                "mean_rank": {m: {"rank": r, "ci": list(ci)} for m, (r, ci) in self.mean_rank.items()},
                "borda": {m: {"score": s, "ci": list(ci)} for m, (s, ci) in self.borda.items()},
                "pairs": [dict(p, ci=list(p["ci"])) for p in self.pairs], "confidence": self.confidence,
                "weighted": self.weighted, "models": dict(self.models)}


def human_ranks(humans, confidence: float = 0.95) -> HumanRanks:
    """The humans' mean ranks, Borda scores and pairwise Borda differences (see the module's docstring) from a
    survey.data.humans.Humans of a ranking study."""
    t = humans.table
    wide = t.pivot(index="respondent", columns="message", values="answer")
    if wide.isna().any().any():
        raise SurveyError("every respondent of a ranking must rank every message; some ranked only some")
    weights = t.groupby("respondent")["weight"].first().reindex(wide.index).to_numpy(dtype=float)
    messages = [m for m in pd.unique(t["message"])]
    k = len(messages)
    ranks = {m: _within(weighted_mean_ci(wide[m].to_numpy(dtype=float), weights, confidence), 1, k) for m in messages}
    borda = {m: (k - r, (k - hi, k - lo)) for m, (r, (lo, hi)) in ranks.items()}
    pairs = []
    for a, b in itertools.combinations(messages, 2):
        diff, ci = weighted_mean_ci(wide[b].to_numpy(dtype=float) - wide[a].to_numpy(dtype=float), weights, confidence)
        pairs.append({"a": a, "b": b, "difference": diff, "ci": _within((diff, ci), 1 - k, k - 1)[1]})
    return HumanRanks(messages, k, len(wide), ranks, borda, pairs, confidence, bool((weights != 1).any()))


def rank_agreement(result, people: HumanRanks) -> dict:
    """How one model's ranking result (survey.kinds.rank.statistics.RankResult) agrees with the humans': Spearman's
    correlation of the mean ranks over the messages both ranked, each message's mean rank model − humans, and the
    result's pair beside the humans' Borda difference."""
    shared = [m for m in result.messages if m in people.mean_rank]
    if len(shared) < 3:
        raise SurveyError(f"model '{result.model}' and the humans rank fewer than 3 messages in common "
                          f"({', '.join(shared) or 'none'}): no rank correlation to give")
    model = np.array([result.mean_rank[m][0] for m in shared])
    human = np.array([people.mean_rank[m][0] for m in shared])
    rho = stats.spearmanr(model, human).statistic
    return {"spearman": None if np.isnan(rho) else float(rho),
            "difference": {m: float(x - y) for m, x, y in zip(shared, model, human, strict=True)},
            "pair": {"a": result.a, "b": result.b, "model": float(result.effect.estimate),
                     "model_ci": list(result.effect.ci), "humans": people.pair(result.a, result.b)["difference"],
                     "humans_ci": list(people.pair(result.a, result.b)["ci"])}}


def compare_rankings_with_humans(analysis, humans, confidence: float = 0.95) -> HumanRanks:
    """The humans' ranking (human_ranks) with every model of a ranking ``analysis`` (survey.analyze's result, or a
    list of RankResult) compared to it (rank_agreement), one entry per model."""
    people = human_ranks(humans, confidence)
    results = getattr(analysis, "results", analysis)
    for r in results:
        if not hasattr(r, "mean_rank"):
            raise SurveyError(f"model '{r.model}': not a ranking result; compare_rankings_with_humans reads rankings")
        people.models.setdefault(r.model, rank_agreement(r, people))
    return people
