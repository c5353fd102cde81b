"""A moment estimator of (tau, sigma, rho, cuts) of the ordinal model (survey.kinds.ordinal.model) for one
message, unbiased for the replicate noise, with bootstrap standard errors over personas and paraphrases.

It follows the probability-scale moment estimator of the Beta-logit model (survey.stats.moments) for
the Helm & Priebe (2026) "When prompt perturbations break your A/B test" model, with scores for Yes.
With X_ij = eta_i + u_j + v_ij ~ N(0, V), V = tau^2 + sigma^2, and m(x) = E[Y | X = x] the mean score:

    shares     P(Y <= s_c) = E expit(c_c - X)              cell mean of the cumulative shares
    within     Var m(X)               = M2 - M0            M2: product of two distinct replicates of a cell
    persona    Cov(m(X_ij), m(X_ij')) = M3 - M0  (cov tau^2)        same persona, two paraphrases
    paraphrase Cov(m(X_ij), m(X_i'j)) = M4 - M0  (cov rho sigma^2)  same paraphrase, two personas
    M0 = E theta_ij theta_i'j' (no persona or paraphrase shared), an unbiased estimate of (E m)^2

Every statistic is an unbiased estimate of its model value: replicates of a cell are independent given
X_ij, so the only noise removed by design is the within-cell one (M2 uses distinct replicates, and no
moment pairs a cell with itself). The equations are solved in turn, each a monotone 1-D root:
  1. for a given V, each cut c_c matches its own cumulative share (E expit(c - X) rises in c);
  2. V matches Var m(X) with the cuts refitted at every V (the share of the score variance that sits
     between cells rises with V, from 0 at V = 0 to all of it as V grows);
  3. tau^2 in [0, V] matches the persona covariance, then rho sigma^2 in [0, V - tau^2] the paraphrase
     covariance (for bivariate normals with correlation r, Cov(f(X1), f(X2)) = sum_k a_k^2 r^k rises in r).
A value outside the parameter space is clamped to its edge, and the result says which. Expectations are
Gauss-Hermite sums (1-D, and 2-D as an outer sum over the shared part of an inner sum over the rest).

Why moments and not the marginal likelihood: the crossed random effects (persona x paraphrase) make the
likelihood an (n + m)-dimensional integral per survey; the moments need no such integral, are fast enough
to bootstrap and to study by simulation, and their bias is measured in docs/ordinal-model.md.
Using only mean scores leaves information in the category pattern unused (a possible refinement).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy.special import expit

from survey.common.formatting import finite
from survey.common.limits import BOOTSTRAP_MAX, WHY, check_seed
from survey.errors import SurveyError
from survey.stats.moments import resample_weights

V_MIN, V_MAX = 1e-6, 100.0  # latent variance searched in [V_MIN, V_MAX]; s.d. up to 10 logits
_Z, _W = hermegauss(24)
_W = _W / _W.sum()


# --- data moments ------------------------------------------------------------------------------------

def data_moments(counts, w=None, c=None) -> dict:
    """Unbiased moment statistics of one message's category counts (…, n, m, K), with optional persona
    weights w (…, n) and paraphrase weights c (…, m) (bootstrap multiplicities). Scores are taken as
    0..K-1: the moments of any consecutive scores differ by a shift, which the covariances ignore."""
    counts = np.asarray(counts, float)
    n, m, k = counts.shape[-3:]
    w = np.ones(n) if w is None else np.asarray(w, float)
    c = np.ones(m) if c is None else np.asarray(c, float)
    valid = counts.sum(-1)
    ok, ok2 = (valid >= 1).astype(float), (valid >= 2).astype(float)
    s = counts @ np.arange(k)
    q = counts @ np.arange(k) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.where(ok > 0, s / valid, 0.0)
        square = np.where(ok2 > 0, (s * s - q) / (valid * (valid - 1)), 0.0)
        cum = np.where(ok[..., None] > 0, np.cumsum(counts, -1)[..., :-1] / valid[..., None], 0.0)

    def cell_mean(x, okx):
        return np.einsum("...i,...ij,...j->...", w, x, c) / np.einsum("...i,...ij,...j->...", w, okx, c)

    def pairs_within_rows(x, okx, wr, cc):  # sum_i w_i sum_{j != j'} c_j c_j' x_ij x_ij'
        def total(y):
            return (wr * ((y * cc[..., None, :]).sum(-1) ** 2 - (y**2 * cc[..., None, :] ** 2).sum(-1))).sum(-1)
        return total(x) / total(okx)

    def cross(y):  # ordered cell pairs sharing neither persona nor paraphrase
        rows, cols = (y * c[..., None, :]).sum(-1), (y * w[..., :, None]).sum(-2)
        return ((rows * w).sum(-1) ** 2 - (w**2 * rows**2).sum(-1) - (c**2 * cols**2).sum(-1)
                + (w[..., :, None] ** 2 * c[..., None, :] ** 2 * y**2).sum((-2, -1)))

    with np.errstate(divide="ignore", invalid="ignore"):
        shares = np.einsum("...i,...ijk,...j->...k", w, cum, c) / np.einsum("...i,...ij,...j->...", w, ok, c)[..., None]
        m0 = cross(theta) / cross(ok)
        return {"shares": shares, "within": cell_mean(square, ok2) - m0,
                "persona": pairs_within_rows(theta, ok, w, c) - m0,
                "paraphrase": pairs_within_rows(np.swapaxes(theta, -1, -2), np.swapaxes(ok, -1, -2), c, w) - m0,
                "answers": np.einsum("...i,...ij,...j->...", w, valid, c)}


# --- model moments and the solver ----------------------------------------------------------------------

def fit_cuts(v: np.ndarray, shares: np.ndarray, iterations: int = 30) -> np.ndarray:
    """Cut points (B, K-1) with E expit(c_c - X) = shares[:, c], X ~ N(0, v), by Newton's method from the
    probit-logit approximation c = logit(share) sqrt(1 + pi v / 8)."""
    x = np.sqrt(v)[:, None, None] * _Z
    cuts = np.log(shares / (1 - shares)) * np.sqrt(1 + np.pi * v / 8)[:, None]
    for _ in range(iterations):
        e = expit(cuts[..., None] - x)
        step = ((e @ _W) - shares) / np.maximum((e * (1 - e)) @ _W, 1e-300)
        cuts = cuts - np.clip(step, -5, 5)
        if np.abs(step).max(initial=0) < 1e-12:
            break
    return cuts


def mean_score(x: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """m(x) - s_1 = K - 1 - sum_c expit(c_c - x) for x (B, ...) and cuts (B, K-1)."""
    cut = cuts.reshape(cuts.shape[0], *([1] * (x.ndim - 1)), cuts.shape[1])
    return cuts.shape[1] - expit(cut - x[..., None]).sum(-1)


def score_variance(v, cuts) -> np.ndarray:
    """Var m(X), X ~ N(0, v)."""
    mm = mean_score(np.sqrt(v)[:, None] * _Z, cuts)
    return mm**2 @ _W - (mm @ _W) ** 2


def score_covariance(v, cuts, cov) -> np.ndarray:
    """Cov(m(X1), m(X2)) for X1, X2 ~ N(0, v) with covariance cov: X = sqrt(cov) Z0 + sqrt(v - cov) Z."""
    a, b = np.sqrt(np.clip(cov, 0, v)), np.sqrt(np.clip(v - cov, 0, None))
    mm = mean_score(a[:, None, None] * _Z[:, None] + b[:, None, None] * _Z, cuts)  # (B, H0, H)
    inner = mm @ _W
    return inner**2 @ _W - (inner @ _W) ** 2


def _bisect(f, lo, hi, target, iterations: int = 40):
    """x in [lo, hi] with f(x) = target for f rising in x, per row; the edge where the target lies beyond."""
    f_lo, f_hi = f(lo), f(hi)
    below, above = target <= f_lo, target >= f_hi
    a, b = lo.copy(), hi.copy()
    for _ in range(iterations):
        mid = (a + b) / 2
        left = f(mid) < target
        a, b = np.where(left, mid, a), np.where(left, b, mid)
    return np.where(below, lo, np.where(above, hi, (a + b) / 2)), below, above


def fit(moments: dict) -> dict:
    """Per row: tau, sigma, rho, cuts (B, K-1), and which of them were clamped to an edge."""
    shares = np.asarray(moments["shares"], float)
    shares = shares.reshape(-1, shares.shape[-1])
    within, persona, paraphrase = (np.asarray(moments[k], float).reshape(-1)
                                   for k in ("within", "persona", "paraphrase"))
    # A point nobody chose has share 0 or 1 and an infinite cut: half an answer keeps it finite.
    eps = 0.5 / np.maximum(np.asarray(moments["answers"], float).reshape(-1), 1.0)
    cum = np.clip(shares, eps[:, None], 1 - eps[:, None])
    cum = np.maximum.accumulate(cum, axis=1)
    empty = (shares <= 0).any(1) | (shares >= 1).any(1) | (np.diff(shares, axis=1) <= 0).any(1)

    def var_at(log_v):
        v = np.exp(log_v)
        return score_variance(v, fit_cuts(v, cum))

    lo, hi = np.full(len(cum), np.log(V_MIN)), np.full(len(cum), np.log(V_MAX))
    log_v, v_low, v_high = _bisect(var_at, lo, hi, within)
    v = np.where(v_low, 0.0, np.exp(log_v))
    cuts = fit_cuts(np.maximum(v, V_MIN), cum)
    zero, one = np.zeros_like(v), np.ones_like(v)
    share_tau, tau_low, tau_high = _bisect(lambda f: score_covariance(v, cuts, f * v), zero, one, persona)
    tau2 = share_tau * v
    rest = v - tau2
    share_u, u_low, u_high = _bisect(lambda f: score_covariance(v, cuts, tau2 * 0 + f * rest), zero, one, paraphrase)
    sigma = np.sqrt(rest)
    rho = np.where(rest > 0, share_u, np.nan)
    clamped = {"variance_at_0": v_low, "variance_at_max": v_high, "tau_at_0": tau_low & ~v_low,
               "sigma_at_0": tau_high & ~v_low, "rho_at_0": u_low & (rest > 0), "rho_at_1": u_high & (rest > 0),
               "empty_point": empty}
    return {"tau": np.sqrt(tau2), "sigma": sigma, "rho": rho, "cuts": cuts, "clamped": clamped}


def fit_counts(counts) -> dict:
    """The estimator on a batch of surveys: counts (S, n, m, K) -> fit() per survey (vectorised)."""
    return fit(data_moments(counts))


# --- one message, with bootstrap standard errors ----------------------------------------------------------

_CLAMP_WORDS = {"variance_at_0": "the latent variance tau^2 + sigma^2 at 0 (cells vary no more than replicates)",
                "variance_at_max": f"the latent variance at its maximum {V_MAX:g}",
                "tau_at_0": "tau at 0 (no persona covariance)", "sigma_at_0": "sigma at 0 (all latent variance is persona)",
                "rho_at_0": "rho at 0 (no shared paraphrase covariance)", "rho_at_1": "rho at 1",
                "empty_point": "a scale point no answer used: its cut is set half an answer from the edge"}


ORDINAL_FIT_NOTE = "ordinal model: tau, sigma and rho on the latent logit scale (survey.kinds.ordinal.estimate)"


@dataclass
class OrdinalEstimate:
    """tau, sigma, rho and cuts of one message, with bootstrap standard errors and 95% percentile intervals."""

    points: int
    n: int
    m: int
    tau: float
    sigma: float
    rho: float
    cuts: list[float]
    se: dict = field(default_factory=dict)
    ci: dict = field(default_factory=dict)
    n_boot: int = 0
    clamped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    method: str = "ordinal-moments"

    # The fit protocol (survey.stats.results): what every kind's fitted model answers alike.
    model_name = "ordinal-model"

    @property
    def params(self) -> dict[str, float]:
        """tau, sigma and rho on the latent logit scale (the cut points are ``cuts``)."""
        return {"tau": self.tau, "sigma": self.sigma, "rho": self.rho}

    @property
    def estimator(self) -> str:
        return self.method

    def summary(self) -> dict:
        """The compact form a model's line across models shows (JSON-safe)."""
        clean = {k: ([finite(x) for x in v] if isinstance(v, list) else finite(v) if isinstance(v, float) else v)
                 for k, v in self.se.items()}
        return {**{k: finite(v) for k, v in self.params.items()}, "cuts": self.cuts, "se": clean,
                "n_bootstrap": self.n_boot, "clamped": self.clamped, "method": self.method, "note": ORDINAL_FIT_NOTE}

    def to_dict(self) -> dict:
        return asdict(self)


def estimate_ordinal(counts, n_boot: int = 200, seed=0) -> OrdinalEstimate:
    """Fit one message's category counts (n personas, m paraphrases, K points; each cell counts its
    valid answers per point, low to high) and bootstrap personas and paraphrases together."""
    counts = np.asarray(counts)
    if counts.ndim != 3 or counts.shape[2] < 2:
        raise SurveyError(f"category counts must be (personas, paraphrases, points >= 2); got shape {counts.shape}")
    if (counts < 0).any() or not np.isfinite(counts).all():
        raise SurveyError("category counts must be finite and >= 0")
    n, m, k = counts.shape
    valid = counts.sum(-1)
    if n < 2 or m < 2 or (valid >= 2).sum() == 0:
        raise SurveyError(f"the ordinal estimator needs >= 2 personas, >= 2 paraphrases and cells with >= 2 "
                          f"answers (r >= 2); got n={n}, m={m}, at most {int(valid.max(initial=0))} answers per cell")
    if not 0 <= n_boot <= BOOTSTRAP_MAX:
        raise SurveyError(f"n_boot must be from 0 to {BOOTSTRAP_MAX:,} ({WHY['bootstrap']}); got {n_boot}")
    check_seed(seed, "seed")
    point = fit(data_moments(counts))
    est = {"tau": float(point["tau"][0]), "sigma": float(point["sigma"][0]), "rho": float(point["rho"][0])}
    clamped = [name for name, flag in point["clamped"].items() if flag[0]]
    se, ci = {}, {}
    if n_boot:
        w, c = resample_weights(n, m, n_boot, seed)
        boot = fit(data_moments(counts, w, c))
        for name in ("tau", "sigma", "rho"):
            x = boot[name][np.isfinite(boot[name])]
            se[name] = float(np.std(x, ddof=1)) if len(x) > 1 else float("nan")
            ci[name] = [float(q) for q in np.quantile(x, [0.025, 0.975])] if len(x) else [float("nan")] * 2
        se["cuts"] = [float(s) for s in np.std(boot["cuts"], axis=0, ddof=1)]
    notes = ["moments unbiased for replicate noise (mean scores; two distinct replicates per cell for the "
             "within-cell moment); bootstrap over personas and paraphrases together",
             "sigma, rho, tau and the cuts are on the latent logit scale"]
    notes += [f"held at the edge of its range: {_CLAMP_WORDS[name]}" for name in clamped]
    if (valid < 2).any():
        notes.append(f"{int((valid < 2).sum())} cells with fewer than 2 valid answers add nothing to the within-cell moment")
    return OrdinalEstimate(k, n, m, est["tau"], est["sigma"], est["rho"], [float(x) for x in point["cuts"][0]],
                           se, ci, n_boot, clamped, notes)


def category_counts(df, model: str, message: str, low: int, high: int) -> np.ndarray:
    """(personas, paraphrases, K) counts of valid answers per score low..high for one model's message in a
    long table; an answer outside the scale or missing is invalid and not counted."""
    sub = df[(df["model"] == model) & (df["message"] == message)]
    if sub.empty:
        raise SurveyError(f"no answers of model '{model}' to message '{message}'")
    personas, paraphrases = sub["persona"].astype(str), sub["perturbation"].astype(str)
    i, persona_names = personas.factorize()
    j, paraphrase_names = paraphrases.factorize()
    answer = sub["answer"].astype("Float64").to_numpy(dtype=float, na_value=np.nan)
    ok = np.isfinite(answer) & (answer >= low) & (answer <= high) & (answer == np.round(answer))
    counts = np.zeros((len(persona_names), len(paraphrase_names), high - low + 1), int)
    np.add.at(counts, (i[ok], j[ok], answer[ok].astype(int) - low), 1)
    return counts
