"""The slider's power model (survey.stats.planning.plan): positions 50 + 10 x (persona + message + paraphrase
shifts) + replicate noise, clipped to 0-100; every A/B test planning simulates, on the mean position per cell."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from survey.stats.planning.model import PowerModelBase
from survey.stats.planning.power import simulate_pvalues


@dataclass(frozen=True)
class SliderPlan(PowerModelBase):
    """``delta`` the shift of B over A in tenths of the slider (latent units), ``sigma`` the paraphrase s.d.,
    ``rho`` its share every persona shares, ``tau`` the persona s.d., ``noise`` a reply's s.d. in points."""

    delta: float
    sigma: float = 1.0
    rho: float = 0.3
    tau: float = 1.0
    noise: float = 5.0
    scale = "slider"

    def pvalues(self, n, m, r, simulations, rng, alternative="two-sided", flips=1000, exact_max_m=12):
        return simulate_pvalues(self, n, m, r, simulations, rng, alternative, flips, exact_max_m, draw=draw_sums)

    def summary(self) -> dict:
        return {"scale": self.scale, "delta": self.delta, "sigma": self.sigma, "rho": self.rho, "tau": self.tau,
                "noise": self.noise}

    def describe(self) -> str:
        return f"slider: delta={self.delta:g} (B over A, tenths), sigma={self.sigma:g}, rho={self.rho:g}"


def positions(latent: np.ndarray, r: int, noise: float, rng: np.random.Generator) -> np.ndarray:
    """r replies per cell: 50 + 10 x latent + noise, rounded and clipped to the slider (..., r)."""
    return np.clip(np.rint(50 + 10 * latent[..., None] + rng.normal(0.0, noise, (*latent.shape, r))), 0, 100)


def draw_sums(plan: SliderPlan, n, m, m_b, r, rng, size=(1,)):
    """Per cell, the sum of r positions for A and for B (size, n, m): what survey.stats.planning.power tests."""
    base = rng.normal(0.0, plan.tau, (*size, n, 1))
    s_u, s_v = plan.sigma * np.sqrt(plan.rho), plan.sigma * np.sqrt(1 - plan.rho)
    sums = []
    for extra, width in ((0.0, m), (plan.delta, m_b)):
        latent = base + extra + rng.normal(0.0, s_u, (*size, 1, width)) + rng.normal(0.0, s_v, (*size, n, width))
        sums.append(positions(latent, r, plan.noise, rng).sum(axis=-1).astype(np.int64))
    return sums[0], sums[1]
