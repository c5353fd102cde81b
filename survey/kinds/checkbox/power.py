"""The checkbox question's power model (survey.stats.planning.plan): the smallest Holm-adjusted sign-flip p-value
over the options, on surveys simulated as the simulated backend answers (CheckboxScale.simulated_reply): option
i ticked with probability expit(eta_i + delta_message + u_j + v_ij + c_i); ticks then fitted to the bounds. Each
option's test breaks ties at random, with its own U per survey, as the analysis does
(survey.kinds.checkbox.statistics), so plan and analyze agree on the size: exactly alpha per option."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from survey.errors import SurveyError
from survey.kinds.checkbox.parsing import from_name
from survey.stats.ab_tests import ByTest
from survey.stats.multiplicity import holm_rows
from survey.stats.permutation import sign_flip_pvalues
from survey.stats.planning.model import PowerModelBase
from survey.stats.tie_breaking import TIE_WORDS, index_seed


def draw_ticks(k: int, low: int, high: int, location: np.ndarray, r: int, rng) -> np.ndarray:
    """Ticks (..., r, k) at the cells' latent ``location`` (...): Bernoulli per option, then fitted to
    [low, high] as the simulated backend does (add the likeliest unticked, drop the least likely ticked)."""
    c = 1.0 - 2.0 * np.arange(k) / max(k - 1, 1)
    p = expit(location[..., None, None] + c)  # (..., 1, k)
    p = np.broadcast_to(p, (*location.shape, r, k))
    ticks = rng.random(p.shape) < p
    idx = np.arange(k)  # c falls with i: option 0 is the likeliest
    for _ in range(k):
        n = ticks.sum(axis=-1, keepdims=True)
        under, over = n < low, n > high
        if not (under.any() or over.any()):
            break
        first_off = np.argmax(~ticks, axis=-1)[..., None]
        last_on = (k - 1 - np.argmax(ticks[..., ::-1], axis=-1))[..., None]
        ticks = np.where(under, ticks | (idx == first_off), np.where(over, ticks & (idx != last_on), ticks))
    return ticks


@dataclass(frozen=True)
class CheckboxPlan(PowerModelBase):
    """``delta``: message B's latent shift over A on every option (logit units); ``scale`` e.g. "checkbox4";
    ``sigma`` the paraphrase s.d. (default 1), ``rho`` its share every persona shares (0.3), ``tau`` the
    persona s.d. (1)."""

    delta: float
    scale: str = "checkbox4"
    sigma: float | None = None
    rho: float | None = None
    tau: float | None = None

    def __post_init__(self):
        if from_name(self.scale) is None:
            raise SurveyError(f"scale '{self.scale}' is not a checkbox scale (e.g. checkbox4, checkbox5-0-2)")
        for name, default in (("sigma", 1.0), ("rho", 0.3), ("tau", 1.0)):
            object.__setattr__(self, name, default if getattr(self, name) is None else float(getattr(self, name)))
        if not (np.isfinite(float(self.delta)) and self.sigma >= 0 and 0 <= self.rho <= 1 and self.tau >= 0):
            raise SurveyError(f"a checkbox plan needs a finite delta, sigma >= 0, rho in [0, 1] and tau >= 0; got "
                              f"delta={self.delta}, sigma={self.sigma}, rho={self.rho}, tau={self.tau}")

    def pair_shares(self, n, m, r, S, rng) -> np.ndarray:
        """D_jo (S, m, k): per paraphrase pair and option, share ticking it under A minus under B."""
        box = from_name(self.scale)
        base = rng.normal(0.0, self.tau, (S, n, 1))
        s_u, s_v = self.sigma * np.sqrt(self.rho), self.sigma * np.sqrt(1 - self.rho)
        shares = []
        for extra in (0.0, float(self.delta)):
            loc = base + extra + rng.normal(0.0, s_u, (S, 1, m)) + rng.normal(0.0, s_v, (S, n, m))
            ticks = draw_ticks(box.k, box.low, box.high, loc, r, rng)  # (S, n, m, r, k)
            shares.append(ticks.mean(axis=(1, 3)))  # (S, m, k)
        return shares[0] - shares[1]

    def option_pvalues(self, n, m, r, simulations, rng, alternative="two-sided", flips=1000,
                       exact_max_m=12) -> np.ndarray:
        """Each option's raw sign-flip p-value (simulations, k) on simulated surveys of design (n, m, r)."""
        d = self.pair_shares(n, m, r, simulations, rng)
        seed = int(rng.integers(2**31))
        return np.stack([sign_flip_pvalues(np.round(d[..., o], 12), alternative, flips, exact_max_m=exact_max_m,
                                           seed=index_seed(seed, o), ties="random") for o in range(d.shape[-1])], axis=1)

    def pvalues(self, n, m, r, simulations, rng, alternative="two-sided", flips=1000, exact_max_m=12):
        raw = self.option_pvalues(n, m, r, simulations, rng, alternative, flips, exact_max_m)
        return ByTest({"sign_flip": holm_rows(raw).min(axis=1)})

    def segment_model(self, source) -> tuple[dict, str]:
        """The keywords of the checkbox segment simulator (survey.kinds.checkbox.segments)."""
        return {"tau": self.tau, "sigma": self.sigma, "rho": self.rho}, "given"

    def segment_draws(self, replicates: int) -> int:
        return 2 * replicates * from_name(self.scale).k

    def summary(self) -> dict:
        return {"scale": self.scale, "delta": self.delta, "sigma": self.sigma, "rho": self.rho, "tau": self.tau}

    def describe(self) -> str:
        return (f"{self.scale}: delta={self.delta:g} (B over A on every option, logit), sigma={self.sigma:g}, "
                f"rho={self.rho:g}, tau={self.tau:g}; smallest Holm p over the options, {TIE_WORDS}")
