"""What the human comparisons take from a long table and a human file: one score per persona and message
(the model's prediction), split into the personas rendered from human respondents and the others.

A persona's score for a message is its mean over paraphrases and replicates of exact mode's per-row score
(``expected``: P(Yes) for Yes/No, the expected point of a scale) when every row of the model has one, else of
its answers. This is the prediction f of prediction-powered inference (Angelopoulos et al., "Prediction-powered
inference", Science 2023): fixed by the model before any human answer is looked at.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from survey.data.humans import HUMAN_PREFIX, Humans
from survey.errors import SurveyError


@dataclass
class ModelScores:
    """One model's per-persona scores: ``scores`` (index persona id, one column per message), ``basis``
    ("exact scores" or "answers"), and which personas were rendered from humans."""

    model: str
    scores: pd.DataFrame
    basis: str

    @property
    def rendered(self) -> pd.DataFrame:
        """Scores of the personas rendered from respondents, indexed by respondent id."""
        rows = self.scores[self.scores.index.str.startswith(HUMAN_PREFIX)]
        rows.index = rows.index.str.slice(len(HUMAN_PREFIX))
        return rows

    @property
    def population(self) -> pd.DataFrame:
        """Scores of the other personas (the study's persona set)."""
        return self.scores[~self.scores.index.str.startswith(HUMAN_PREFIX)]


def model_scores(table: pd.DataFrame, model: str) -> ModelScores:
    rows = table[(table["model"] == model) & table["answer"].notna()]
    exact = "expected" in rows.columns and len(rows) and rows["expected"].notna().all()
    col = "expected" if exact else "answer"
    values = pd.to_numeric(rows[col], errors="coerce").astype(float)
    scores = values.groupby([rows["persona"].astype(str), rows["message"].astype(str)]).mean().unstack("message")
    return ModelScores(model, scores, "exact scores" if exact else "answers")


def population_predictions(scores: ModelScores, a: str, b: str) -> pd.DataFrame:
    """The study's own personas' predictions of both messages (columns a, b): PPI's unlabelled predictions.
    Refuses fewer than 2 such personas."""
    pop = scores.population[[m for m in (a, b) if m in scores.population.columns]].dropna()
    if len(pop) < 2 or list(pop.columns) != [a, b]:
        raise SurveyError(f"model '{scores.model}': fewer than 2 personas beyond the rendered respondents answered "
                          "both messages, to stand for the population (the unlabelled predictions)")
    return pop


def persona_answers(table: pd.DataFrame, model: str, message: str, points, *, population_only: bool) -> tuple:
    """(answers one-hot over ``points``, group labels persona x paraphrase) of one model and message."""
    rows = table[(table["model"] == model) & (table["message"] == message) & table["answer"].notna()]
    if population_only:
        rows = rows[~rows["persona"].astype(str).str.startswith(HUMAN_PREFIX)]
    answers = rows["answer"].to_numpy(dtype=float)  # a number's level is its tenth's midpoint, not a whole number
    onehot = (answers[:, None] == np.asarray(points)[None, :]).astype(float)
    groups = (rows["persona"].astype(str) + "\x1f" + rows["perturbation"].astype(str)).to_numpy()
    return onehot, groups, rows["persona"].astype(str).to_numpy()


def human_counts(humans: Humans, message: str, points, respondents=None) -> np.ndarray:
    """One-hot answers of the respondents who saw ``message`` (optionally only ``respondents``)."""
    rows = humans.table[humans.table["message"] == message]
    if respondents is not None:
        rows = rows[rows["respondent"].isin(respondents)]
    return (rows["answer"].to_numpy()[:, None] == np.asarray(points)[None, :]).astype(float)


def paired_humans(humans: Humans, a: str, b: str) -> pd.DataFrame:
    """Within-subjects: respondent-indexed columns a, b (answers) and weight."""
    t = humans.table
    wide = t[t["message"].isin([a, b])].pivot(index="respondent", columns="message", values="answer")
    wide["weight"] = humans.respondents["weight"].reindex(wide.index)
    return wide.dropna()


def require_predictions(scores: ModelScores, respondents, messages) -> pd.DataFrame:
    """The rendered personas' scores for ``respondents`` and ``messages``; refuses when any is missing."""
    rendered = scores.rendered
    if rendered.empty:
        raise SurveyError(f"model '{scores.model}' never answered as a respondent (no persona '{HUMAN_PREFIX}...'): "
                          "a study asks about them with `humans` in its file and ask = true, which needs the "
                          "respondents' attributes; counts and attribute-less files give levels and effects only")
    missing = [r for r in respondents if r not in rendered.index]
    absent = [m for m in messages if m not in rendered.columns]
    if missing or absent:
        what = (f"{len(missing)} of {len(respondents)} respondents (e.g. {missing[0]})" if missing
                else f"message(s) {', '.join(absent)}")
        raise SurveyError(f"model '{scores.model}' has no prediction for {what}: the study must ask the models about "
                          "the respondents (`humans` in the study file with ask = true, persona ids "
                          f"'{HUMAN_PREFIX}<respondent>'); run the study to collect them")
    out = rendered.loc[list(respondents), list(messages)]
    if out.isna().any().any():
        raise SurveyError(f"model '{scores.model}': some respondents lack a valid answer to a message; rerun the study")
    return out
