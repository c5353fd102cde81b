"""The rating-scale segment simulator (survey.stats.segments.simulation): b_i ~ N(0, tau^2) plus the segment's
level, the answer from the scale's cumulative-logit cut points (survey.kinds.ordinal.model)."""

from __future__ import annotations

import numpy as np

from survey.kinds.ordinal.model import category_probabilities
from survey.kinds.ordinal.table import scale_params
from survey.stats.segments.simulation import score_table


def _ordinal_params(scale: str, sigma: float, rho: float, tau: float):
    return scale_params(scale, tau=tau, sigma=sigma, rho=rho, delta=0.0)


def simulate_cells(ctx, *, r, scale, sigma, rho, tau, **_) -> tuple:
    rng, n, size, level, delta, shifts = ctx
    params = _ordinal_params(scale, sigma, rho, tau)
    base = rng.normal(0.0, tau, (*size, n, 1)) + level
    counts = [rng.multinomial(r, category_probabilities(params, base + extra + shifts())) for extra in (0.0, delta)]
    scores = np.asarray(params.scores, float)
    return counts[0] @ scores / r, counts[1] @ scores / r, (*counts, params), score_table
