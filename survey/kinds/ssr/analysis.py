"""Semantic-similarity rating (question type ``ssr``): free-text replies rated onto a K-point scale
(Maier et al. (2025), "Measuring synthetic consumer purchase intent using semantic-similarity ratings").

Each rated reply carries a distribution over the points and its expected score (survey.collect.
similarity_rating stores them as exact mode stores a rating's): the comparison is the rating scale's
(survey.kinds.ordinal.analysis: mean score, top-2-box from the distributions, every A/B test of
survey.stats.comparison) on those expected scores, so a reply counts with its whole distribution, not
only its most similar point. The ordinal model's fit reads the most similar point of each reply (the
``answer``), a coarser summary; its notes say so.
"""

from __future__ import annotations

from survey.errors import SurveyError
from survey.kinds.ordinal.analysis import Ordinal


class SemanticRating(Ordinal):
    name = "ssr"
    # the expected score IS the answer here: no separate "exact" section, the main comparison reads it
    exact_column = "ssr_has_no_second_exact_score"

    def compare(self, df, model, a, b, view, opts):
        from dataclasses import replace

        rows = self.query_rows(df, model, a, b)
        if "expected" not in rows or not rows["expected"].notna().any():
            raise SurveyError(f"model '{model}': the free-text replies to '{a}' and '{b}' are not rated yet; "
                              "`survey run` on the study file rates stored replies (it sends nothing new)")
        return super().compare(df, model, a, b, view, replace(opts, probabilities=True))

    def invalid_counts(self, df, model, a, b, opts):
        from dataclasses import replace

        return super().invalid_counts(df, model, a, b, replace(opts, probabilities=True))  # unrated: no expected score

    def fit(self, df, model, message, view, opts):
        fit = super().fit(df, model, message, view, opts)
        notes = getattr(fit, "notes", None)
        if isinstance(notes, list):
            notes.append("fitted to each reply's most similar point, not its whole similarity distribution")
        return fit


SSR = SemanticRating()
