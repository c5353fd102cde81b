"""Estimators of the Beta-logit model of Helm & Priebe (2026), "When prompt perturbations break your A/B
test: A valid statistical test for generative surveying", run on one message (or on null data):

- "moments" (the default of `survey estimate` and `survey plan --from-table`): moments unbiased on the
  probability scale (survey.stats.moments), which needs cells with r >= 2 valid answers; with one answer
  per cell it falls back to appendix C and says so in the result's note;
- "appendix-c": the paper's appendix C: Beta MLE for the persona base rates, then moments on the logit
  scale for sigma and rho.

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

from survey.common.formatting import finite
from survey.data.table import cell_counts
from survey.errors import SurveyError
from survey.stats import moments
from survey.stats.comparison import nanmean

PARAMS = ("mu", "kappa", "a", "b", "sigma", "rho")
METHODS = ("moments", "appendix-c")
CONFIDENCE = 0.95  # of the bootstrap percentile intervals

# Shown next to every rho-hat of the appendix-C estimator.
RHO_BIAS_NOTE = ("appendix-C estimator: rho-hat is biased downward by replicate noise (about -0.17 at r = 5, "
                 "sigma = 1, rho = 0.3; see docs/estimator-bias.md)")

MOMENTS_NOTE = ("moment estimator (unbiased on the probability scale): rho-hat's bias is within +-0.013 at "
                "sigma >= 1 or r >= 5, but up to +0.08 at sigma = 0.5 with r = 2 (see docs/estimator-bias.md)")
FALLBACK_NOTE = ("one valid answer per cell: the moment estimator needs r >= 2 replicates to separate "
                 "sigma from the binomial noise, so these are the appendix-C estimates (rho-hat biased downward)")


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
    note: str = ""  # why a parameter is not finite (degenerate responses), or why the method fell back
    method: str = "appendix-c"  # the estimator that produced these numbers
    ci: dict = field(default_factory=dict)  # 95% bootstrap percentile intervals, by parameter

    @property
    def rho_note(self) -> str:
        return RHO_BIAS_NOTE if self.method == "appendix-c" else MOMENTS_NOTE

    # The fit protocol (survey.stats.results): what every kind's fitted model answers alike.
    model_name = "Beta-logit"

    @property
    def params(self) -> dict[str, float]:
        """The fitted parameters, in the order reports show them."""
        return {p: getattr(self, p) for p in ("mu", "kappa", "sigma", "rho")}

    @property
    def estimator(self) -> str:
        return self.method

    @property
    def notes(self) -> list[str]:
        return [n for n in (self.note, self.rho_note) if n]

    def summary(self) -> dict:
        """The compact form a model's line across models shows (JSON-safe)."""
        return {**{k: finite(getattr(self, k)) for k in ("mu", "kappa", "sigma", "rho", "a", "b")},
                "se": {k: finite(v) for k, v in self.se.items()}, "n_bootstrap": self.n_bootstrap,
                "rho_note": self.rho_note}

    def to_dict(self) -> dict:
        out = {p: getattr(self, p) for p in PARAMS}
        out.update({"method": self.method, "n_personas": self.n_personas, "n_perturbations": self.n_perturbations,
                    "n_cells": self.n_cells, "se": self.se, "ci": self.ci, "confidence": CONFIDENCE,
                    "n_bootstrap": self.n_bootstrap, "rho_note": self.rho_note})
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
    return summarize_draws(bootstrap_draws(yes, valid, n_boot, seed))[0]


def summarize_draws(draws: dict) -> tuple[dict, dict]:
    """(standard errors, percentile intervals) of bootstrap draws by parameter. Resamples where the
    prior is degenerate (kappa infinite) carry no spread information: skipped."""
    draws = {p: np.asarray([x for x in v if np.isfinite(x)], float) for p, v in draws.items()}
    tail = 50 * (1 - CONFIDENCE)
    se = {p: float(np.std(v, ddof=1)) if len(v) > 1 else float("nan") for p, v in draws.items()}
    ci = {p: [float(x) for x in np.percentile(v, [tail, 100 - tail])] if len(v) > 1 else [float("nan")] * 2
          for p, v in draws.items()}
    return se, ci


def bootstrap_draws(yes, valid, n_boot: int = 200, seed=0) -> dict:
    """Appendix-C estimates on resamples of personas and perturbations, by parameter."""
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
    return draws


def _with_ab(fit: np.ndarray) -> dict:
    """(mu, kappa, sigma, rho) columns -> every parameter of PARAMS."""
    mu, kappa, sigma, rho = fit.T
    with np.errstate(invalid="ignore"):
        return {"mu": mu, "kappa": kappa, "a": mu * kappa, "b": (1 - mu) * kappa, "sigma": sigma, "rho": rho}


# Measured bias of the moment estimator below the documented grid (scripts/small_design_bias.py, 400 simulated
# surveys per cell at mu = 0.5, kappa = 4, rho = 0.3; docs/estimator-bias.md, "Small designs"):
# (n, m, r) -> (largest sigma-hat bias, at sigma; largest rho-hat bias, at sigma) over sigma in 0.5, 1, 2.
SMALL_DESIGN_BIAS = {
    (10, 4, 2): (+0.428, 2, +0.082, 0.5),
    (10, 4, 5): (+0.203, 2, +0.053, 0.5),
    (10, 6, 2): (+0.190, 2, +0.072, 1),
    (10, 6, 5): (+0.133, 2, +0.095, 0.5),
    (10, 8, 2): (+0.227, 2, +0.084, 1),
    (10, 8, 5): (+0.120, 2, +0.043, 0.5),
    (10, 10, 2): (+0.131, 2, +0.106, 0.5),
    (10, 10, 5): (+0.086, 2, +0.094, 0.5),
    (20, 4, 2): (+0.291, 2, +0.088, 0.5),
    (20, 4, 5): (+0.142, 2, +0.084, 0.5),
    (20, 6, 2): (+0.112, 2, +0.120, 0.5),
    (20, 6, 5): (+0.070, 2, +0.079, 0.5),
    (20, 8, 2): (+0.082, 2, +0.090, 1),
    (20, 8, 5): (+0.078, 2, +0.057, 0.5),
    (20, 10, 2): (+0.085, 2, +0.110, 0.5),
    (20, 10, 5): (+0.056, 2, +0.065, 0.5),
    (30, 4, 2): (+0.128, 2, +0.037, 0.5),
    (30, 4, 5): (+0.129, 2, +0.050, 0.5),
    (30, 6, 2): (+0.108, 2, +0.098, 0.5),
    (30, 6, 5): (+0.064, 2, +0.041, 0.5),
    (30, 8, 2): (+0.039, 2, +0.112, 0.5),
    (30, 8, 5): (+0.039, 2, +0.018, 0.5),
    (30, 10, 2): (+0.046, 2, +0.088, 0.5),
    (30, 10, 5): (+0.054, 2, +0.048, 0.5),
}
# The same at rho = 0.6 (scripts/small_design_bias.py 400 0.6): sigma-hat's bias about doubles (a shared shift
# that large leaves fewer independent paraphrases to estimate sigma from) and rho-hat's turns downward.
SMALL_DESIGN_BIAS_RHO_06 = {
    (10, 4, 2): (+0.560, 2, -0.176, 0.5),
    (10, 4, 5): (+0.360, 2, -0.110, 0.5),
    (10, 6, 2): (+0.376, 2, -0.125, 0.5),
    (10, 6, 5): (+0.219, 2, -0.024, 2),
    (10, 8, 2): (+0.278, 2, -0.116, 0.5),
    (10, 8, 5): (+0.178, 2, -0.042, 0.5),
    (10, 10, 2): (+0.170, 2, -0.082, 0.5),
    (10, 10, 5): (+0.110, 2, -0.014, 2),
    (20, 4, 2): (+0.453, 2, -0.129, 0.5),
    (20, 4, 5): (+0.299, 2, -0.054, 2),
    (20, 6, 2): (+0.238, 2, -0.055, 0.5),
    (20, 6, 5): (+0.142, 2, -0.041, 2),
    (20, 8, 2): (+0.126, 2, -0.097, 0.5),
    (20, 8, 5): (+0.144, 2, -0.017, 0.5),
    (20, 10, 2): (+0.135, 2, -0.043, 0.5),
    (20, 10, 5): (+0.093, 2, -0.016, 1),
    (30, 4, 2): (+0.229, 2, -0.119, 0.5),
    (30, 4, 5): (+0.315, 2, -0.059, 2),
    (30, 6, 2): (+0.188, 2, -0.043, 0.5),
    (30, 6, 5): (+0.129, 2, -0.044, 2),
    (30, 8, 2): (+0.091, 2, +0.024, 1),
    (30, 8, 5): (+0.090, 2, -0.025, 1),
    (30, 10, 2): (+0.062, 2, -0.035, 0.5),
    (30, 10, 5): (+0.092, 2, -0.024, 1),
}
SMALL_BIAS_NOTED = 0.05  # a bias this large or larger is said beside the estimates


def small_design_note(n: int, m: int, r: int) -> str | None:
    """What simulations measured for the moment estimator at a design this small (the nearest measured cell at or
    below it), at rho = 0.3 and 0.6, when a bias reached SMALL_BIAS_NOTED at either; None for designs larger than
    30 personas x 10 paraphrases."""
    if n > 30 or m > 10:
        return None
    cell = (max([g for g in (10, 20, 30) if g <= n] or [10]), max([g for g in (4, 6, 8, 10) if g <= m] or [4]),
            5 if r >= 5 else 2)
    low, high = SMALL_DESIGN_BIAS[cell], SMALL_DESIGN_BIAS_RHO_06[cell]  # measured at rho = 0.3 and 0.6
    if max(abs(low[0]), abs(low[2]), abs(high[0]), abs(high[2])) < SMALL_BIAS_NOTED:
        return None
    def at(a, b):
        return f"at sigma = {a:g}" if a == b else f"at sigma = {a:g} and {b:g}"

    return (f"small design (n = {n}, m = {m}, r = {r}): at this size simulations measured sigma-hat biased by up to "
            f"{low[0]:+.2f} at rho = 0.3 and {high[0]:+.2f} at rho = 0.6 ({at(low[1], high[1])}) and rho-hat by up "
            f"to {low[2]:+.2f} at rho = 0.3 and {high[2]:+.2f} at rho = 0.6 ({at(low[3], high[3])}); see "
            "docs/estimator-bias.md, Small designs")


def moment_estimate(yes, valid, bootstrap: int = 0, seed=0) -> EstimateResult:
    """The moment estimator (survey.stats.moments) on (n, m) yes and valid counts, with ``bootstrap``
    resamples of personas and paraphrases for standard errors and percentile intervals, fitted in one
    vectorised batch. Without two cells of r >= 2 valid answers, M2 (which separates sigma from the
    binomial noise) has no unbiased estimate: then it is the appendix-C estimate, and the note says so."""
    yes, valid = np.asarray(yes, float), np.asarray(valid, float)
    full = estimate_counts(yes, valid)  # checks the shape; its counts and degenerate cases are shared
    stats = moments.cell_statistics(yes, valid)
    n, m = yes.shape
    if stats.square_ok.sum() < 2:
        full.note = " ".join(filter(None, [full.note, FALLBACK_NOTE]))
        if bootstrap:
            full.se, full.ci = summarize_draws(bootstrap_draws(yes, valid, bootstrap, seed))
            full.n_bootstrap = int(bootstrap)
        return full
    w, c = np.ones((1, n)), np.ones((1, m))
    if bootstrap:
        bw, bc = moments.resample_weights(n, m, bootstrap, seed)
        w, c = np.vstack([w, bw]), np.vstack([c, bc])
    fits = _with_ab(moments.fit_moments(moments.data_moments(stats, w, c)))
    point = {p: float(v[0]) for p, v in fits.items()}
    note = full.note  # degenerate answers (every persona alike) are named as appendix C names them
    if not np.isfinite(point["mu"]):  # every answer the same: the moments cannot be solved
        point = {p: float(getattr(full, p)) for p in PARAMS}
    elif point["kappa"] == float("inf") and not note:
        note = "personas' Yes rates vary no more than paraphrase and replicate noise explain: kappa infinite"
    r = int(np.max(valid)) if valid.size else 0
    small = small_design_note(n, m, r)
    note = " ".join(filter(None, [note, small]))
    res = EstimateResult(**point, n_personas=full.n_personas, n_perturbations=m, n_cells=full.n_cells,
                         note=note, method="moments")
    if bootstrap:
        res.se, res.ci = summarize_draws({p: v[1:] for p, v in fits.items()})
        res.n_bootstrap = int(bootstrap)
    return res


def fit_beta_logit(df, model: str, message: str, bootstrap: int = 0, seed=0, method: str = "moments") -> EstimateResult:
    """The Beta-logit model of one (model, message) of a validated long table by ``method``: "moments"
    (the default everywhere) or "appendix-c" (the paper's estimator, only where asked for). The public
    entry point for every kind is survey.stats.estimate (survey.stats.analysis.estimate)."""
    if method not in METHODS:
        raise SurveyError(f"unknown estimation method '{method}'; choose one of {', '.join(METHODS)}")
    cc = cell_counts(df, model, message)
    if method == "moments":
        return moment_estimate(cc.yes, cc.valid, bootstrap, seed)
    res = estimate_counts(cc.yes, cc.valid)
    if bootstrap:
        res.se, res.ci = summarize_draws(bootstrap_draws(cc.yes, cc.valid, bootstrap, seed))
        res.n_bootstrap = int(bootstrap)
    return res
