"""The long table's columns that depend on the response type, derived from a store's rows.

* ``expected``: exact mode's expected score of the cell (first-token label distribution); for Yes/No
  it is P(Yes | Yes or No), also kept under its older name ``p_yes`` (empty for other scales, where
  the number is a score, not a probability).
* ``distribution``: that distribution, JSON {score: probability}, for scales other than Yes/No.
* forced choice: ``second`` and ``second_perturbation`` (what was shown second), ``order``
  ("A|B", the message ids in the order shown) and ``chosen`` (the message at the position answered;
  empty for an invalid reply). ``message``/``perturbation`` are what was shown first and ``answer``
  is the position chosen, 1 or 2.
* pick one of k: ``shown`` and ``shown_perturbations`` (the messages and paraphrases by position, joined
  by "|": "sneakers|boots|sandals") and ``chosen`` (the message at the position answered; empty for an
  invalid reply). ``message``/``perturbation`` are what was shown first and ``answer`` the position, 1..k.
  Best-worst scaling has the same ``shown`` columns, ``answer`` = 10 * best + worst position, and ``best``
  and ``worst`` (the messages) instead of ``chosen``. A ranking has ``answer`` = the positions' digits, best
  first (213), and ``ranking`` (the messages in ranked order, "boots|sneakers|sandals") instead of ``chosen``.
* a numeric question with a ``unit``: ``unit`` (what its number counts, "US dollars"); a checkbox question:
  ``options`` (its option names, joined by "|").
* a balanced scale (question order "both"): ``direction`` ("forward" or "reversed"), the direction the
  row's scale was shown in; its ``answer`` is already mapped back to the forward scale's score and its
  ``response`` keeps what the model said.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from survey.errors import SurveyError
from survey.responses import DEFAULT_SCALE

CHOICE_COLUMNS = ("second", "second_perturbation", "order", "chosen")


def _loads(text) -> dict:
    if not isinstance(text, str) or not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _dist_json(dist) -> str | None:
    """{score: probability} as JSON in score order ("2" before "10", which sorting the keys as text breaks)."""
    if not dist:
        return None
    return json.dumps({str(k): dist[k] for k in sorted(dist, key=lambda k: float(k))})


def add_scale_columns(df: pd.DataFrame) -> pd.DataFrame:
    """Add the columns above to a store's table (``p_yes``, ``extra``, ``scale`` columns) in place."""
    if df.empty:
        df["expected"] = pd.Series(dtype=float)
        return df
    df["expected"] = pd.to_numeric(df["p_yes"], errors="coerce")
    binary = df["scale"].eq("binary")
    df.loc[~binary, "p_yes"] = np.nan
    if binary.all():  # Yes/No rows take nothing from the JSON column (the lean store read leaves it out)
        return df
    extras = df["extra"].map(_loads)
    if (~binary).any():
        dist = extras.map(lambda e: _dist_json(e.get("distribution")))
        if dist.notna().any():
            df["distribution"] = dist.astype(object)
    direction = extras.map(lambda e: e.get("direction"))
    if direction.notna().any():
        df["direction"] = direction.astype(object)
    choice = df["scale"].eq("choice")
    if choice.any():
        df["second"] = extras.map(lambda e: e.get("second")).where(choice).astype(object)
        df["second_perturbation"] = extras.map(lambda e: e.get("second_perturbation")).where(choice).astype(object)
        df["order"] = (df["message"].astype(str) + "|" + df["second"].fillna("")).where(choice).astype(object)
        ans = df["answer"]
        chosen = np.where(ans.eq(1).fillna(False), df["message"],
                          np.where(ans.eq(2).fillna(False), df["second"], None))
        df["chosen"] = pd.Series(chosen, index=df.index, dtype=object).where(choice)
    options = extras.map(lambda e: e.get("options"))  # a checkbox question's option names
    if options.notna().any():
        df["options"] = options.map(lambda v: "|".join(v) if isinstance(v, list) else None).astype(object)
    unit = extras.map(lambda e: e.get("unit"))  # what a numeric question's number counts ("US dollars")
    if unit.notna().any():
        df["unit"] = unit.astype(object)
    shown = extras.map(lambda e: e.get("shown"))
    if shown.notna().any():
        _add_shown(df, shown, extras.map(lambda e: e.get("shown_perturbations")))
    return df


def _add_shown(df: pd.DataFrame, shown: pd.Series, perturbations: pd.Series) -> None:
    """Pick one of k: what each position showed and the message chosen (see the module's docstring)."""
    df["shown"] = shown.map(lambda v: "|".join(v) if isinstance(v, list) else None).astype(object)
    df["shown_perturbations"] = perturbations.map(lambda v: "|".join(v) if isinstance(v, list) else None).astype(object)
    answers = pd.to_numeric(df["answer"], errors="coerce")
    df["chosen"] = pd.Series([v[int(a) - 1] if isinstance(v, list) and pd.notna(a) and 1 <= a <= len(v) else None
                              for v, a in zip(shown, answers, strict=True)], index=df.index, dtype=object)
    if answers.between(10, 99).any():  # best-worst scaling: 10 * best + worst (survey.kinds.maxdiff.parsing)
        for col, position in (("best", answers // 10), ("worst", answers % 10)):
            df[col] = pd.Series([v[int(t) - 1] if isinstance(v, list) and pd.notna(t) and 1 <= t <= len(v) else None
                                 for v, t in zip(shown, position, strict=True)], index=df.index, dtype=object)
        df["chosen"] = None
    if (answers >= 100).any():  # a ranking: the positions' digits, best first (survey.kinds.rank.parsing)
        df["ranking"] = pd.Series([_ranked(v, a) for v, a in zip(shown, answers, strict=True)], index=df.index,
                                  dtype=object)
        df["chosen"] = None


def _ranked(shown, code) -> str | None:
    """The messages of a ranking, best first ("boots|sneakers|sandals"), from its code and what was shown."""
    if not isinstance(shown, list) or pd.isna(code) or code < 100:
        return None
    order = [int(c) for c in str(int(code))]
    return "|".join(shown[t - 1] for t in order) if all(1 <= t <= len(shown) for t in order) else None


def scales_in(df: pd.DataFrame) -> list[str]:
    """The scale names of a table's rows in order of appearance; a table without a scale column is Yes/No."""
    if "scale" not in df.columns:
        return [DEFAULT_SCALE]
    names = df["scale"].astype("string").fillna(DEFAULT_SCALE).replace("", DEFAULT_SCALE)
    return [str(s) for s in pd.unique(names)]


def table_scale(df: pd.DataFrame, what: str = "the table") -> str:
    """The one scale of ``df``'s rows; a SurveyError when they mix scales, which no one test compares, or
    questions, whose answers one test must not pool."""
    if "question" in df.columns:
        asked = [str(q) for q in pd.unique(df["question"].astype(str))]
        if len(asked) > 1:
            raise SurveyError(f"{what} holds {len(asked)} questions ({', '.join(asked)}); a test compares the "
                              f"answers to one question: analyse each on its own (Python: "
                              f"source.for_question('{asked[0]}'); a table: filter its 'question' column)")
    found = scales_in(df)
    if len(found) > 1:
        raise SurveyError(f"{what} mixes scales ({', '.join(found)}); a test compares answers on one scale: "
                          "analyse each scale's rows on their own (filter the table by its 'scale' column)")
    return found[0] if found else DEFAULT_SCALE
