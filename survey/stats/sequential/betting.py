"""Anytime-valid test of a zero mean difference by betting, with its confidence sequence.

Waudby-Smith & Ramdas, "Estimating means of bounded random variables by betting" (JRSS-B 2024). The
paired differences D_j (already in [-1, 1] for Yes/No answers) are independent and symmetric about 0
under H0 given the personas' base rates (Helm & Priebe 2026, "When prompt perturbations break your
A/B test: A valid statistical test for generative surveying"), so for any bets lambda_j chosen from the
past only, the wealth

    W_j = 1/2 prod_{l<=j} (1 + lambda_l^+ (D_l - m)) + 1/2 prod_{l<=j} (1 - lambda_l^- (D_l - m))

is a nonnegative martingale under mean m, and by Ville's inequality P(sup_j W_j >= 1/alpha) <= alpha:
stopping at any time, for any reason, keeps the error at alpha. The confidence sequence is the set of
m whose wealth has never reached 1/alpha.

Bets: ``agrapa`` (approximate growth-rate adaptive, their equation with running mean and variance,
truncated at ``cap``), or ``ons`` (online Newton step).
"""

from __future__ import annotations

import numpy as np

# Largest bet as a fraction of the most the payoff allows (1 / (1 + m)). Waudby-Smith & Ramdas truncate at
# 1/2 or 3/4 for general bounded data; paired differences of answer rates use a small part of [-1, 1]
# (a pair at -1 needs every persona to flip), so the optimal bet lies far beyond the bound and the cap
# decides the power: at n = 50, r = 5 and twice the 80%-power effect of 40 pairs, 0.75 rejects 40% of the
# time and 0.95 81%. Any cap below 1 keeps the test valid.
CAP = 0.95
_PRIOR_VAR = 0.05  # pseudo-observation for the running variance: small bets until data arrive


def _agrapa(y: np.ndarray, limit) -> np.ndarray:
    """Predictable bets lambda_j (from y_1..y_{j-1}) on y = side * (D - m) being positive."""
    M = y.shape[-1]
    j = np.arange(M)
    lag = np.zeros((*y.shape[:-1], 1))
    csum = np.concatenate([lag, np.cumsum(y, axis=-1)[..., :-1]], axis=-1)
    csq = np.concatenate([lag, np.cumsum(y ** 2, axis=-1)[..., :-1]], axis=-1)
    mean = csum / (j + 1)  # a pseudo-observation at 0: no bet before data
    var = (_PRIOR_VAR + np.maximum(csq - csum ** 2 / np.maximum(j, 1), 0.0)) / (j + 1)
    return np.clip(mean / (var + mean ** 2), 0.0, limit)


def _ons(y: np.ndarray, limit) -> np.ndarray:
    """Online Newton step on the log-wealth loss (Waudby-Smith & Ramdas, after Cutkosky & Orabona)."""
    lam = np.zeros(y.shape)
    cur = np.zeros(y.shape[:-1])
    acc = np.ones(y.shape[:-1])
    const = 2.0 / (2.0 - np.log(3.0))
    limit = np.broadcast_to(limit, (*y.shape[:-1], 1))[..., 0]
    for j in range(y.shape[-1]):
        lam[..., j] = cur
        grad = -y[..., j] / (1.0 + cur * y[..., j])
        acc = acc + grad ** 2
        cur = np.clip(cur - const * grad / acc, 0.0, limit)
    return lam


def log_wealth(X, m=0.0, bet: str = "agrapa", alternative: str = "two-sided") -> np.ndarray:
    """log W_j for every prefix j: X (..., M) in [-1, 1]; m the null mean (a scalar, or (..., 1))."""
    X = np.asarray(X, dtype=float)
    choose = _agrapa if bet == "agrapa" else _ons
    sides = {"two-sided": (1.0, -1.0), "greater": (1.0,), "less": (-1.0,)}[alternative]
    logs = []
    m = np.asarray(m, dtype=float)
    for side in sides:
        y = side * (X - m)  # payoff per unit bet; >= -(1 + side m), so bets stay below 1 / (1 + side m)
        lam = choose(y, CAP / (1.0 + side * m))
        logs.append(np.cumsum(np.log1p(lam * y), axis=-1))
    if len(logs) == 1:
        return logs[0]
    return np.logaddexp(logs[0], logs[1]) - np.log(2.0)


def confidence_sequence(x, alpha: float, bet: str = "agrapa", alternative: str = "two-sided",
                        grid: int = 2001) -> tuple[np.ndarray, np.ndarray]:
    """Running (lower, upper) bounds on the mean of x after each observation, valid at all times at once.

    The bounds are the grid's extreme m whose wealth has not reached 1/alpha yet (running
    intersection); a grid of 2001 points on [-1, 1] resolves 0.001.
    """
    x = np.nan_to_num(np.asarray(x, dtype=float))
    ms = np.linspace(-1.0, 1.0, grid)[1:-1, None]  # the payoff bound is 1/(1 +- m): keep m inside
    lw = log_wealth(x[None, :], ms, bet, alternative)  # (G, M)
    alive = np.logical_and.accumulate(lw < np.log(1.0 / alpha), axis=1)
    lower = np.full(len(x), np.nan)
    upper = np.full(len(x), np.nan)
    for j in range(len(x)):
        inside = ms[alive[:, j], 0]
        if inside.size:
            lower[j], upper[j] = inside.min(), inside.max()
    return lower, upper
