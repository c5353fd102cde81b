"""The report's sections for semantic-similarity rating (question type ``ssr``): the rating-scale section
(mean scores, top-2-box, the tests, on each reply's expected score) and, beside the scores, some of the
free-text answers they were rated from, each with its distribution's expected score and most similar point.

Maier et al. (2025), "Measuring synthetic consumer purchase intent using semantic-similarity ratings",
rate free-text replies by their similarity to anchor statements; showing the words keeps the reader
able to judge the rating.
"""

from __future__ import annotations

import dataclasses
import json

import pandas as pd

from survey.common.formatting import fmt
from survey.kinds.ordinal.view import OrdinalView, ordinal_view

EXAMPLES_PER_MESSAGE = 4
# Measured by bench/ssr_accuracy.py (MiniLM, the shipped purchase_intent anchors); docs/question-kinds.md has
# the confusion matrices. Said beside every semantic-similarity section: the scores inherit the mapping's errors.
CAVEAT = ("a reply's most similar point is an estimate of what it says, not an answer the respondent gave. On 70 "
          "labelled replies about buying, MiniLM with the shipped anchors put 66% on their exact point and 90% within "
          "one point; of 22 undecided replies (\u201cI\u2019m on the fence about buying this\u201d) 13 landed on the middle "
          "point and the rest on either side, and expected scores are pulled towards the middle of the scale, so "
          "top-2-box shares and score levels carry these errors. A reply about something else entirely is left "
          "unrated (counted with the invalid replies) when its best similarity to any anchor statement is below the "
          "embedder's relevance floor; other anchors or another embedder need their own check.")


def _rating_words(extra) -> str:
    """How a row was rated (anchors, embedder), from its stored ``extra``; '' when not recorded."""
    try:
        how = json.loads(extra).get("rating", {}) if isinstance(extra, str) and extra else {}
    except ValueError:
        return ""
    return f"anchors {how['anchors']}, embedder {how['embedder']}" if how.get("anchors") else ""


def example_answers(df: pd.DataFrame, model: str, messages: tuple[str, str], per_message: int = EXAMPLES_PER_MESSAGE) -> dict:
    """A few rated replies of each message, spread over the expected scores (lowest, highest and between)."""
    rows = []
    how = ""
    for msg in messages:
        sub = df[(df["model"] == model) & (df["message"] == msg) & df["expected"].notna()]
        if "response" not in sub or sub.empty:
            continue
        ranked = sub.sort_values("expected")
        picks = sorted({round(k * (len(ranked) - 1) / max(per_message - 1, 1)) for k in range(per_message)})
        for _, row in ranked.iloc[picks].iterrows():
            rows.append([msg, str(row["perturbation"]), str(row["persona"]), str(row["response"]),
                         fmt(row["expected"], 2), "" if pd.isna(row["answer"]) else str(int(row["answer"]))])
        if not how and "extra" in sub:
            how = _rating_words(sub["extra"].iloc[0])
    return {"columns": ["message", "paraphrase", "persona", "free-text answer", "expected score",
                        "most similar point"], "rows": rows, "how": how}


class SemanticRatingView(OrdinalView):
    """The rating-scale view, on expected scores, with free-text answers beside the scores."""

    kind = "ssr"
    template = "views/ssr.html.j2"
    reading = ("answered in their own words, and each answer was rated on the scale by its similarity to one anchor "
               "statement per point")

    def section(self, c, df, view, texts, fits) -> dict:
        out = ordinal_view(c, c.top_box, df, view, texts, fits)
        bars = out["figures"][0]  # the answer bars count each reply at its most similar point: say so
        out["figures"][0] = dataclasses.replace(bars, caption=(
            f"Distribution of the answers to “{c.a}” and “{c.b}”: the share of replies whose most similar anchor "
            f"statement is each point of the {view.low}–{view.high} scale, pooled over personas, paraphrases and "
            "replicates (the tests use each reply's whole distribution, through its expected score); replies "
            "without a rating in grey at the right."))
        return {**out, "template": self.template, "examples": example_answers(df, c.model, (c.a, c.b)),
                "caveat": CAVEAT}


VIEW = SemanticRatingView()
