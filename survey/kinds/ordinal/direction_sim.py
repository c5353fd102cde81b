"""Balanced scales by simulation: the size and power of the A/B test and the direction test (ours).

The ordinal model of survey.kinds.ordinal.model (persona eta_i ~ N(0, tau^2), shared paraphrase shift
u_j ~ N(0, rho sigma^2), persona-specific v_ij ~ N(0, (1 - rho) sigma^2), message B shifted by delta)
with a direction bias b: a replicate shown the scale forward answers at lambda + b, one shown it reversed
(answers mapped back) at lambda - b, a pull towards the end shown as agreeing (acquiescence). Each cell
gets r/2 replicates in each direction, as a study with ``order = "both"`` asks them.

Both tests are the sign-flip test of Helm & Priebe (2026), "When prompt perturbations break your A/B
test", over paraphrase pairs (survey.stats.permutation.sign_flip_pvalues, many surveys at once):

* A/B: D_j = mean_i (mean of A's two direction means - mean of B's), valid whatever b;
* direction: E_j = mean over A_j and B_j of mean_i (forward mean - reversed mean), valid whatever delta.
"""

from __future__ import annotations

import numpy as np

from survey.kinds.ordinal.model import OrdinalParams, category_probabilities, draw_locations
from survey.stats.permutation import sign_flip_pvalues


def simulate_direction_means(params: OrdinalParams, n: int, m: int, r: int, bias: float, rng: np.random.Generator,
                             size: int = 1) -> dict[tuple[str, str], np.ndarray]:
    """Cell mean scores (size, n, m) per (message, direction): ("A"|"B", "forward"|"reversed"), r/2 replicates
    each; paraphrase j of A is paired with paraphrase j of B."""
    half = r // 2
    lam = dict(zip("AB", draw_locations(params, n, m, m, rng, (size,)), strict=True))
    out = {}
    for msg, loc in lam.items():
        for way, sign in (("forward", 1.0), ("reversed", -1.0)):
            counts = rng.multinomial(half, category_probabilities(params, loc + sign * bias))
            out[msg, way] = counts @ params.scores / half
    return out


def balanced_statistics(means: dict) -> tuple[np.ndarray, np.ndarray]:
    """(D, E), each (size, m): the A/B paired differences over both directions and the direction differences."""
    both = {msg: (means[msg, "forward"] + means[msg, "reversed"]) / 2 for msg in "AB"}
    d = (both["A"] - both["B"]).mean(axis=-2)
    e = sum(means[msg, "forward"] - means[msg, "reversed"] for msg in "AB").mean(axis=-2) / 2
    return np.round(d, 12), np.round(e, 12)


def rejection_rates(params: OrdinalParams, n: int, m: int, r: int, bias: float, surveys: int, seed=0,
                    alpha: float = 0.05, chunk: int = 500) -> dict:
    """Share of ``surveys`` simulated surveys whose A/B and direction tests reject at ``alpha`` (two-sided),
    and the share rejecting with each sign of the statistic."""
    rng = np.random.default_rng(seed)
    rejected = {"ab": [], "direction": []}
    signs = {"ab": [], "direction": []}
    left = surveys
    while left > 0:
        size = min(chunk, left)
        d, e = balanced_statistics(simulate_direction_means(params, n, m, r, bias, rng, size))
        for name, x in (("ab", d), ("direction", e)):
            rejected[name].append(sign_flip_pvalues(x, "two-sided", exact_max_m=min(m, 14), seed=rng) <= alpha)
            signs[name].append(np.sign(x.mean(axis=1)))
        left -= size
    out = {}
    for name in rejected:
        rej, sgn = np.concatenate(rejected[name]), np.concatenate(signs[name])
        out[name] = {"rate": float(rej.mean()), "positive": float((rej & (sgn > 0)).mean()),
                     "negative": float((rej & (sgn < 0)).mean()), "surveys": int(len(rej))}
    return out


def binomial_interval(alpha: float, surveys: int, level: float = 0.99) -> tuple[float, float]:
    """The central ``level`` interval of the rejection rate of a test of size ``alpha`` over ``surveys`` draws."""
    from scipy.stats import binom

    lo, hi = binom.interval(level, surveys, alpha)
    return float(lo / surveys), float(hi / surveys)
