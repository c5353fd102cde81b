"""The forced-choice segment simulator (survey.stats.segments.simulation): both messages shown together in both
orders, logit P(first) = logit(position) + level_s(i) + b_i +/- (U^A - U^B) (survey.kinds.choice.model)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from survey.kinds.choice.model import ChoiceCounts, choice_table
from survey.stats.segments.simulation import SegmentCells


def simulate_cells(ctx, *, r, tau, position, **_) -> tuple:
    rng, n, size, level, delta, shifts = ctx
    gap = shifts() - (delta + shifts())  # U^A - U^B
    bias = logit(position) + rng.normal(0.0, tau, (*size, n, 1)) + level
    first_ab = rng.binomial(r, expit(bias + gap))
    first_ba = rng.binomial(r, expit(bias - gap))
    # A chosen when A is shown first; B chosen when B is shown first
    return first_ab / r, first_ba / r, (first_ab, first_ba), choice_segment_table


def choice_segment_table(cells: SegmentCells, survey: int, model: str, messages: tuple[str, str]) -> pd.DataFrame:
    r = cells.r
    f_ab, chose_b_first = (c[survey] for c in cells.counts)
    full = np.full(f_ab.shape, r)
    return choice_table(ChoiceCounts(f_ab, full, chose_b_first, full), r, messages, model)
