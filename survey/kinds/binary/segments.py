"""The Yes/No segment simulator (survey.stats.segments.simulation): b_i the logit of a Beta(mu, kappa) draw plus
the segment's level, P(Yes) = expit(lambda)."""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

from survey.stats.segments.simulation import score_table


def simulate_cells(ctx, *, r, mu, kappa, **_) -> tuple:
    rng, n, size, level, delta, shifts = ctx
    base = logit(np.clip(rng.beta(mu * kappa, (1 - mu) * kappa, (*size, n, 1)), 1e-12, 1 - 1e-12)) + level
    yes_a = rng.binomial(r, expit(base + shifts()))
    yes_b = rng.binomial(r, expit(base + delta + shifts()))
    return yes_a / r, yes_b / r, (yes_a, yes_b), score_table
