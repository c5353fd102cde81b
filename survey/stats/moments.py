"""A moment estimator of (mu, kappa, sigma, rho) of the Beta-logit model of Helm & Priebe (2026), "When
prompt perturbations break your A/B test: A valid statistical test for generative surveying", that is
unbiased on the probability scale, with bootstrap standard errors and intervals.

The appendix-C estimator takes logits of observed rates, so the binomial noise of r replicates inflates
sigma and deflates rho. Here four moments are estimated without that noise, for cells of y Yes out of r:

    M1 = E p_ij          by y / r
    M2 = E p_ij^2        by y (y - 1) / (r (r - 1))  (exactly unbiased; needs r >= 2)
    M3 = E p_ij p_ij'    by theta_ij theta_ij'  (same persona, two paraphrases)
    M4 = E p_ij p_i'j    by theta_ij theta_i'j  (same paraphrase, two personas)
    M1^2 = E p_ij p_i'j' by theta_ij theta_i'j'  (nothing shared; the square of the mean rate would
                                                    carry its own sampling variance into rho)

The model gives each as an integral: Gauss-Jacobi quadrature over the Beta(a, b) base rate and
Gauss-Hermite over the normal shifts. M1, M2, M3 do not involve rho (two paraphrases have independent
shifts), so (mu, kappa, sigma) solve M1..M3 by Newton's method, then rho solves M4 (monotone in rho).
Everything is vectorised over bootstrap resamples, which enter as persona and paraphrase multiplicities
(pairs of a paraphrase with its own copy are left out, as the data have no such pairs).

Another response type (e.g. ordinal) plugs in its own cell statistics and model moments; the solver and
bootstrap do not depend on the Yes/No scale beyond `cell_statistics` and `model_moments`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.polynomial.hermite_e import hermegauss

KAPPA_MAX, SIGMA_MIN, SIGMA_MAX = 1e4, 1e-3, 10.0
_Z, _WZ = hermegauss(24)
_WZ = _WZ / _WZ.sum()


def beta_nodes(a: np.ndarray, b: np.ndarray, q: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Jacobi nodes and weights (rows sum to 1) for Beta(a, b) on [0, 1], one row per (a, b):
    Golub-Welsch on the Jacobi recurrence, batched with one eigh call."""
    al, be = (np.asarray(b, float) - 1)[:, None], (np.asarray(a, float) - 1)[:, None]
    n = np.arange(q)[None, :]
    s = 2 * n + al + be
    with np.errstate(divide="ignore", invalid="ignore"):
        diag = (be - al) * (be + al) / (s * (s + 2))
        off = 4 * n * (n + al) * (n + be) * (n + al + be) / (s**2 * (s + 1) * (s - 1))
    diag[:, 0] = ((be - al) / (al + be + 2))[:, 0]
    if q > 1:  # n = 1: the factor (1 + al + be) cancels, and may be 0
        off[:, 1] = (4 * (1 + al) * (1 + be) / ((2 + al + be) ** 2 * (3 + al + be)))[:, 0]
    jac = np.zeros((len(diag), q, q))
    idx = np.arange(q)
    jac[:, idx, idx] = diag
    jac[:, idx[1:], idx[:-1]] = jac[:, idx[:-1], idx[1:]] = np.sqrt(np.maximum(off[:, 1:], 0))
    x, vec = np.linalg.eigh(jac)
    w = vec[:, 0, :] ** 2
    return np.clip((1 + x) / 2, 0.0, 1.0), w / w.sum(axis=1, keepdims=True)


def _expit_shift(p: np.ndarray, x: np.ndarray) -> np.ndarray:
    """expit(logit p + x) without taking logit p (p may be 0 or 1 at extreme nodes)."""
    return p / (p + (1 - p) * np.exp(-x))


def base_moments(mu, kappa, sigma, q: int = 24):
    """Model M1, M2, M3 (no rho), and the quadrature reused by shared_moment."""
    p, wp = beta_nodes(mu * kappa, (1 - mu) * kappa, q)
    e = _expit_shift(p[:, :, None], sigma[:, None, None] * _Z)  # (B, q, H)
    g = e @ _WZ  # persona-level mean over paraphrase shifts
    return (wp * g).sum(1), (wp * (e**2 @ _WZ)).sum(1), (wp * g**2).sum(1), (p, wp)


def shared_moment(nodes, sigma, rho) -> np.ndarray:
    """Model M4: two personas under the same paraphrase share its shift u ~ N(0, rho sigma^2)."""
    p, wp = nodes
    s_u, s_v = sigma * np.sqrt(rho), sigma * np.sqrt(1 - rho)
    x = s_u[:, None, None, None] * _Z[:, None, None] + s_v[:, None, None, None] * _Z  # (B, H, 1, H)
    h = ((wp[:, None, :] * (_expit_shift(p[:, None, :, None], x) @ _WZ)).sum(-1))  # (B, H): E over p, v
    return h**2 @ _WZ


@dataclass
class CellStatistics:
    """Per-cell unbiased statistics of one message's (n, m) counts; zero where a cell has no data."""

    theta: np.ndarray  # y / r
    theta_ok: np.ndarray  # r >= 1
    square: np.ndarray  # y (y - 1) / (r (r - 1))
    square_ok: np.ndarray  # r >= 2


def cell_statistics(yes, valid) -> CellStatistics:
    yes, valid = np.asarray(yes, float), np.asarray(valid, float)
    ok, ok2 = valid >= 1, valid >= 2
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.where(ok, yes / valid, 0.0)
        square = np.where(ok2, yes * (yes - 1) / (valid * (valid - 1)), 0.0)
    return CellStatistics(theta, ok.astype(float), square, ok2.astype(float))


def _pair_sum(x, ok, w_rows, c_cols):
    """sum_rows w_i sum_{j != j'} c_j c_j' x_ij x_ij' (and the same count of pairs with data), per resample."""
    num = (x @ c_cols.T) ** 2 - (x**2) @ (c_cols**2).T  # (rows, B)
    den = (ok @ c_cols.T) ** 2 - ok @ (c_cols**2).T
    return (num.T * w_rows).sum(1), (den.T * w_rows).sum(1)


def data_moments(cs: CellStatistics, w: np.ndarray, c: np.ndarray) -> np.ndarray:
    """(B, 5) estimates of M1, M2, M3, M4, M1^2 under persona weights w (B, n) and paraphrase weights c (B, m)."""
    def cell_mean(x, ok):
        return ((w @ x) * c).sum(1) / ((w @ ok) * c).sum(1)

    n3, d3 = _pair_sum(cs.theta, cs.theta_ok, w, c)
    n4, d4 = _pair_sum(cs.theta.T, cs.theta_ok.T, c, w)
    n0, d0 = _cross_sum(cs.theta, w, c), _cross_sum(cs.theta_ok, w, c)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.stack([cell_mean(cs.theta, cs.theta_ok), cell_mean(cs.square, cs.square_ok),
                         n3 / d3, n4 / d4, n0 / d0], axis=1)


def _cross_sum(x, w, c):
    """sum over ordered cell pairs with i != i' and j != j' of w_i w_i' c_j c_j' x_ij x_i'j', per resample:
    all pairs, less those sharing a persona or a paraphrase, plus those sharing both (counted twice)."""
    total = ((w @ x) * c).sum(1) ** 2
    same_row = ((x @ c.T) ** 2).T * w**2
    same_col = ((x.T @ w.T) ** 2).T * c**2
    same_cell = ((w**2 @ x**2) * c**2).sum(1)
    return total - same_row.sum(1) - same_col.sum(1) + same_cell


def _residuals(theta, d):
    mu, kappa, sigma = 1 / (1 + np.exp(-theta[:, 0])), np.exp(theta[:, 1]), np.exp(theta[:, 2])
    m1, m2, m3, _ = base_moments(mu, kappa, sigma)
    # M1, the between-persona and the within-persona variance: each on its own scale
    return np.stack([m1 - d[:, 0], (m3 - m1**2) - (d[:, 2] - d[:, 4]), (m2 - m3) - (d[:, 1] - d[:, 2])], 1)


_LO = np.array([-12.0, np.log(1e-2), np.log(SIGMA_MIN)])
_HI = np.array([12.0, np.log(KAPPA_MAX), np.log(SIGMA_MAX)])


def _solve_base(d: np.ndarray, iterations: int = 40) -> np.ndarray:
    """(mu, kappa, sigma) matching M1..M3, per row of d: damped Newton in (logit mu, log kappa, log sigma)
    with a forward-difference Jacobian, clamped to the box above."""
    m1 = np.clip(d[:, 0], 1e-6, 1 - 1e-6)
    between = np.maximum(d[:, 2] - d[:, 4], 1e-8)
    within = np.maximum(d[:, 1] - d[:, 2], 1e-8)
    theta = np.clip(np.stack([np.log(m1 / (1 - m1)), np.log(np.clip(m1 * (1 - m1) / between - 1, 0.1, 1e3)),
                              np.log(np.clip(np.sqrt(within) / (m1 * (1 - m1)), 0.05, 5))], 1), _LO, _HI)
    f = _residuals(theta, d)
    step_h = 1e-6
    for _ in range(iterations):
        norm = np.abs(f).max(1)
        active = norm > 1e-11
        if not active.any():
            break
        th, ff, dd = theta[active], f[active], d[active]
        jac = np.empty((len(th), 3, 3))
        for k in range(3):
            shifted = th.copy()
            shifted[:, k] += step_h
            jac[:, :, k] = (_residuals(shifted, dd) - ff) / step_h
        # a singular direction (e.g. kappa at its bound) gets no step rather than a wild one
        step = _batched_solve(jac, -ff)
        scale = np.ones(len(th))
        best_th, best_f = th, ff
        for _ in range(6):  # backtracking: halve the step until the residual shrinks
            trial = np.clip(th + scale[:, None] * step, _LO, _HI)
            ft = _residuals(trial, dd)
            better = np.abs(ft).max(1) < np.abs(best_f).max(1)
            best_th = np.where(better[:, None], trial, best_th)
            best_f = np.where(better[:, None], ft, best_f)
            if better.all():
                break
            scale = np.where(better, scale, scale / 2)
        stuck = (best_f == ff).all(1)
        theta[active], f[active] = best_th, best_f
        if stuck.all():
            break
    mu, kappa, sigma = 1 / (1 + np.exp(-theta[:, 0])), np.exp(theta[:, 1]), np.exp(theta[:, 2])
    # At the bounds the data say "no spread": kappa infinite, sigma 0.
    kappa = np.where(theta[:, 1] >= _HI[1] - 1e-9, np.inf, kappa)
    sigma = np.where(theta[:, 2] <= _LO[2] + 1e-9, 0.0, sigma)
    return np.stack([mu, kappa, sigma], 1)


def _batched_solve(jac, rhs):
    """Least-squares solution per row (pinv handles a singular Jacobian at a bound)."""
    return (np.linalg.pinv(jac, rcond=1e-10) @ rhs[:, :, None])[:, :, 0]


def _solve_rho(mu, kappa, sigma, shared, iterations: int = 12) -> np.ndarray:
    """rho in [0, 1] with M4(rho) - M1^2 = shared (the estimated covariance of two personas under one
    paraphrase), by the Illinois variant of regula falsi (M4 rises with rho)."""
    kappa = np.minimum(kappa, KAPPA_MAX)
    m1, _, _, nodes = base_moments(mu, kappa, sigma)
    d4 = shared + m1**2
    lo, hi = np.zeros_like(mu), np.ones_like(mu)
    f_lo = m1**2 - d4  # at rho = 0 two personas are independent: M4 = M1^2
    f_hi = shared_moment(nodes, sigma, hi) - d4
    rho = np.where(f_lo >= 0, 0.0, np.where(f_hi <= 0, 1.0, np.nan))
    open_ = np.isnan(rho) & (sigma > 0)
    rho = np.where(np.isnan(rho), 0.0, rho)
    side = np.zeros_like(mu)
    for _ in range(iterations):
        if not open_.any():
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(open_, (lo * f_hi - hi * f_lo) / (f_hi - f_lo), 0.5)
        fx = shared_moment(nodes, sigma, np.clip(x, 0, 1)) - d4
        left = fx < 0  # the root lies above x
        lo, f_lo = np.where(left, x, lo), np.where(left, fx, f_lo)
        hi, f_hi = np.where(left, hi, x), np.where(left, f_hi, fx)
        # Illinois: halve the stale end's value so both ends move
        f_hi = np.where(left & (side == 1), f_hi / 2, f_hi)
        f_lo = np.where(~left & (side == -1), f_lo / 2, f_lo)
        side = np.where(left, 1, -1)
        rho = np.where(open_, x, rho)
        open_ &= np.abs(fx) > 1e-12
    return np.clip(rho, 0.0, 1.0)


def fit_moments(d: np.ndarray) -> np.ndarray:
    """(B, 4) rows of (mu, kappa, sigma, rho) from (B, 5) rows of estimated M1, M2, M3, M4, M1^2."""
    out = np.full((len(d), 4), np.nan)
    finite = np.isfinite(d).all(1) & (d[:, 0] > 0) & (d[:, 0] < 1)
    if finite.any():
        base = _solve_base(d[finite])
        out[finite, :3] = base
        out[finite, 3] = _solve_rho(base[:, 0], base[:, 1], base[:, 2], d[finite, 3] - d[finite, 4])
    return out


def resample_weights(n: int, m: int, n_boot: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """Multiplicities of personas and paraphrases drawn with replacement (both at once), one row each."""
    rng = np.random.default_rng(seed)
    return (rng.multinomial(n, np.full(n, 1 / n), size=n_boot).astype(float),
            rng.multinomial(m, np.full(m, 1 / m), size=n_boot).astype(float))
