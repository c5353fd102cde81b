"""A ranking from the long table (survey.kinds.rank.statistics has the tests).

A ranking row is a pick-one-of-k row (survey.kinds.pick.table): ``message``/``perturbation`` are what was shown
first, ``shown`` and ``shown_perturbations`` every option by position; ``answer`` is the ranking's code, the
positions' digits best first (213: position 2 first, then 1, then 3), and ``ranking`` the messages in that order.
In exact mode ``distribution`` is the probability of each code, and a row's Borda scores are their expectation.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from survey.errors import SurveyError, TableError
from survey.kinds.pick.table import pick_arrays
from survey.kinds.rank.statistics import RankResult, borda_by_position, borda_total, rank_test
from survey.stats.kinds.base import CompareOptions

WHAT = "ranking"


def borda_mass(sub: pd.DataFrame, k: int, probabilities: bool) -> np.ndarray:
    """Per row each position's Borda share (Borda score / (k(k − 1)/2), summing to 1); NaN rows invalid. With
    ``probabilities``, the expectation over exact mode's distribution of codes."""
    if not probabilities:
        return borda_by_position(pd.to_numeric(sub["answer"], errors="coerce").to_numpy(dtype=float), k) \
            / borda_total(k)
    if "distribution" not in sub:
        raise TableError("exact mode needs the 'distribution' column (the probability of each ranking): collect "
                         "with the local backend's mode = \"exact\", or analyse the answers (drop --probabilities)")
    out = np.full((len(sub), k), np.nan)
    for row, text in enumerate(sub["distribution"]):
        dist = json.loads(text) if isinstance(text, str) and text else {}
        codes = np.array([float(c) for c in dist], dtype=float)
        probs = np.array(list(dist.values()), dtype=float)
        scores = borda_by_position(codes, k)
        ok = ~np.isnan(scores).any(axis=1)
        if ok.any() and probs[ok].sum() > 0:
            out[row] = probs[ok] @ scores[ok] / probs[ok].sum() / borda_total(k)
    return out


def rank_arrays(df: pd.DataFrame, model: str, probabilities: bool = False, weights=None):
    """(M, at, info) of one model's ranking rows: M (m, k, k) the persona-mean Borda share per set, arrangement and
    message; at (m, k, k) the message at each position (survey.kinds.pick.table.pick_arrays' layout)."""
    return pick_arrays(df, model, probabilities, weights, mass=borda_mass, what=WHAT)


def compare_rank(df: pd.DataFrame, model: str, a: str, b: str, *, alternative: str = "two-sided", alpha: float = 0.05,
                 confidence: float | None = None, n_resamples: int = 9999, seed=0, probabilities: bool = False,
                 weights=None) -> RankResult:
    """A ranking, message a vs b for one model of a long table (survey.kinds.rank.statistics.rank_test on its
    arrays). ``weights``: persona id -> weight (a target population)."""
    M, at, info = rank_arrays(df, model, probabilities, weights)
    messages = info["messages"]
    for msg in (a, b):
        if msg not in messages:
            raise TableError(f"model '{model}' was not shown '{msg}'; its ranking rows show {', '.join(messages)}")
    if a == b:
        raise SurveyError("a and b must name two different messages")
    if len(M) == 0:
        raise TableError(f"model '{model}': no paraphrase set has a valid ranking in every arrangement")
    res = rank_test(M, at, messages.index(a), messages.index(b), messages=messages, sets=info["sets"],
                    n_personas=len(info["personas"]), replicates=info["replicates"],
                    options=CompareOptions(alternative=alternative, alpha=alpha, confidence=confidence,
                                           flips=n_resamples, seed=seed))
    res.model, res.invalid, res.sets_left_out = model, info["invalid"], info["left_out"]
    res.scale = f"rank{len(messages)}"
    if info["left_out"]:
        res.notes.append(f"{len(info['left_out'])} paraphrase set(s) left out: not asked in a full Latin square of "
                         f"arrangements, or an arrangement without a valid ranking ({', '.join(info['left_out'][:5])})")
    return res
