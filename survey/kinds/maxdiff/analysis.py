"""Best–worst scaling (survey.kinds.maxdiff.statistics): best-minus-worst scores per message and paraphrase set; the
pairwise sign-flip tests over the sets (Holm-adjusted over the pairs) decide. No fitted response model. In exact
mode (``probabilities``) the counts are expected ones, from each row's distribution over the (best, worst) pairs."""

from __future__ import annotations

import itertools

import pandas as pd

from survey.data.table import messages_in
from survey.errors import SurveyError
from survey.kinds.maxdiff.power import MaxDiffPlan
from survey.kinds.maxdiff.statistics import compare_maxdiff
from survey.stats.kinds.base import MessageLevels, ShownSetKind, unpaired_options


class MaxDiff(ShownSetKind):
    name = "maxdiff"
    decided_by = "sign_flip"
    every_pair = True
    weighted = True

    def compare(self, df, model, a, b, view, opts):
        return compare_maxdiff(df, model, a, b, **unpaired_options(
            opts, "a best-worst table shows the paraphrases of a set together: pairing does not apply"))

    def message_pairs(self, df: pd.DataFrame, model: str) -> list[tuple[str, str]]:
        return list(itertools.combinations(messages_in(df, model), 2))

    def message_levels(self, results, view, confidence):
        """Every message's best-minus-worst score with its interval: the same in each pair's result, taken once."""
        r = results[0]
        notes = ["named best by position: " + ", ".join(f"{t + 1}: {s:.3f}" for t, s in enumerate(r.best_by_position))]
        return MessageLevels("best-minus-worst score", dict(r.scores), r.effect.confidence,
                             "sign-flip inversion over paraphrase sets", "these personas' score over new paraphrase "
                             "sets", tuple(notes), {"best_by_position": list(r.best_by_position), "n_sets": r.n_sets,
                                                    "n_personas": r.n_personas, "replicates": r.replicates,
                                                    "invalid": r.invalid})

    def fit(self, df, model, message, view, opts):
        raise SurveyError("a best-worst table has no response model to estimate: its best-minus-worst scores and "
                          "pairwise tests are what `survey analyze` (survey.analyze) reports")

    def plan_params(self, view, delta, *, sigma=None, rho=None, tau=None, positions=None, messages=None):
        """MaxDiffPlan: the power of the Holm-adjusted A vs B best-minus-worst sign-flip test
        (survey.kinds.maxdiff.power) on ``messages`` messages, or one ``delta`` per message."""
        if tau is not None:
            raise SurveyError(f"`tau=` (a persona's pull towards position 1) belongs to pick one of k; scale "
                              f"'{view.scale}' takes `positions=` (a logit shift per position in a block)")
        return MaxDiffPlan(delta, view.scale, messages, sigma, rho, positions)

    def heterogeneity_null(self, view, a, b):
        return f"equal effects (every model's score of {a} minus score of {b} the same)"

    def effect_words(self, view, a, b):
        return f"best-worst scaling; score = share named best − share named worst; effect = score {a} − score {b}"


MAXDIFF = MaxDiff()
