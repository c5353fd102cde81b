"""The arithmetic of prediction-powered inference on many datasets at once (rows of 2-D arrays), for
simulations and planning, and the variance parts the single-dataset estimators of survey.stats.ppi reuse.

Method and small-sample corrections: see survey.stats.ppi. No input checks here: survey.stats.ppi checks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PPIArm:
    """One arm of a PPI comparison: the humans' answers ``y``, the model's predictions ``f`` for those humans,
    the predictions ``f_unlabeled`` for further personas from the same population, and optional weights of the
    humans (``w``) and of the personas (``w_unlabeled``). 1-D for one dataset, 2-D (rows) for many at once."""

    y: object
    f: object
    f_unlabeled: object
    w: object = None
    w_unlabeled: object = None


VARIANCES = ("linearised", "ppi_py")


def spread(w, x, variance: str = "linearised"):
    """Per row, the variance behind a weighted mean's s.e. (weights of mean 1): the linearised (Hajek) form
    Var(w (x - mean(w x))), or ppi_py's uncentred Var(w x). Equal when the weights are all 1; with varying weights
    the uncentred form is off by mean(w x)^2 Var(w) plus a cross term of either sign, so it can undercover."""
    if variance == "ppi_py":
        return (w * x).var(axis=1)
    return (w * (x - (w * x).mean(axis=1, keepdims=True))).var(axis=1)


def ppi_mean_arrays(y, yhat, yhat_unlabeled, lam=None, w=None, w_unlabeled=None, variance: str = "linearised",
                    with_df: bool = False):
    """The PPI estimate, s.e. and lambda of many datasets at once: rows of (S, n), (S, n), (S, N) arrays.

    Returns (estimate, se, lam), each of shape (S,), and with ``with_df`` the degrees of freedom of the t
    quantile the interval uses (inf under ``variance="ppi_py"``: the normal one). ``lam`` None tunes each row's
    lambda (clipped to [0, 1]; 0 where the predictions do not vary), a number fixes it. ``w``, ``w_unlabeled``:
    optional weights of the humans and the personas (e.g. to the target population's make-up), rescaled to sum
    to n and N as ppi_py does; ``variance`` "linearised" (the default: the weighted means' linearised variance
    with the small-sample divisors) or "ppi_py" (its arithmetic exactly, kept to check agreement; see
    ``spread``). No input checks: ``ppi_mean`` checks. Used by simulations, which need thousands of datasets in
    one pass.
    """
    y, f, fu = (np.atleast_2d(np.asarray(a, dtype=float)) for a in (y, yhat, yhat_unlabeled))
    w, wu = normalised_weights(w, y.shape), normalised_weights(w_unlabeled, fu.shape)
    tuned = lam is None
    if tuned:
        lam = tuned_lambda(y, f, fu, w, wu)
    lam = np.broadcast_to(np.asarray(lam, dtype=float), (y.shape[0],))
    resid = y - lam[:, None] * f
    estimate = lam * (wu * fu).mean(axis=1) + (w * resid).mean(axis=1)
    humans, humans_df = humans_part(w, resid, variance, tuned)
    personas = lam ** 2 * personas_part(wu, fu, variance)
    df = satterthwaite((humans, humans_df), (personas, np.inf if variance == "ppi_py" else fu.shape[1] - 1.0))
    out = (estimate, np.sqrt(humans + personas), np.array(lam))
    return (*out, df) if with_df else out


def humans_part(w, resid, variance: str, tuned: bool):
    """The humans' share of the estimate's variance, Var(w (Y - lambda f)) / n per row, and its degrees of freedom:
    ppi_py's divisor n and infinite degrees of freedom under ``variance="ppi_py"``, else the divisor n_eff - 2
    for a tuned lambda (n_eff - 1 for a fixed one) on n_eff, the Kish effective number of weighted humans (n
    without weights). A tuned lambda is a fitted slope: like a regression's, it makes the residuals look less
    variable than they are, by a factor (n - 2) / n."""
    n = resid.shape[1]
    if variance == "ppi_py":
        return spread(w, resid, "ppi_py") / n, np.full(resid.shape[0], np.inf)
    n_eff = w.sum(axis=1) ** 2 / (w ** 2).sum(axis=1)
    df = np.maximum(n_eff - (2 if tuned else 1), 1.0)
    return spread(w, resid) / n * n_eff / df, df


def personas_part(wu, fu, variance: str):
    """Var(w~ f~) / N per row (before lambda^2): divisor N under ``variance="ppi_py"``, else N - 1."""
    big_n = fu.shape[1]
    return spread(wu, fu, variance) / (big_n if variance == "ppi_py" else big_n - 1)


def satterthwaite(*parts):
    """Degrees of freedom of a sum of independent variance estimates ((variance, df) pairs, arrays per row):
    Welch-Satterthwaite's (sum v)^2 / sum(v^2 / df); inf when every df is."""
    total = sum(v for v, _ in parts)
    with np.errstate(divide="ignore", invalid="ignore"):
        denominator = sum(np.where(v > 0, v ** 2 / df, 0.0) for v, df in parts)
        return np.where(denominator > 0, total ** 2 / denominator, np.inf)


def normalised_weights(w, shape) -> np.ndarray:
    if w is None:
        return np.ones(shape)
    w = np.broadcast_to(np.asarray(w, dtype=float), shape)
    return w / w.sum(axis=1, keepdims=True) * shape[1]


def tuned_lambda(y, f, fu, w=1.0, wu=1.0) -> np.ndarray:
    """PPI++ lambda = Cov(Y, f) / ((1 + n/N) Var(f)) per row, clipped to [0, 1], with ppi_py's divisors and
    weighting (the weighted gradients w (Y - theta), w (f - theta) at the lambda = 1 estimate theta)."""
    n, big_n = y.shape[1], fu.shape[1]
    theta = ((wu * fu).mean(axis=1) + (w * (y - f)).mean(axis=1))[:, None]
    gy, gf, gfu = w * (y - theta), w * (f - theta), wu * (fu - theta)
    cov = ((gy - gy.mean(axis=1, keepdims=True)) * (gf - gf.mean(axis=1, keepdims=True))).mean(axis=1)
    var_f = np.concatenate([gf, gfu], axis=1).var(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = cov / ((1 + n / big_n) * var_f)
    # constant predictions carry no information about who answers what: the humans alone
    return np.clip(np.where(var_f > 0, lam, 0.0), 0.0, 1.0)


def ppi_between_arrays(a: PPIArm, b: PPIArm, lam=None, *, same_personas: bool = False,
                       variance: str = "linearised", with_df: bool = False):
    """The between-subjects PPI effect A - B of many datasets at once: two arms of rows, (S, n_A), (S, N_A), ...

    Returns (estimate, se, lam_a, lam_b), each of shape (S,), and with ``with_df`` the Welch-Satterthwaite degrees
    of freedom: each arm is ``ppi_mean_arrays`` on its own humans and personas (with its own weights), and the s.e.
    adds the arms' variances as ``ppi_mean_arrays`` does for one arm (``humans_part``, ``personas_part``).
    With ``same_personas`` row j of both persona arrays is one persona (one weight ``a.w_unlabeled``, which
    must equal ``b.w_unlabeled``): the imputed variance is Var(w~ (lambda_A f~(A) - lambda_B f~(B))) / N.
    No input checks: ``ppi_between_effect`` checks.
    """
    arms = []
    for y, f, fu, w, wu in ((arm.y, arm.f, arm.f_unlabeled, arm.w, arm.w_unlabeled) for arm in (a, b)):
        y, f, fu = (np.atleast_2d(np.asarray(x, dtype=float)) for x in (y, f, fu))
        est, _, arm_lam = ppi_mean_arrays(y, f, fu, lam, w, wu, variance)
        w = normalised_weights(w, y.shape)
        humans = humans_part(w, y - arm_lam[:, None] * f, variance, lam is None)
        arms.append((est, arm_lam[:, None], humans, fu, normalised_weights(wu, fu.shape)))
    (est_a, la, humans_a, fu_a, wu_a), (est_b, lb, humans_b, fu_b, wu_b) = arms
    if same_personas:
        personas = [(personas_part(wu_a, la * fu_a - lb * fu_b, variance), fu_a.shape[1] - 1.0)]
    else:
        personas = [(la[:, 0] ** 2 * personas_part(wu_a, fu_a, variance), fu_a.shape[1] - 1.0),
                    (lb[:, 0] ** 2 * personas_part(wu_b, fu_b, variance), fu_b.shape[1] - 1.0)]
    if variance == "ppi_py":
        personas = [(v, np.inf) for v, _ in personas]
    parts = [humans_a, humans_b, *personas]
    out = (est_a - est_b, np.sqrt(sum(v for v, _ in parts)), la[:, 0], lb[:, 0])
    return (*out, satterthwaite(*parts)) if with_df else out
