"""Ranking the k messages shown together (survey.kinds.rank.statistics): the pairwise sign-flip tests of Borda
scores over paraphrase sets (Holm-adjusted over the pairs) decide; each message's mean rank and Borda score, every
pair's test and the position-bias test come with every result."""

from __future__ import annotations

import itertools

import pandas as pd

from survey.errors import SurveyError
from survey.kinds.pick.table import pick_messages_shown
from survey.kinds.rank.power import RankPlan
from survey.kinds.rank.simulation import simulate_rank_table
from survey.kinds.rank.table import compare_rank
from survey.stats.kinds.base import MessageLevels, ShownSetKind, unpaired_options


class Rank(ShownSetKind):
    name = "rank"
    decided_by = "sign_flip"
    weighted = True
    every_pair = True

    def compare(self, df, model, a, b, view, opts):
        return compare_rank(df, model, a, b, **unpaired_options(
            opts, "a ranking table shows the j-th paraphrase of every message together; pairing does not apply"))

    def message_pairs(self, df: pd.DataFrame, model: str) -> list[tuple[str, str]]:
        """Every pair of the messages ranked together by ``model``, in order of first appearance."""
        return list(itertools.combinations(pick_messages_shown(df, model), 2))

    def message_levels(self, results, view, confidence):
        """Every message's order-averaged Borda score with its interval, its mean rank and the position test: the
        same in each pair's result (they all read every row of the model), so taken once."""
        r = results[0]
        pos = r.position
        notes = ["mean rank: " + ", ".join(f"{m} {v:.2f}" for m, (v, _) in r.mean_rank.items()),
                 "mean rank by position: " + ", ".join(f"{t + 1}: {v:.2f}" for t, v in enumerate(pos.mean_ranks))
                 + f"; position test p = {pos.pvalue:.4g} (exchanges {pos.exchanges})"]
        return MessageLevels("Borda score (positions averaged)", dict(r.borda), r.effect.confidence,
                             "sign-flip inversion over paraphrase sets", "these personas' score over new paraphrase "
                             "sets", tuple(notes + ([r.warning] if r.warning else [])),
                             {"mean_rank": {m: {"mean_rank": v, "ci": list(ci)} for m, (v, ci) in r.mean_rank.items()},
                              "position": pos.to_dict(), "warning": r.warning, "n_sets": r.n_sets,
                              "n_personas": r.n_personas, "replicates": r.replicates, "invalid": r.invalid})

    def fit(self, df, model, message, view, opts):
        raise SurveyError("a ranking table has no response model to estimate: its mean ranks, Borda scores, pairwise "
                          "tests and position bias are what `survey analyze` (survey.analyze) reports")

    def simulate(self, view, n, m, r, *, messages=None, seed=None, **params):
        """One survey of Plackett–Luce rankings (survey.kinds.rank.simulation): ``deltas`` (per message), ``sigma``,
        ``rho``, ``positions`` (a logit shift per position), ``tau``, ``invalid_rate``."""
        k = len(messages) if messages is not None else int(view.scale.removeprefix("rank"))
        names = list(messages) if messages is not None else [chr(ord("A") + i) for i in range(k)]
        if view.scale != f"rank{k}":
            raise SurveyError(f"scale '{view.scale}' ranks {view.scale.removeprefix('rank')} messages; got {k} names")
        return simulate_rank_table(n, m, r, names, seed=seed, **params)

    def plan_params(self, view, delta, *, sigma=None, rho=None, tau=None, positions=None, messages=None):
        """RankPlan: the power of the Holm-adjusted A vs B sign-flip test of Borda scores (survey.kinds.rank.power)."""
        k = int(view.scale.removeprefix("rank"))
        if messages is not None and int(messages) != k:
            raise SurveyError(f"scale '{view.scale}' ranks its {k} messages together, so `messages={messages}` "
                              f"does not apply (rank{messages} ranks {messages})")
        return RankPlan(delta, view.scale, sigma, rho, positions, tau)

    def heterogeneity_null(self, view, a, b):
        return f"equal effects (every model's Borda score of {a} minus Borda score of {b} the same)"

    def effect_words(self, view, a, b):
        k = int(view.scale.removeprefix("rank"))
        return (f"ranking of {k}, positions averaged; Borda score = {k} − rank (0 to {k - 1}); effect = Borda score "
                f"{a} − Borda score {b} (= mean rank {b} − mean rank {a})")

    def label_words(self, view, source):
        return f"the position nearest each cell's {source} position"


RANK = Rank()
