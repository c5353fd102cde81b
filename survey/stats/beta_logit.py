"""The hierarchical Beta-logit model of Helm & Priebe (2026), "When prompt perturbations break your A/B
test: A valid statistical test for generative surveying", and simulated respondents.

    p_i ~ Beta(a, b),  mu = a / (a + b),  kappa = a + b
    u_j ~ N(0, rho sigma^2)            shared by every persona (one draw per perturbation)
    v_ij ~ N(0, (1 - rho) sigma^2)     persona-specific
    logit p_ij^A = logit p_i + u_j^A + v_ij^A
    logit p_ij^B = logit p_i + delta + u_j^B + v_ij^B
    y_ijk ~ Bernoulli(p_ij)
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field
from scipy.special import expit, logit

from survey.common.limits import check_seed, check_simulated_rows
from survey.errors import SurveyError, validated

# The sign convention, said wherever delta or the effect is shown: delta (the paper's model) is B over A,
# the effect T (the paper's test statistic) is A minus B, so a positive delta gives a negative T.
DELTA_MEANING = ("logit shift of message B over A: a positive delta makes B more often Yes, "
                 "so the effect T = P(Yes|A) - P(Yes|B) is negative")


class ModelParams(BaseModel):
    """Parameters of the Beta-logit model; errors name the field and its allowed range."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    mu: float = Field(0.5, gt=0, lt=1, allow_inf_nan=False, description="mean persona base rate, in (0, 1)")
    kappa: float = Field(4.0, gt=0, allow_inf_nan=False, description="Beta precision a + b, > 0 and finite")
    sigma: float = Field(1.0, ge=0, allow_inf_nan=False, description="total perturbation s.d. on the logit scale, >= 0")
    rho: float = Field(0.3, ge=0, le=1, allow_inf_nan=False, description="share of perturbation variance common to all personas")
    delta: float = Field(0.0, allow_inf_nan=False, description="logit shift of message B over A (H0: 0): positive "
                         "makes B more often Yes, so the effect T = mean P(Yes|A) - P(Yes|B) is negative")

    @property
    def a(self) -> float:
        return self.mu * self.kappa

    @property
    def b(self) -> float:
        return (1 - self.mu) * self.kappa


def make_params(**kwargs) -> ModelParams:
    return validated(ModelParams, "model parameters", **{k: v for k, v in kwargs.items() if v is not None})


def draw_probabilities(params: ModelParams, n: int, m_a: int, m_b: int, rng: np.random.Generator,
                       size: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """Cell probabilities p_ij for messages A (…, n, m_a) and B (…, n, m_b); ``size`` batches surveys."""
    p = rng.beta(params.a, params.b, size=(*size, n, 1))
    # Clip so that logit stays finite when a Beta draw underflows to exactly 0 or 1.
    base = logit(np.clip(p, 1e-12, 1 - 1e-12))
    s_u = params.sigma * np.sqrt(params.rho)
    s_v = params.sigma * np.sqrt(1 - params.rho)

    def message(m: int, shift: float) -> np.ndarray:
        u = rng.normal(0.0, s_u, size=(*size, 1, m))
        v = rng.normal(0.0, s_v, size=(*size, n, m))
        return expit(base + shift + u + v)

    return message(m_a, 0.0), message(m_b, params.delta)


def simulate_counts(params: ModelParams, n: int, m_a: int, m_b: int, r: int, rng: np.random.Generator,
                    size: tuple[int, ...] = ()) -> tuple[np.ndarray, np.ndarray]:
    """Yes counts out of r per cell, drawn as binomials (not r Bernoullis): the fast path for power."""
    pa, pb = draw_probabilities(params, n, m_a, m_b, rng, size)
    return rng.binomial(r, pa), rng.binomial(r, pb)


def check_design(n: int, m: int, r: int, m_b: int | None) -> None:
    """A SurveyError naming the first design size that is not a whole number at least its minimum."""
    # a message needs 2 perturbations (survey.data.table): fewer would write a table no test accepts
    for name, v, low in (("personas", n, 1), ("perturbations", m, 2), ("replicates", r, 1),
                         ("perturbations-b", m if m_b is None else m_b, 2)):
        if int(v) != v or v < low:
            raise SurveyError(f"--{name} must be a whole number >= {low}; got {v}")


def simulate(n: int, m: int, r: int, mu: float = 0.5, kappa: float = 4.0, sigma: float = 1.0,
             rho: float = 0.3, delta: float = 0.0, seed=None, m_b: int | None = None,
             messages: tuple[str, str] = ("A", "B"), model: str = "simulated") -> pd.DataFrame:
    """A long table of simulated Yes/No answers: n personas, m (and m_b) perturbations, r replicates."""
    check_design(n, m, r, m_b)
    check_seed(seed, "seed")
    params = make_params(mu=mu, kappa=kappa, sigma=sigma, rho=rho, delta=delta)
    m_b = m if m_b is None else m_b
    check_simulated_rows(n * (m + m_b) * r, f"{n} personas x {m} + {m_b} perturbations x {r} replicates")
    rng = np.random.default_rng(seed)
    pa, pb = draw_probabilities(params, n, m, m_b, rng)
    frames = []
    width = max(2, len(str(max(m, m_b))))
    for msg, p in zip(messages, (pa, pb), strict=True):
        mm = p.shape[1]
        y = rng.random((n, mm, r)) < p[:, :, None]
        ii, jj, kk = np.meshgrid(np.arange(n), np.arange(mm), np.arange(r), indexing="ij")
        frames.append(pd.DataFrame({
            "model": model, "message": msg,
            "perturbation": np.char.add(f"{msg}-", np.char.zfill((jj.ravel() + 1).astype(str), width)),
            "persona": np.char.add("P", np.char.zfill((ii.ravel() + 1).astype(str), 3)),
            "replicate": kk.ravel(), "answer": y.ravel().astype(int),
            "p_yes": p[ii.ravel(), jj.ravel()],  # the true cell probability, as exact mode reports it
        }))
    out = pd.concat(frames, ignore_index=True)
    out["answer"] = out["answer"].astype("Int8")
    return out
