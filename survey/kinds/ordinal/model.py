"""A generative model of rating-scale answers (K ordered points), the ordinal counterpart of the
Beta-logit model of Helm & Priebe (2026), "When prompt perturbations break your A/B test: A valid
statistical test for generative surveying" (their section 5 names rating scales as future work; the
model below is ours). A cumulative-logit (proportional-odds) model with crossed random effects:

    eta_i ~ N(0, tau^2)                    persona location on the latent logit scale
    u_j   ~ N(0, rho sigma^2)              paraphrase shift shared by every persona
    v_ij  ~ N(0, (1 - rho) sigma^2)        persona-specific paraphrase shift
    lambda_ij = eta_i + u_j + v_ij  (+ delta for message B)
    P(Y_ijk <= s_c) = expit(c_c - lambda_ij),  c = 1..K-1,  scores s_1 < ... < s_K

sigma, rho and delta mean what they mean in the binary model: perturbation s.d., its shared share, and
the shift of B over A on the latent logit scale (a positive delta makes B's scores higher, so the effect
T = mean score A - mean score B is negative). K = 2 with scores 0, 1 is a binary survey whose persona
base rate is logit-normal instead of Beta.
"""

from __future__ import annotations

import math

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator
from scipy.special import expit

from survey.errors import validated

DELTA_MEANING_ORDINAL = ("latent logit shift of message B over A: a positive delta makes B's scores higher, "
                         "so the effect T = mean score A - mean score B is negative")
POINTS_MAX = 101  # a 0-100 slider; more points than that are not a rating scale


def default_cuts(points: int) -> list[float]:
    """logit(c / K), c = 1..K-1: every point equally likely for a respondent at latent location 0."""
    return [math.log(c / (points - c)) for c in range(1, points)]


class OrdinalParams(BaseModel):
    """Parameters of the ordinal model; errors name the field and its allowed range."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    points: int = Field(5, ge=2, le=POINTS_MAX, description="number of scale points K")
    low: int = Field(1, ge=-1000, le=1000, description="lowest score; the scores are low, low+1, ..., low+K-1")
    tau: float = Field(1.0, ge=0, allow_inf_nan=False, description="persona s.d. on the latent logit scale, >= 0")
    sigma: float = Field(1.0, ge=0, allow_inf_nan=False, description="total perturbation s.d. on the latent logit scale, >= 0")
    rho: float = Field(0.3, ge=0, le=1, allow_inf_nan=False, description="share of perturbation variance common to all personas")
    delta: float = Field(0.0, allow_inf_nan=False, description="latent logit shift of message B over A (H0: 0)")
    cuts: tuple[float, ...] | None = Field(None, description="K-1 increasing cut points; default logit(c/K)")
    name: str | None = Field(None, max_length=40, description="the scale's name, e.g. rating0-10 [default: "
                             "likertK for scores 1..K, else likertLOW-HIGH]")

    @model_validator(mode="after")
    def _check_cuts(self):
        if self.cuts is None:
            return self
        c = np.asarray(self.cuts, float)
        if len(c) != self.points - 1:
            raise ValueError(f"cuts: need K-1 = {self.points - 1} cut points for points = {self.points}; "
                             f"got {len(c)}")
        if not np.isfinite(c).all() or (np.diff(c) <= 0).any():
            raise ValueError(f"cuts: must be finite and strictly increasing; got {list(self.cuts)}")
        return self

    @property
    def cut_points(self) -> np.ndarray:
        return np.asarray(self.cuts if self.cuts is not None else default_cuts(self.points), float)

    @property
    def scores(self) -> np.ndarray:
        return np.arange(self.low, self.low + self.points)

    @property
    def high(self) -> int:
        return self.low + self.points - 1

    @property
    def scale(self) -> str:
        """The response type's name: ``name`` if given, else likertK for scores 1..K, else likertLOW-HIGH."""
        if self.name:
            return self.name
        return f"likert{self.points}" if self.low == 1 else f"likert{self.low}-{self.high}"

    def summary(self) -> dict:
        """The parameters as plain numbers, with the scale and the cut points actually used."""
        return {"scale": self.scale, "points": self.points, "low": self.low, "tau": self.tau, "sigma": self.sigma,
                "rho": self.rho, "delta": self.delta, "cuts": [float(x) for x in self.cut_points]}


def make_ordinal_params(**kwargs) -> OrdinalParams:
    """OrdinalParams from keywords (None values take the defaults); a bad value is a SurveyError naming it."""
    return validated(OrdinalParams, "ordinal model parameters", **{k: v for k, v in kwargs.items() if v is not None})


def draw_locations(params: OrdinalParams, n: int, m_a: int, m_b: int, rng: np.random.Generator,
                   size: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """Latent cell locations lambda_ij for messages A (…, n, m_a) and B (…, n, m_b, delta included)."""
    eta = rng.normal(0.0, params.tau, size=(*size, n, 1))
    s_u = params.sigma * np.sqrt(params.rho)
    s_v = params.sigma * np.sqrt(1 - params.rho)

    def message(m: int, shift: float) -> np.ndarray:
        return eta + shift + rng.normal(0.0, s_u, size=(*size, 1, m)) + rng.normal(0.0, s_v, size=(*size, n, m))

    return message(m_a, 0.0), message(m_b, params.delta)


def cumulative_probabilities(cuts: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """P(Y <= s_c | lambda) for c = 1..K-1: shape (*lam.shape, K-1)."""
    return expit(np.asarray(cuts, float) - np.asarray(lam, float)[..., None])


def category_probabilities(params: OrdinalParams, lam) -> np.ndarray:
    """P(Y = s_k | lambda) for k = 1..K: shape (*lam.shape, K); each row sums to 1."""
    f = cumulative_probabilities(params.cut_points, lam)
    lam = np.asarray(lam, float)
    full = np.concatenate([np.zeros((*lam.shape, 1)), f, np.ones((*lam.shape, 1))], axis=-1)
    return np.diff(full, axis=-1)


def expected_score(params: OrdinalParams, lam) -> np.ndarray:
    """E[Y | lambda] = s_K - sum_c (s_{c+1} - s_c) P(Y <= s_c | lambda)."""
    return params.high - cumulative_probabilities(params.cut_points, lam).sum(axis=-1)


def simulate_category_counts(params: OrdinalParams, n: int, m_a: int, m_b: int, r: int, rng: np.random.Generator,
                             size: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """How many of a cell's r replicates gave each point: A (…, n, m_a, K) and B (…, n, m_b, K), one
    multinomial draw per cell."""
    lam_a, lam_b = draw_locations(params, n, m_a, m_b, rng, size)
    return tuple(rng.multinomial(r, category_probabilities(params, lam)) for lam in (lam_a, lam_b))


def score_sums(params: OrdinalParams, counts: np.ndarray) -> np.ndarray:
    """Sum of the scores of each cell's answers (integers, so ties stay exact in the tests)."""
    return counts @ params.scores


def simulate_score_sums(params: OrdinalParams, n: int, m_a: int, m_b: int, r: int, rng: np.random.Generator,
                        size: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """Per-cell sums of r simulated scores for A and B: r times the cell mean score, for power simulation
    (the batched tests are scale-invariant, as survey.stats.beta_logit.simulate_counts's Yes counts are)."""
    ca, cb = simulate_category_counts(params, n, m_a, m_b, r, rng, size)
    return score_sums(params, ca), score_sums(params, cb)
