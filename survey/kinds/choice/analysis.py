"""Forced choice between two messages shown in one prompt (survey.kinds.choice.statistics): the order-averaged
preference test decides, the position-bias test says how far the model reads position. Pairs of
messages come from the rows themselves (what was shown together); there is no fitted response model."""

from __future__ import annotations

import pandas as pd

from survey.data.table import messages_in
from survey.errors import SurveyError
from survey.kinds.choice.power import ChoicePlan
from survey.kinds.choice.table import compare_choice
from survey.stats.kinds.base import Kind, unpaired_options


class Choice(Kind):
    name = "choice"
    decided_by = "preference"
    weighted = True
    every_pair = False  # each prompt already shows two messages: analyse each pair that was asked

    def compare(self, df, model, a, b, view, opts):
        return compare_choice(df, model, a, b, **unpaired_options(
            opts, "a forced-choice table pairs paraphrases in its rows (each pair was shown together); pairing does "
                  "not apply"))

    def message_pairs(self, df: pd.DataFrame, model: str) -> list[tuple[str, str]]:
        """The (A, B) pairs shown together to ``model``, A the one listed first in the table."""
        if "second" not in df:
            raise SurveyError("a forced-choice table needs the 'second' column (the message shown second)")
        sub = df[df["model"] == model]
        order = {m: i for i, m in enumerate(messages_in(df, model))}
        pairs = {tuple(sorted((str(x), str(y)), key=lambda m: order.get(m, len(order))))
                 for x, y in zip(sub["message"], sub["second"], strict=True) if pd.notna(y) and x != y}
        return sorted(pairs, key=lambda p: (order.get(p[0], 0), order.get(p[1], 0)))

    def fit(self, df, model, message, view, opts):
        raise SurveyError("a forced-choice table has no response model to estimate: its preference and position "
                          "bias are what `survey analyze` (survey.analyze) reports")

    def plan_params(self, view, delta, *, sigma=None, rho=None, tau=None, positions=None, messages=None):
        """ChoicePlan: the power of the preference test (survey.kinds.choice.power)."""
        if messages is not None:
            raise SurveyError("forced choice shows two messages together; `messages=` belongs to best-worst scaling")
        return ChoicePlan(delta, view.scale, sigma, rho, positions, tau)

    def heterogeneity_null(self, view, a, b):
        return f"equal effects (every model's preference for {a}, share choosing {a} minus share choosing {b}, the same)"

    def effect_words(self, view, a, b):
        return f"effect = preference for {a}: share choosing {a} − share choosing {b}, both orders averaged"

    def label_words(self, view, source):
        return f"the {view.scale} point nearest each cell's {source} position"

    def heterogeneity_claim(self, view):
        return "equal effects"

    def exact_rows(self, df, model, a, b):
        rows = super().exact_rows(df, model, a, b)
        return rows[rows["second"].isin([a, b])] if "second" in rows else rows

    def query_rows(self, df, model, a, b):
        return self.exact_rows(df, model, a, b)

    def invalid_counts(self, df, model, a, b, opts):
        return None  # every reply shows A and B: one invalid rate for both


CHOICE = Choice()
