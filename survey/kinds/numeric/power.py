"""The numeric question's generative model and power model (survey.stats.planning.plan).

A persona x paraphrase cell's location on the latent logit scale is eta_i + delta_message + u_j + v_ij (as for
every kind: eta_i ~ N(0, tau^2) the persona, u_j ~ N(0, rho sigma^2) the paraphrase's shift every persona shares,
v_ij ~ N(0, (1 - rho) sigma^2) its shift for one persona); each reply is low + (high - low) * expit(location +
e), e ~ N(0, noise^2) the replicate's own noise, rounded to two decimals. The simulated backend draws its replies
from the same model (NumericScale.simulated_reply), so a plan and a simulated run agree."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from survey.errors import SurveyError
from survey.kinds.numeric.parsing import NOISE, TRIM, from_name
from survey.stats.planning.model import PowerModelBase
from survey.stats.planning.power import simulate_pvalues


def values(location: np.ndarray, r: int, low: float, high: float, noise: float, rng: np.random.Generator) -> np.ndarray:
    """r replies per cell (..., r) at the cells' latent ``location`` (see the module's docstring)."""
    e = rng.normal(0.0, noise, (*location.shape, r))
    return np.round(low + (high - low) * expit(location[..., None] + e), 2)


def summarised(xa: np.ndarray, xb: np.ndarray, summary: str) -> tuple[np.ndarray, np.ndarray]:
    """The replies a cell mean averages, for both messages of each simulated survey (leading axis): log(1 + x),
    or winsorized at the TRIM quantiles of the survey's replies pooled over both messages."""
    if summary == "log":
        return np.log1p(xa), np.log1p(xb)
    if summary == "trimmed":
        pooled = np.concatenate([xa.reshape(len(xa), -1), xb.reshape(len(xb), -1)], axis=1)
        lo, hi = np.quantile(pooled, [TRIM, 1 - TRIM], axis=1)
        shape = (-1,) + (1,) * (xa.ndim - 1)
        return (np.clip(xa, lo.reshape(shape), hi.reshape(shape)), np.clip(xb, lo.reshape(shape), hi.reshape(shape)))
    return xa, xb


@dataclass(frozen=True)
class NumericPlan(PowerModelBase):
    """``delta``: message B's latent shift over A (logit units; positive: B answered higher); ``scale`` the
    numeric scale ("numeric0to100", "numeric0to500_log"); ``sigma`` the paraphrase s.d. (default 1), ``rho`` its
    share every persona shares (0.3), ``tau`` the persona s.d. (1), ``noise`` a reply's own s.d. (0.5)."""

    delta: float
    scale: str = "numeric0to100"
    sigma: float | None = None
    rho: float | None = None
    tau: float | None = None
    noise: float = NOISE

    def __post_init__(self):
        if from_name(self.scale) is None:
            raise SurveyError(f"scale '{self.scale}' is not a numeric scale (e.g. numeric0to100)")
        for name, default in (("sigma", 1.0), ("rho", 0.3), ("tau", 1.0)):
            object.__setattr__(self, name, default if getattr(self, name) is None else float(getattr(self, name)))
        if not (np.isfinite(float(self.delta)) and self.sigma >= 0 and 0 <= self.rho <= 1 and self.tau >= 0
                and self.noise >= 0):
            raise SurveyError(f"a numeric plan needs a finite delta, sigma >= 0, rho in [0, 1], tau >= 0 and noise >= 0; "
                              f"got delta={self.delta}, sigma={self.sigma}, rho={self.rho}, tau={self.tau}, "
                              f"noise={self.noise}")

    def pvalues(self, n, m, r, simulations, rng, alternative="two-sided", flips=1000, exact_max_m=12):
        return simulate_pvalues(self, n, m, r, simulations, rng, alternative, flips, exact_max_m, draw=draw_sums)

    def segment_model(self, source) -> tuple[dict, str]:
        """The keywords of the numeric segment simulator (survey.kinds.numeric.segments)."""
        return {"tau": self.tau, "sigma": self.sigma, "rho": self.rho, "noise": float(self.noise)}, "given"

    def segment_draws(self, replicates: int) -> int:
        return 2 * replicates

    def summary(self) -> dict:
        return {"scale": self.scale, "delta": self.delta, "sigma": self.sigma, "rho": self.rho, "tau": self.tau,
                "noise": self.noise}

    def describe(self) -> str:
        return (f"{self.scale}: delta={self.delta:g} (B over A, logit), sigma={self.sigma:g}, rho={self.rho:g}, "
                f"tau={self.tau:g}, noise={self.noise:g}")


def draw_cells(plan: NumericPlan, n, m, m_b, r, rng, size=(1,)) -> tuple[np.ndarray, np.ndarray]:
    """Replies (size, n, m, r) for A and (size, n, m_b, r) for B."""
    scale = from_name(plan.scale)
    base = rng.normal(0.0, plan.tau, (*size, n, 1))
    s_u, s_v = plan.sigma * np.sqrt(plan.rho), plan.sigma * np.sqrt(1 - plan.rho)
    out = []
    for extra, width in ((0.0, m), (float(plan.delta), m_b)):
        loc = base + extra + rng.normal(0.0, s_u, (*size, 1, width)) + rng.normal(0.0, s_v, (*size, n, width))
        out.append(values(loc, r, scale.low, scale.high, plan.noise, rng))
    return out[0], out[1]


def draw_sums(plan: NumericPlan, n, m, m_b, r, rng, size=(1,)):
    """Per cell, the sum of r summarised replies for A and for B (size, n, m): what planning's tests read."""
    xa, xb = draw_cells(plan, n, m, m_b, r, rng, size)
    xa, xb = summarised(xa, xb, from_name(plan.scale).summary)
    return xa.sum(axis=-1), xb.sum(axis=-1)
