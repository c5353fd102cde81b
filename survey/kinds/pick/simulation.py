"""Rejection rates of the pick-one-of-k tests by simulation (survey.kinds.pick.statistics on survey.kinds.pick.table's
multinomial-logit simulator), whole batches of surveys at once: what bench/pick.py tabulates and the test
suite checks on a smaller scale."""

from __future__ import annotations

import numpy as np

from survey.kinds.pick.statistics import cell_shares, message_shares, pair_pvalues, position_pvalues
from survey.kinds.pick.table import simulate_pick_arrays


def rejection_rates(surveys: int, n: int, m: int, r: int, k: int, *, pair: tuple[int, int] = (0, 1),
                    alpha: float = 0.05, n_resamples: int = 499, seed=0, batch: int = 500, **params) -> dict:
    """Share of ``surveys`` simulated surveys in which the pairwise test of messages ``pair`` and the
    position test reject at ``alpha``; ``pair_greater`` / ``pair_less``: rejections with share(a) above /
    below share(b). ``params``: deltas, sigma, rho, positions, tau, invalid_rate (simulate_pick_arrays)."""
    rng = np.random.default_rng(seed)
    pair_p, pos_p, sign = [], [], []
    for start in range(0, surveys, batch):
        size = min(batch, surveys - start)
        chosen, valid, at = simulate_pick_arrays(size, n, m, r, k, seed=rng, **params)
        M = cell_shares(chosen, valid)
        S = message_shares(M)
        pair_p.append(pair_pvalues(S, *pair, n_resamples=n_resamples, seed=rng))
        sign.append(np.sign((S[..., pair[0]] - S[..., pair[1]]).mean(axis=-1)))
        pos_p.append(position_pvalues(M, at, n_resamples=n_resamples, seed=rng))
    pair_p, pos_p, sign = (np.concatenate(x) for x in (pair_p, pos_p, sign))
    reject = pair_p <= alpha
    return {"pair": float(reject.mean()), "pair_greater": float((reject & (sign > 0)).mean()),
            "pair_less": float((reject & (sign < 0)).mean()), "position": float((pos_p <= alpha).mean()),
            "surveys": surveys}
