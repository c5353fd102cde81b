"""How often the segment tests reject on simulated surveys with known truth (survey.stats.segments.simulation):
the size of each per-segment sign-flip test and of the interaction test, beside the per-segment sign and
Wilcoxon tests on personas that a shared paraphrase shift makes invalid (Helm & Priebe (2026), "When prompt
perturbations break your A/B test", show it for the pooled test); the power of the interaction test; and
the coverage of the weighted population effect's interval.

Everything is vectorised over surveys: the per-pair differences of S surveys go through the batched
p-values (survey.stats.permutation.sign_flip_pvalues, survey.stats.batched), which equal the one-survey
tests that survey.analyze runs (tests/stats/test_segments.py checks that on the same surveys).
"""

from __future__ import annotations

import numpy as np
from scipy import stats as sps

from survey.stats.batched import sign_pvalues, wilcoxon_pvalues
from survey.stats.effect import effect_ci
from survey.stats.permutation import sign_flip_pvalues
from survey.stats.segments.interaction import interaction_pvalues
from survey.stats.segments.simulation import SegmentCells, SimSegment, simulate_segment_cells


def attainable_size(m: int, alpha: float, interaction_k: int = 2) -> float:
    """The largest rejection rate <= alpha an exact test over m pairs can have with continuous data: the
    two-sided sign-flip test's p-values are multiples of 2 / 2^m (also the two-segment interaction's); the
    k-segment interaction's of 1 / 2^(m-1)."""
    unit = 2.0 / 2 ** m
    return float(np.floor(alpha / unit + 1e-12) * unit)


def conditional_size(null: np.ndarray, alpha: float = 0.05) -> np.ndarray:
    """Each survey's exact rejection probability under H0 given its sign-flip orbit: ``null`` (S, V) holds the
    statistic (larger is more extreme) at every one of the V sign vectors. Under H0 every vector is equally
    likely, so P(p <= alpha | orbit) is the share of vectors whose own p-value is <= alpha. With ties (cell
    means are fractions of r) this is below the attainable size of continuous data: the mean over surveys is
    the size the test has on these data, which a rejection rate is then compared with."""
    null = np.asarray(null, dtype=float)
    S, V = null.shape
    gamma = 1e-9 * np.maximum(np.abs(null).max(axis=1, keepdims=True), 1e-300)
    # one searchsorted for every survey: each row shifted into its own band of the number line
    span = float(null.max() - null.min()) + 1.0
    offset = np.arange(S)[:, None] * 4 * span
    ranked = np.sort(null, axis=1) + offset
    first = np.searchsorted(ranked.ravel(), (null - gamma + offset).ravel(), side="left").reshape(S, V)
    at_least = (np.arange(1, S + 1)[:, None] * V) - first  # vectors of the row at least as extreme
    return np.mean(at_least / V <= alpha + 1e-12, axis=1)


def sign_flip_size(d: np.ndarray, alpha: float = 0.05) -> float:
    """The exact size of the two-sided sign-flip test on surveys ``d`` (S, m) given their orbits (m <= 16)."""
    from survey.stats.permutation import all_signs

    return float(conditional_size(np.abs(np.asarray(d, float) @ all_signs(d.shape[1]).T), alpha).mean())


def interaction_size(d: np.ndarray, sizes, alpha: float = 0.05) -> float:
    """The exact size of the interaction test on surveys ``d`` (S, K, m) given their orbits (m <= 16)."""
    from survey.stats.permutation import all_signs

    sizes = np.asarray(sizes, float)
    if d.shape[1] == 2:
        return sign_flip_size(d[:, 0] - d[:, 1], alpha)
    c = d - np.einsum("k,skm->sm", sizes, d)[:, None, :] / sizes.sum()
    null = (np.einsum("skm,vm->svk", c, all_signs(d.shape[2])) / d.shape[2]) ** 2 @ sizes
    return float(conditional_size(null, alpha).mean())


def binomial_band(rate: float, surveys: int, level: float = 0.99) -> tuple[float, float]:
    """The ``level`` binomial interval of a rejection rate over ``surveys`` surveys at a true rate ``rate``."""
    lo, hi = sps.binom.interval(level, surveys, rate)
    return float(lo / surveys), float(hi / surveys)


def rejection_rates(cells: SegmentCells, alpha: float = 0.05, n_resamples: int = 1000, seed=0) -> dict:
    """Rejection rates at ``alpha`` over the surveys of ``cells``: per segment the sign-flip test over pairs
    and the sign and Wilcoxon tests on personas, and the interaction test of all segments."""
    d = cells.pair_differences()  # (S, K, m)
    out = {"segments": {}}
    for k, name in enumerate(cells.names):
        persona = cells.persona_differences(k)
        out["segments"][name] = {
            "sign_flip": float(np.mean(sign_flip_pvalues(d[:, k], n_resamples=n_resamples, seed=seed) <= alpha)),
            "sign": float(np.mean(sign_pvalues(persona) <= alpha)),
            "wilcoxon": float(np.mean(wilcoxon_pvalues(persona) <= alpha)),
            "sign_flip_size": sign_flip_size(d[:, k], alpha) if d.shape[2] <= 16 else None,
        }
    if len(cells.names) >= 2:
        sizes = np.bincount(cells.segment).astype(float)
        out["interaction"] = float(np.mean(interaction_pvalues(d, sizes, n_resamples=n_resamples, seed=seed) <= alpha))
        out["interaction_size"] = interaction_size(d, sizes, alpha) if d.shape[2] <= 16 else None
    return out


def population_coverage(segments: list[SimSegment], shares: list[float], m: int, r: int, *, scale: str = "binary",
                        rho: float = 0.3, sigma: float = 1.0, surveys: int = 1000, confidence: float = 0.95,
                        truth_surveys: int = 20000, seed=0, **model) -> dict:
    """How often the weighted population effect's interval covers the target population's true effect.

    The personas come in the segments' sizes; the target's shares differ, so the weights are share_s /
    (n_s / n) (post-stratification, what raking gives on one attribute). The true effect, sum_s share_s
    E[theta^A - theta^B | segment s], comes from ``truth_surveys`` further surveys of the same model."""
    n = sum(s.n for s in segments)
    cells = simulate_segment_cells(segments, m, r, scale=scale, rho=rho, sigma=sigma, surveys=surveys, seed=seed,
                                   **model)
    w = np.array(shares)[cells.segment] / (np.bincount(cells.segment)[cells.segment] / n)
    d = cells.pair_differences(weights=w)[:, 0, :]
    big = simulate_segment_cells([SimSegment(s.name, 50, s.delta, s.level) for s in segments], 1, r, scale=scale,
                                 rho=rho, sigma=sigma, surveys=truth_surveys, seed=None if seed is None else seed + 1,
                                 **model)
    per_segment = big.pair_differences().mean(axis=(0, 2))
    truth = float(np.dot(shares, per_segment))
    from survey.stats.kinds import scale_view

    bounds = scale_view(scale).bounds
    covered = 0
    for row in d:
        lo, hi = effect_ci(row, confidence=confidence, n_resamples=999, seed=0, bounds=bounds).ci
        covered += lo <= truth <= hi
    # the truth's own Monte Carlo s.e., to read the coverage against
    truth_se = float(np.sqrt(np.dot(np.square(shares), big.pair_differences().mean(axis=2).var(axis=0)) / truth_surveys))
    return {"coverage": covered / surveys, "surveys": surveys, "truth": truth, "truth_se": truth_se,
            "mean_effect": float(d.mean()), "confidence": confidence}


__all__ = ["attainable_size", "binomial_band", "conditional_size", "interaction_size", "sign_flip_size", "population_coverage", "rejection_rates"]
