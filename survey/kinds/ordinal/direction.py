"""The direction effect of a balanced scale: do answers depend on which way the scale was shown? (ours)

A rating question asked with ``order = "both"`` shows odd replicates the scale reversed (survey.responses
.balanced) and stores every answer as the forward scale's score. A model that leans towards the end shown
as agreeing (acquiescence), or towards the first-listed label, then scores higher in one direction than
in the other: Brucks & Toubia (2025), "Prompt architecture induces methodological artifacts in large
language models", find such order and label effects that an instruction does not remove, and the
balanced design (half the respondents with reversed keying) is the survey researcher's answer to
acquiescence.

With ybar_ijmd the mean score of persona i on paraphrase j of message m in direction d:

* **Direction effect**: E_j = mean_m mean_i (ybar_ijm,forward - ybar_ijm,reversed) for paraphrase pair j
  (A_j, B_j). Under H0 (the direction does not matter) a cell's forward and reversed replicates are
  exchangeable, so each within-cell difference, and so E_j, is symmetric about 0 whatever the persona
  and paraphrase effects (they cancel inside the cell, shared or not): the sign-flip test of Helm &
  Priebe (2026), "When prompt perturbations break your A/B test", over the paraphrase pairs applies,
  and the interval of survey.stats.effect inverts it. The paraphrase pairs are the units exchanged, as
  in the A/B test it is reported beside.
* The A/B comparison itself averages the two directions: with an even number of replicates, half of
  each cell in each direction, the cell mean is the mean of the two direction means, so the direction
  effect is the same for A and B and cancels from A - B (a cell whose invalid replies unbalance it weighs
  the directions by their valid replies).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from survey.common.display import Display
from survey.data.pairing import Pairing
from survey.data.table import cell_counts
from survey.errors import TableError
from survey.stats.effect import EffectResult, effect_ci
from survey.stats.kinds.base import CompareOptions
from survey.stats.permutation import PermutationResult, sign_flip_test

DIRECTION_COLUMN = "direction"
DIRECTION_WARNING = 0.25  # |forward - reversed| above this share of the scale's span: the scale's direction
# moves answers more than most message differences; read the A/B effect with it in mind


@dataclass(repr=False)
class DirectionResult(Display):
    """Forward minus reversed mean score over the paraphrase pairs, with its sign-flip test and interval.

    ``statistic``/``pvalue`` are the sign-flip test's; ``effect`` the mean difference with its interval
    (in scale points); ``means`` each direction's mean score over the cells used."""

    test: PermutationResult
    effect: EffectResult
    means: dict  # "forward"/"reversed" -> mean score over the cells used
    n_pairs: int
    pairs: list  # (A id, B id) of each E_j used
    d_pair: np.ndarray = field(repr=False)  # E_j, NaN where a pair had no cell with both directions
    span: float = 1.0
    alpha: float = 0.05

    @property
    def statistic(self) -> float:
        return float(self.test.statistic)

    @property
    def pvalue(self) -> float:
        return float(self.test.pvalue)

    @property
    def warning(self) -> str | None:
        """Set when the direction moves answers significantly and by more than DIRECTION_WARNING of the span."""
        est = self.effect.estimate
        if self.pvalue <= self.alpha and abs(est) > DIRECTION_WARNING * self.span:
            way = "forward" if est > 0 else "reversed"
            return (f"the scale's direction moves answers by {est:+.2f} points (higher when shown {way}): the model "
                    "reads the order of the scale, not only the message; the A/B effect averages both directions")
        return None

    def display_parts(self):
        lo, hi = self.effect.ci
        rows = [{"direction": d, "mean score": v} for d, v in self.means.items()]
        title = (f"direction effect (forward − reversed) {self.effect.estimate:+.3f} points "
                 f"({self.effect.confidence:.0%} CI {lo:+.3f} to {hi:+.3f}); sign-flip p = {self.pvalue:.4g}")
        return title, rows, [f"{self.n_pairs} paraphrase pairs exchanged by the sign flips"] + (
            [self.warning] if self.warning else [])

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "pvalue": self.pvalue, "exact": bool(self.test.exact),
                "method": self.test.method, "alternative": self.test.alternative, "means": dict(self.means),
                "effect": self.effect.to_dict(), "n_pairs": self.n_pairs, "warning": self.warning,
                "what": "mean score shown forward − mean score shown reversed (answers mapped back to the forward "
                        "scale); sign flips exchange paraphrase pairs"}


def direction_differences(forward: list[np.ndarray], reversed_: list[np.ndarray]) -> np.ndarray:
    """E_j from per-direction cell means: lists (one entry per message) of (n, m) arrays, column j of each
    message in pair j; NaN cells are left out, a pair without any cell in both directions is NaN."""
    per_message = []
    for f, r in zip(forward, reversed_, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            per_message.append(np.nanmean(np.asarray(f, float) - np.asarray(r, float), axis=-2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.round(np.nanmean(np.stack(per_message), axis=0), 12)


def direction_test(d_pair, means: dict | None = None, pairs: list | None = None, *, alternative: str = "two-sided",
                   confidence: float = 0.95, n_resamples: int = 9999, seed=0, span: float = 1.0,
                   alpha: float = 0.05) -> DirectionResult:
    """The sign-flip test and interval of the direction effect from the per-pair differences E_j."""
    d_pair = np.asarray(d_pair, float)
    used = ~np.isnan(d_pair)
    if not used.any():
        raise TableError("no paraphrase pair has answers in both directions of the scale")
    d = d_pair[used]
    labels = list(range(len(d_pair))) if pairs is None else list(pairs)
    return DirectionResult(
        test=sign_flip_test(d, alternative, n_resamples=n_resamples, seed=seed),
        effect=effect_ci(d, confidence=confidence, n_resamples=n_resamples, seed=seed, bounds=(-span, span)),
        means=dict(means or {}), n_pairs=int(used.sum()), pairs=[labels[j] for j in np.flatnonzero(used)],
        d_pair=d_pair, span=span, alpha=alpha)


def has_directions(df: pd.DataFrame) -> bool:
    """Whether a table's rows were asked in both directions (a ``direction`` column with both values)."""
    return DIRECTION_COLUMN in df.columns and {"forward", "reversed"} <= set(df[DIRECTION_COLUMN].dropna())


def compare_directions(df: pd.DataFrame, model: str, a: str, b: str, pairing: Pairing, personas: list[str], *,
                       span: float, options: CompareOptions) -> DirectionResult | None:
    """The direction test of one model's A vs B rows, on the comparison's own pairs and personas; None when
    the rows were not asked in both directions. ``options``: the comparison's own (its alternative, alpha,
    confidence, flips and seed; ``probabilities``: exact mode's expected scores)."""
    probabilities = options.probabilities
    sub = df[(df["model"] == model) & df["message"].isin([a, b])]
    if not has_directions(sub):
        return None
    k = len(pairing.pairs)
    cells, means = {}, {}
    for way in ("forward", "reversed"):
        rows = sub[sub[DIRECTION_COLUMN] == way]
        for msg, order in ((a, pairing.order_a), (b, pairing.order_b)):
            if not (rows["message"] == msg).any():
                return None
            cells[way, msg] = cell_counts(rows, model, msg, personas, probabilities, order).theta[:, :k]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            means[way] = float(np.nanmean(np.concatenate([cells[way, a], cells[way, b]], axis=1)))
    d = direction_differences([cells["forward", a], cells["forward", b]], [cells["reversed", a], cells["reversed", b]])
    return direction_test(d, means, pairing.pairs[:k], alternative=options.alternative,
                          confidence=options.confidence, n_resamples=options.flips, seed=options.seed, span=span,
                          alpha=options.alpha)
