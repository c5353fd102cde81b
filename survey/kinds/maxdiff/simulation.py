"""Best–worst scaling by simulation, whole batches of surveys at once: what bench/maxdiff.py tabulates and the
test suite checks on a smaller scale.

Persona i's utility of message a's paraphrase j is delta_a + u_ja + v_ija (u shared by every persona,
N(0, rho sigma^2); v N(0, (1 - rho) sigma^2)); in a block the best is drawn by a multinomial logit on utility
plus a position shift beta_t, the worst from the others on minus the utility plus beta_t (the simulated
backend's model), r replicates per block; blocks as the study design (survey.kinds.maxdiff.parsing).
"""

from __future__ import annotations

import numpy as np

from survey.kinds.maxdiff.parsing import base_block
from survey.kinds.maxdiff.statistics import scores_from_counts
from survey.kinds.pick.statistics import pair_pvalues
from survey.kinds.pick.table import message_orders


def simulate_maxdiff_arrays(S: int, n: int, m: int, r: int, v: int, s: int, *, deltas=None, sigma: float = 1.0,
                            rho: float = 0.3, positions=None, seed=None, random_order: bool = True):
    """(best, worst, valid), each (S, n, m, v): replies naming each message best and worst, and valid replies
    to blocks showing it, per persona and paraphrase set."""
    rng = np.random.default_rng(seed)
    deltas = np.zeros(v) if deltas is None else np.asarray(deltas, dtype=float)
    beta = np.zeros(s) if positions is None else np.asarray(positions, dtype=float)
    order = message_orders(rng, S, m, v, random_order)
    shown = order[..., (np.arange(v)[:, None] + np.array(base_block(v, s))[None, :]) % v]  # (S, m, block, t)
    util = deltas + rng.normal(0, sigma * np.sqrt(rho), (S, 1, m, v)) + rng.normal(0, sigma * np.sqrt(1 - rho), (S, n, m, v))
    u = np.take_along_axis(util[:, :, :, None, :], np.broadcast_to(shown[:, None], (S, n, m, v, s)), axis=-1)
    best = np.argmax((u + beta)[..., None] + rng.gumbel(size=(S, n, m, v, s, r)), axis=-2)  # (S, n, m, block, r)
    rest = (-u + beta)[..., None] + rng.gumbel(size=(S, n, m, v, s, r))
    np.put_along_axis(rest, best[..., None, :], -np.inf, axis=-2)
    worst = np.argmax(rest, axis=-2)
    grid = np.broadcast_to(shown[:, None, ..., None], (S, n, m, v, s, r))
    best_msg = np.take_along_axis(grid, best[..., None, :], axis=-2)[..., 0, :]
    worst_msg = np.take_along_axis(grid, worst[..., None, :], axis=-2)[..., 0, :]
    messages = np.arange(v)
    best_n = (best_msg[..., None] == messages).sum(axis=(-3, -2))
    worst_n = (worst_msg[..., None] == messages).sum(axis=(-3, -2))
    return best_n, worst_n, np.full(best_n.shape, float(s * r))


def rejection_rates(surveys: int, n: int, m: int, r: int, v: int, s: int, *, pair: tuple[int, int] = (0, 1),
                    alpha: float = 0.05, seed=0, batch: int = 250, **params) -> dict:
    """Share of simulated surveys in which the pairwise test of ``pair`` rejects at ``alpha`` (``pair_greater``
    / ``pair_less``: with message pair[0] scoring above / below pair[1])."""
    rng = np.random.default_rng(seed)
    pvals, sign = [], []
    for start in range(0, surveys, batch):
        best, worst, valid = simulate_maxdiff_arrays(min(batch, surveys - start), n, m, r, v, s, seed=rng, **params)
        scores = scores_from_counts(best, worst, valid)
        pvals.append(pair_pvalues(scores, *pair, n_resamples=999, seed=rng))
        sign.append(np.sign((scores[..., pair[0]] - scores[..., pair[1]]).mean(axis=-1)))
    p, sign = np.concatenate(pvals), np.concatenate(sign)
    reject = p <= alpha
    return {"pair": float(reject.mean()), "pair_greater": float((reject & (sign > 0)).mean()),
            "pair_less": float((reject & (sign < 0)).mean()), "surveys": surveys}
