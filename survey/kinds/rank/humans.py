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
from survey.stats.effect import effect_ci


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


def clipped_to(estimate, low: float, high: float):
    """A t interval cut to the range its mean cannot leave (a mean rank lies in 1..k)."""
    mean, (lo, hi) = estimate
    return mean, (float(max(lo, low)), float(min(hi, high)))


@dataclass(repr=False)
class HumanRanks(Display):
    """The humans' ranking: per message the mean rank and Borda score with intervals; per pair the Borda difference
    with its paired interval; ``models`` each model's agreement (rank_agreement), when compared: its mean ranks
    and Borda differences with their intervals beside the humans', and Spearman's correlation of the mean ranks."""

    messages: list[str]
    k: int
    respondents: int
    mean_rank: dict  # message -> (mean rank, (lo, hi))
    borda: dict  # message -> (Borda score, (lo, hi))
    pairs: list  # {"a", "b", "difference", "ci"}: Borda a − Borda b
    confidence: float
    weighted: bool
    models: dict = field(default_factory=dict)  # model -> rank_agreement's dict
    notes: list = field(default_factory=list)
    path: str | None = None  # where the humans' answers came from (a file, or the store's fielded answers)

    def pair(self, a: str, b: str) -> dict:
        for p in self.pairs:
            if (p["a"], p["b"]) == (a, b):
                return p
            if (p["b"], p["a"]) == (a, b):
                return {"a": a, "b": b, "difference": -p["difference"], "ci": [-p["ci"][1], -p["ci"][0]]}
        raise SurveyError(f"the humans ranked no pair '{a}', '{b}'; they ranked {', '.join(self.messages)}")

    @property
    def basis(self) -> str:
        who = f"{self.respondents} respondents" + (" (weighted)" if self.weighted else "")
        where = f" from {self.path}" if self.path else ""
        models = ", ".join(self.models) or "no model"
        return (f"{who}{where} ranked the {self.k} messages (1 = best); beside them the personas of {models}; "
                f"{self.confidence:.0%} intervals")

    def display_parts(self):
        rows = [{"message": m, "humans mean rank": r, "CI": tuple(ci),
                 **{f"{name} mean rank": v["mean_rank"][m]["rank"] if m in v.get("mean_rank", {}) else None
                    for name, v in self.models.items()}} for m, (r, ci) in self.mean_rank.items()]
        title = f"Humans' ranking of {self.k} messages: {self.respondents} respondents" + (
            " (weighted)" if self.weighted else "")
        agree = [f"{name}: Spearman {_rho(v['spearman'])} with the humans' mean ranks" for name, v in self.models.items()]
        return title, rows, agree + [f"{self.confidence:.0%} t intervals of weighted means over respondents",
                                     *self.notes]

    def tables(self) -> list[dict]:
        """The comparison as tables of text (the command line and the report print them): mean ranks and Borda
        scores per message, Borda differences per pair, and the agreement per model."""
        names = list(self.models)
        ranks = [[m, f"{r:.2f} {_interval(ci)}", f"{self.borda[m][0]:.2f} {_interval(self.borda[m][1])}",
                  *[_model_rank(self.models[n], m) for n in names]] for m, (r, ci) in self.mean_rank.items()]
        pairs = [[f"{p['a']} − {p['b']}", f"{p['difference']:+.2f} {_interval(p['ci'], '+')}",
                  *[_model_pair(self.models[n], p["a"], p["b"]) for n in names]] for p in self.pairs]
        agree = [[n, _rho(v["spearman"]), ", ".join(f"{m} {d:+.2f}" for m, d in v["difference"].items())]
                 for n, v in self.models.items()]
        return [{"title": "mean rank (1 = best) and Borda score (k − mean rank)",
                 "columns": ["message", "humans: mean rank", "humans: Borda score",
                             *[f"{n}: mean rank" for n in names]], "rows": ranks},
                {"title": "pairs: Borda score A − Borda score B (= mean rank B − mean rank A)",
                 "columns": ["pair", "humans", *names], "rows": pairs},
                {"title": "agreement with the humans",
                 "columns": ["model", "Spearman (mean ranks)", "mean rank: model − humans"], "rows": agree}]

    def to_dict(self) -> dict:
        return {"kind": "rank", "messages": list(self.messages), "k": self.k, "respondents": self.respondents,
                "mean_rank": {m: {"rank": r, "ci": list(ci)} for m, (r, ci) in self.mean_rank.items()},
                "borda": {m: {"score": s, "ci": list(ci)} for m, (s, ci) in self.borda.items()},
                "pairs": [dict(p, ci=list(p["ci"])) for p in self.pairs], "confidence": self.confidence,
                "weighted": self.weighted, "models": dict(self.models), "notes": list(self.notes),
                "path": self.path, "basis": self.basis}


def _interval(ci, sign: str = "") -> str:
    return f"[{ci[0]:{sign}.2f}, {ci[1]:{sign}.2f}]"


def _rho(rho) -> str:
    return "—" if rho is None else f"{rho:+.3f}"


def _model_rank(agreement: dict, message: str) -> str:
    x = agreement.get("mean_rank", {}).get(message)
    return "—" if x is None else f"{x['rank']:.2f} {_interval(x['ci'])}"


def _model_pair(agreement: dict, a: str, b: str) -> str:
    p = next((p for p in agreement.get("pairs", []) if (p["a"], p["b"]) == (a, b)), None)
    return "—" if p is None else f"{p['difference']:+.2f} {_interval(p['ci'], '+')}"


def human_ranks(humans, confidence: float = 0.95, order=None) -> HumanRanks:
    """The humans' mean ranks, Borda scores and pairwise Borda differences (see the module's docstring) from a
    survey.data.humans.Humans of a ranking study; ``order``: the messages' order (a study's; by default the
    file's), which the pairs follow (A − B with A first)."""
    t = humans.table
    wide = t.pivot(index="respondent", columns="message", values="answer")
    if wide.isna().any().any():
        raise SurveyError("every respondent of a ranking must rank every message; some ranked only some")
    weights = t.groupby("respondent")["weight"].first().reindex(wide.index).to_numpy(dtype=float)
    messages = [m for m in pd.unique(t["message"])]
    if order is not None:
        messages = [m for m in order if m in messages] + [m for m in messages if m not in order]
    k = len(messages)
    ranks = {m: clipped_to(weighted_mean_ci(wide[m].to_numpy(dtype=float), weights, confidence), 1, k) for m in messages}
    borda = {m: (k - r, (k - hi, k - lo)) for m, (r, (lo, hi)) in ranks.items()}
    pairs = []
    for a, b in itertools.combinations(messages, 2):
        diff, ci = weighted_mean_ci(wide[b].to_numpy(dtype=float) - wide[a].to_numpy(dtype=float), weights, confidence)
        pairs.append({"a": a, "b": b, "difference": diff, "ci": clipped_to((diff, ci), 1 - k, k - 1)[1]})
    return HumanRanks(messages, k, len(wide), ranks, borda, pairs, confidence, bool((weights != 1).any()),
                      notes=_no_spread(wide, messages), path=humans.path)


def _no_spread(wide: pd.DataFrame, messages: list[str]) -> list[str]:
    """A note for each message every respondent ranked alike, and each pair whose difference never varies: its t
    interval has zero width, which leaves out the respondents' sampling error (a message 95% of people rank first
    is ranked first by all of 20 respondents one time in three; bench/small_human_coverage.py measured its 95%
    interval covering 0.69 of the time)."""
    same = [f"{m} (rank {int(wide[m].iloc[0])})" for m in messages if wide[m].nunique() == 1]
    if not same:
        return []
    return [f"every respondent gave {', '.join(same)} the same rank: {'its' if len(same) == 1 else 'their'} "
            "interval has zero width and leaves out the respondents' sampling error, so it covers less than it "
            "says (as do the Borda differences with no spread); more respondents are needed"]


def rank_agreement(result, people: HumanRanks, *, flips: int = 9999, seed: int | None = 0) -> dict:
    """How one model's ranking result (survey.kinds.rank.statistics.RankResult) agrees with the humans': Spearman's
    correlation of the mean ranks over the messages both ranked, each message's mean rank (model and model −
    humans), every pair the humans ranked as the model's Borda difference with its sign-flip interval over the
    paraphrase sets (the interval of the result's own effect, at the humans' confidence), and the result's pair
    beside the humans' Borda difference."""
    shared = [m for m in people.messages if m in result.mean_rank]
    if len(shared) < 3:
        raise SurveyError(f"model '{result.model}' and the humans rank fewer than 3 messages in common "
                          f"({', '.join(shared) or 'none'}): no rank correlation to give")
    model = np.array([result.mean_rank[m][0] for m in shared])
    human = np.array([people.mean_rank[m][0] for m in shared])
    rho = stats.spearmanr(model, human).statistic
    column = {m: i for i, m in enumerate(result.messages)}
    k = len(result.messages)
    pairs = []
    for p in people.pairs:
        if p["a"] in column and p["b"] in column and result.set_scores is not None:
            d = np.round(result.set_scores[:, column[p["a"]]] - result.set_scores[:, column[p["b"]]], 12)
            eff = effect_ci(d, confidence=people.confidence, n_resamples=flips, seed=seed, bounds=(-(k - 1.0), k - 1.0))
            pairs.append({"a": p["a"], "b": p["b"], "difference": float(eff.estimate), "ci": [*map(float, eff.ci)]})
    return {"spearman": None if np.isnan(rho) else float(rho),
            "difference": {m: float(x - y) for m, x, y in zip(shared, model, human, strict=True)},
            "mean_rank": {m: {"rank": float(result.mean_rank[m][0]), "ci": [*map(float, result.mean_rank[m][1])]}
                          for m in shared},
            "borda": {m: {"score": float(result.borda[m][0]), "ci": [*map(float, result.borda[m][1])]} for m in shared},
            "pairs": pairs, "n_personas": result.n_personas, "n_sets": result.n_sets,
            "pair": {"a": result.a, "b": result.b, "model": float(result.effect.estimate),
                     "model_ci": list(result.effect.ci), "humans": people.pair(result.a, result.b)["difference"],
                     "humans_ci": list(people.pair(result.a, result.b)["ci"])}}


def compare_rankings_with_humans(analysis, humans, confidence: float = 0.95, *, flips: int = 9999,
                                 seed: int | None = 0, order=None) -> HumanRanks:
    """The humans' ranking (human_ranks, messages in ``order``) with every model of a ranking ``analysis``
    (survey.analyze's result, or a list of RankResult) compared to it (rank_agreement), one entry per model."""
    people = human_ranks(humans, confidence, order)
    results = getattr(analysis, "results", analysis)
    for r in results:
        if not hasattr(r, "mean_rank"):
            raise SurveyError(f"model '{r.model}': not a ranking result; compare_rankings_with_humans reads rankings")
        if r.model not in people.models:
            people.models[r.model] = rank_agreement(r, people, flips=flips, seed=seed)
    return people


def rank_fidelity(source, humans, a: str | None = None, b: str | None = None, *, by: str | None = None,
                  confidence: float = 0.95, n_boot: int = 1000, seed: int | None = 0, flips: int = 9999,
                  prior=None) -> HumanRanks:
    """A ranking study's comparison with people (the kind's ``humans`` part: `survey fidelity`, survey.fidelity,
    `survey analyze --humans` and the report call it): each model of ``source`` (a survey.data.sources.Source) is
    analysed (messages ``a`` vs ``b``, default the study's first two; every pair comes with each result) or taken
    from ``prior`` (an Analysis of the same source, a report's), and set beside the humans' ranking
    (compare_rankings_with_humans). The intervals are t intervals for the humans and sign-flip intervals over
    paraphrase sets for the models, so ``n_boot`` is not used; segments (``by``) are refused."""
    from survey.stats.analysis import analyze
    from survey.stats.kinds.base import CompareOptions

    if by:
        raise SurveyError(f"by = {by!r}: a ranking is compared with people over all respondents; segments apply to "
                          "the per-message comparison with people, not to rankings (analyze's segments work)")
    if humans.scale != str(source.table["scale"].iloc[0]):
        raise SurveyError(f"the humans ranked on {humans.scale}, the personas on {source.table['scale'].iloc[0]}: "
                          "compare rankings of the same k messages")
    results = [r for r in getattr(prior, "results", []) if hasattr(r, "mean_rank")]
    order = list(source.study_context.messages) or list(pd.unique(source.table["message"].astype(str)))
    if not results:
        if a is None or b is None:
            rest = [m for m in order if m not in (a, b)]
            a, b = (a or rest.pop(0)), (b or rest.pop(0))
        results = analyze(source, a, b, options=CompareOptions(alpha=round(1 - confidence, 12), seed=seed,
                                                               flips=flips)).results
    people = compare_rankings_with_humans(results, humans, confidence, flips=flips, seed=seed, order=order)
    people.notes += [f"{name}: no rank correlation (its mean ranks, or the humans', are all equal)"
                     for name, v in people.models.items() if v["spearman"] is None]
    return people
