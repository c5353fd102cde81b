"""The ranking segment simulator (survey.stats.segments.simulation), on the ranking power model's draws
(survey.kinds.rank.simulation.simulate_rank_arrays: Plackett–Luce rankings of the k messages, in the Latin-square
arrangements the study asks, with the paraphrase shifts u_ja every persona of every segment shares). A persona's
message utilities are the plan's, with B's set to A's plus the persona's segment effect (the latent shift of B
over A); a segment's level moves every message alike, which a ranking does not see.

A segment's test is the ranking analysis's deciding test on that segment's personas: the sign-flip test of A vs B
Borda shares over paraphrase sets, Holm-adjusted over every pair of messages, computed by RankPlan's own p-value
path (RankPlan.pair_pvalues) on the segment's persona-mean shares; its interaction reads each segment's per-set
difference of Borda shares A - B, as the analysis's per_pair does."""

from __future__ import annotations

import numpy as np

from survey.errors import SurveyError
from survey.kinds.pick.statistics import cell_shares, message_shares
from survey.kinds.pick.table import PickTruth
from survey.kinds.rank.power import RankPlan
from survey.kinds.rank.simulation import simulate_rank_arrays
from survey.stats.segments.simulation import SegmentCells, SegmentTests


def _segment_shares(cells: SegmentCells) -> list[np.ndarray]:
    """Per segment, (S, m, k): each message's Borda share per set over the segment's personas (cell_shares, as
    the analysis of that segment's personas computes it)."""
    borda, valid = cells.counts[0], cells.counts[1]
    return [message_shares(cell_shares(borda[:, cells.segment == s], valid[:, cells.segment == s]))
            for s in range(len(cells.names))]


def segment_pvalues(cells: SegmentCells, flips: int, seed) -> np.ndarray:
    plan = cells.counts[2]
    return np.stack([plan.pair_pvalues(shares, 0, 1, "two-sided", flips, 12, seed)
                     for shares in _segment_shares(cells)], axis=1)


def set_differences(cells: SegmentCells, flips: int, seed) -> np.ndarray:
    return np.stack([np.round(shares[..., 0] - shares[..., 1], 12) for shares in _segment_shares(cells)], axis=1)


TESTS = SegmentTests(segment_pvalues, set_differences)


def simulate_cells(ctx, *, r, m, scale, sigma, rho, tau, utilities, positions, invalid_rate, **_) -> tuple:
    rng, n, size, level, delta, shifts = ctx
    plan = RankPlan(tuple(utilities), scale, sigma, rho, tuple(positions), tau, invalid_rate)
    k = len(plan.delta)
    per = np.tile(np.asarray(plan.delta, float), (n, 1))
    per[:, 1] = per[:, 0] + delta[:, 0]  # B's utility: A's plus the persona's segment effect (B over A)
    truth = PickTruth(deltas=per[:, None, :], sigma=sigma, rho=rho, positions=plan.positions, tau=tau,
                      invalid_rate=invalid_rate)
    borda, valid, at = simulate_rank_arrays(size[0], n, m, r, k, truth=truth, seed=rng)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.nanmean(np.where(valid[..., None] > 0, borda / valid[..., None], np.nan), axis=-2)  # (S, n, m, k)
    return share[..., 0], share[..., 1], (borda, valid, plan, at), rank_segment_table, TESTS


def rank_segment_table(cells: SegmentCells, survey: int, model: str, messages: tuple[str, str]):
    raise SurveyError("the ranking segment simulator keeps Borda sums, not single replies: simulate a ranking table "
                      "with survey.kinds.rank.simulation.simulate_rank_table")
