"""Rankings by simulation, whole batches of surveys at once: what the power model (survey.kinds.rank.power),
bench/rank.py and the test suite use.

Plackett–Luce (Luce (1959), "Individual Choice Behavior"; Plackett (1975), "The analysis of permutations"): in
arrangement s of set j, persona i ranks the positions by the logits beta_t + delta_a + u_ja + v_ija (+ eta_i at
t = 1), a the message shown at t, plus independent Gumbel noise per reply: the first place is a multinomial
logit over all k, the second over the rest, and so on (the simulated backend's model). u_ja ~ N(0, rho
sigma^2) is shared by every persona, v_ija ~ N(0, (1 − rho) sigma^2) is the persona's own; r replicates per
cell, each invalid with probability ``invalid_rate``; the arrangements are the rows of a cyclic Latin square on
a random message order per set, as the study design asks them.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from survey.common.options import options_from
from survey.kinds.pick.statistics import cell_shares, message_shares, pair_pvalues, position_pvalues
from survey.kinds.pick.table import PickTruth, message_orders
from survey.kinds.rank.parsing import code_of
from survey.kinds.rank.statistics import borda_total
from survey.stats.multiplicity import holm_rows


def simulate_rank_arrays(S: int, n: int, m: int, r: int, k: int, *, truth: PickTruth | None = None, seed=None,
                         random_order: bool = True, replies: bool = False, **keywords):
    """S simulated ranking surveys at once: (borda (S, n, m, k, k), valid (S, n, m, k), at (S, m, k, k)), borda the
    Borda shares summed over valid replicates per persona, set, arrangement and message (cell_shares' input).
    ``truth``: the population (PickTruth's fields: deltas, sigma, rho, positions, tau, invalid_rate).
    ``replies``: also return each reply's Borda score by position (S, n, m, k, r, k), NaN when invalid."""
    truth = options_from(PickTruth, truth, keywords, where="simulate_rank_arrays")
    rng = np.random.default_rng(seed)
    deltas = np.zeros(k) if truth.deltas is None else np.asarray(truth.deltas, dtype=float)
    beta = np.zeros(k) if truth.positions is None else np.asarray(truth.positions, dtype=float)
    order = message_orders(rng, S, m, k, random_order)
    at = order[..., (np.arange(k)[:, None] + np.arange(k)[None, :]) % k]  # (S, m, s, t)
    util = (deltas + rng.normal(0, truth.sigma * np.sqrt(truth.rho), (S, 1, m, k))
            + rng.normal(0, truth.sigma * np.sqrt(1 - truth.rho), (S, n, m, k)))
    logits = np.take_along_axis(util[:, :, :, None, :], at[:, None], axis=-1) + beta  # (S, n, m, s, t)
    if truth.tau:
        logits[..., 0] += rng.normal(0, truth.tau, (S, n, 1, 1))
    noisy = logits[..., None, :] + rng.gumbel(size=(S, n, m, k, r, k))  # (S, n, m, s, rep, t)
    points = np.argsort(np.argsort(noisy, axis=-1), axis=-1).astype(float)  # Borda score: positions ranked below
    ok = rng.random((S, n, m, k, r)) >= truth.invalid_rate if truth.invalid_rate else np.ones((S, n, m, k, r), bool)
    by_position = np.where(ok[..., None], points, 0.0).sum(axis=-2) / borda_total(k)  # (S, n, m, s, t)
    borda = np.zeros_like(by_position)
    np.put_along_axis(borda, np.broadcast_to(at[:, None], borda.shape), by_position, axis=-1)
    valid = ok.sum(axis=-1).astype(float)
    if replies:
        return borda, valid, at, np.where(ok[..., None], points, np.nan)
    return borda, valid, at


def simulate_rank_table(n: int, m: int, r: int, messages: list[str], seed=None, **params) -> pd.DataFrame:
    """One simulated ranking survey as a long table (the columns a ranking study's store gives)."""
    k = len(messages)
    deltas = params.pop("deltas", None)
    if isinstance(deltas, dict):
        deltas = [float(deltas.get(msg, 0.0)) for msg in messages]
    _, _, at, points = simulate_rank_arrays(1, n, m, r, k, deltas=deltas, seed=seed, replies=True, **params)
    rows = []
    for i in range(n):
        for j in range(m):
            for s in range(k):
                shown = [messages[a] for a in at[0, j, s]]
                for rep in range(r):
                    score = points[0, i, j, s, rep]
                    code = None if np.isnan(score).any() else code_of(np.argsort(-score) + 1)
                    rows.append({"model": "sim", "message": shown[0], "perturbation": f"{shown[0]}-{j + 1:02d}",
                                 "persona": f"p{i:03d}", "replicate": rep, "answer": code, "scale": f"rank{k}",
                                 "shown": "|".join(shown),
                                 "shown_perturbations": "|".join(f"{msg}-{j + 1:02d}" for msg in shown),
                                 "ranking": None if code is None else "|".join(shown[t] for t in np.argsort(-score))})
    return pd.DataFrame(rows)


def rejection_rates(surveys: int, n: int, m: int, r: int, k: int, *, pair: tuple[int, int] = (0, 1),
                    alpha: float = 0.05, n_resamples: int = 499, seed=0, batch: int = 250, **params) -> dict:
    """Share of ``surveys`` simulated surveys in which the raw pairwise test of messages ``pair`` and the position
    test reject at ``alpha`` (``pair_greater`` / ``pair_less``: with a's Borda score above / below b's);
    ``holm_any``: in which any pair rejects after Holm over every pair (the family-wise error rate when no
    message differs). ``params``: PickTruth's fields."""
    rng = np.random.default_rng(seed)
    pairs = list(itertools.combinations(range(k), 2))
    raw_p, pos_p, sign = [], [], []
    for start in range(0, surveys, batch):
        borda, valid, at = simulate_rank_arrays(min(batch, surveys - start), n, m, r, k, seed=rng, **params)
        M = cell_shares(borda, valid)
        B = message_shares(M)
        test_seed = int(rng.integers(2**63))
        raw_p.append(np.stack([pair_pvalues(B, *p, n_resamples=n_resamples, seed=test_seed) for p in pairs], axis=-1))
        sign.append(np.sign((B[..., pair[0]] - B[..., pair[1]]).mean(axis=-1)))
        pos_p.append(position_pvalues(M, at, n_resamples=n_resamples, seed=rng))
    raw_p, pos_p, sign = (np.concatenate(x) for x in (raw_p, pos_p, sign))
    reject = raw_p[:, pairs.index(tuple(sorted(pair)))] <= alpha
    return {"pair": float(reject.mean()), "pair_greater": float((reject & (sign > 0)).mean()),
            "pair_less": float((reject & (sign < 0)).mean()), "position": float((pos_p <= alpha).mean()),
            "holm_any": float((holm_rows(raw_p) <= alpha).any(axis=1).mean()), "surveys": surveys}
