"""The estimator of appendix C of Helm & Priebe (2026), "When prompt perturbations break your A/B test:
A valid statistical test for generative surveying": Beta MLE for the persona base rates, then moments on
the logit scale for sigma and rho. Run it on one message (or on null data).

Continuity correction (ours): every proportion that goes through a logit or the Beta likelihood
is (yes + 1/2) / (valid + 1), which keeps 0/r and r/r finite and shrinks them symmetrically.

Known bias: binomial noise from r replicates inflates sigma^2 (it adds roughly
1/(r p (1-p)) on the logit scale), and with it the shared share rho is understated; the table
in docs/estimator-bias.md measures both on simulated data.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special

from survey.data.table import cell_counts
from survey.errors import SurveyError
from survey.stats.comparison import nanmean

PARAMS = ("mu", "kappa", "a", "b", "sigma", "rho")

# Shown next to every rho-hat until a less biased estimator replaces this one.
RHO_BIAS_NOTE = ("appendix-C estimator: rho-hat is biased downward by replicate noise (about -0.17 at r = 5, "
                 "sigma = 1, rho = 0.3; see docs/estimator-bias.md)")


@dataclass
class EstimateResult:
    mu: float
    kappa: float
    a: float
    b: float
    sigma: float
    rho: float
    n_personas: int
    n_perturbations: int
    n_cells: int  # cells with at least one valid answer
    se: dict = field(default_factory=dict)  # bootstrap standard errors, by parameter
    n_bootstrap: int = 0
    note: str = ""  # why a parameter is not finite (degenerate responses)

    def to_dict(self) -> dict:
        out = {p: getattr(self, p) for p in PARAMS}
        out.update({"n_personas": self.n_personas, "n_perturbations": self.n_perturbations,
                    "n_cells": self.n_cells, "se": self.se, "n_bootstrap": self.n_bootstrap,
                    "rho_note": RHO_BIAS_NOTE})
        if self.note:
            out["note"] = self.note
        return out


def _cc(yes, valid):
    return (yes + 0.5) / (valid + 1.0)


def fit_beta(p: np.ndarray) -> tuple[float, float]:
    """Maximum-likelihood Beta(a, b) for proportions in (0, 1), by Nelder-Mead on (log a, log b)."""
    p = np.asarray(p, dtype=float)
    lp, l1p = np.log(p).sum(), np.log1p(-p).sum()
    n = len(p)
    mean, var = p.mean(), p.var()
    # Method-of-moments start; fall back to a flat prior when the spread is degenerate.
    common = mean * (1 - mean) / var - 1 if var > 0 else 2.0
    start = np.log(np.clip([mean * common, (1 - mean) * common], 1e-3, 1e4))

    def nll(theta):
        a, b = np.exp(theta)
        return -((a - 1) * lp + (b - 1) * l1p - n * special.betaln(a, b))

    res = optimize.minimize(nll, start, method="Nelder-Mead",
                            options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 4000})
    a, b = np.exp(res.x)
    return float(a), float(b)


def estimate_counts(yes: np.ndarray, valid: np.ndarray) -> EstimateResult:
    """Estimate (mu, kappa, a, b, sigma, rho) from (n, m) yes and valid counts of one message."""
    yes = np.asarray(yes, dtype=float)
    valid = np.asarray(valid, dtype=float)
    n, m = yes.shape
    ok = valid > 0
    has = ok.any(axis=1)
    if has.sum() < 2 or ok.any(axis=0).sum() < 2:
        raise SurveyError("estimation needs at least 2 personas and 2 perturbations with valid answers")
    yes, valid, ok = yes[has], valid[has], ok[has]
    n = yes.shape[0]
    p_i = _cc(yes.sum(axis=1), valid.sum(axis=1))
    note = ""
    if np.ptp(p_i) < 1e-12:
        # Every persona has the same rate (e.g. a model that always says Yes): the Beta MLE does not
        # exist (kappa -> infinity). Say so instead of returning wherever the optimiser stopped.
        a = b = float("inf")
        mu = float(yes.sum() / valid.sum())
        note = "every persona has the same Yes rate: the Beta prior is degenerate (kappa infinite)"
    else:
        a, b = fit_beta(p_i)
        mu = a / (a + b)
    e = np.where(ok, special.logit(_cc(yes, valid)) - special.logit(p_i)[:, None], np.nan)
    vals = e[ok]
    sigma2 = float(np.var(vals, ddof=1)) if len(vals) > 1 else 0.0
    sigma2 = 0.0 if sigma2 < 1e-20 else sigma2  # rounding noise of identical residuals
    e_bar = nanmean(e, axis=0)
    e_bar = e_bar[~np.isnan(e_bar)]
    var_bar = float(np.var(e_bar, ddof=1)) if len(e_bar) > 1 else 0.0
    sigma2_u = (var_bar - sigma2 / n) / (1 - 1 / n)
    sigma2_u = float(np.clip(sigma2_u, 0.0, sigma2))
    rho = sigma2_u / sigma2 if sigma2 > 0 else 0.0
    return EstimateResult(mu=mu, kappa=a + b, a=a, b=b, sigma=float(np.sqrt(sigma2)), rho=rho,
                          n_personas=n, n_perturbations=m, n_cells=int(ok.sum()), note=note)


def bootstrap_se(yes, valid, n_boot: int = 200, seed=0) -> dict:
    """Standard errors from resampling personas and perturbations with replacement (both at once)."""
    rng = np.random.default_rng(seed)
    yes, valid = np.asarray(yes), np.asarray(valid)
    n, m = yes.shape
    draws = {p: [] for p in PARAMS}
    for _ in range(int(n_boot)):
        ii = rng.integers(0, n, n)
        jj = rng.integers(0, m, m)
        try:
            est = estimate_counts(yes[np.ix_(ii, jj)], valid[np.ix_(ii, jj)])
        except SurveyError:  # a resample with one distinct persona: skip it, it carries no spread
            continue
        for p in PARAMS:
            draws[p].append(getattr(est, p))
    # Resamples where the prior is degenerate (kappa infinite) carry no spread information: skip them.
    draws = {p: [x for x in v if np.isfinite(x)] for p, v in draws.items()}
    return {p: float(np.std(v, ddof=1)) if len(v) > 1 else float("nan") for p, v in draws.items()}


def estimate(df, model: str, message: str, bootstrap: int = 0, seed=0) -> EstimateResult:
    """Estimate the model for one (model, message) of a validated long table."""
    cc = cell_counts(df, model, message)
    res = estimate_counts(cc.yes, cc.valid)
    if bootstrap:
        res.se = bootstrap_se(cc.yes, cc.valid, bootstrap, seed)
        res.n_bootstrap = int(bootstrap)
    return res
