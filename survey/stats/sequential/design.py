"""The rule of a sequential survey: rounds of paraphrase pairs, a maximum, alpha and how it is spent.

Two methods share this description (see survey.stats.sequential):

* ``"group-sequential"``: the sign-flip test of Helm & Priebe (2026), "When prompt perturbations break
  your A/B test: A valid statistical test for generative surveying", at planned looks, with alpha spent
  over the looks by a spending function (Lan & DeMets 1983, "Discrete sequential boundaries for
  clinical trials");
* ``"betting"``: the anytime-valid test by betting of Waudby-Smith & Ramdas, "Estimating means of
  bounded random variables by betting" (JRSS-B 2024).

Spending functions alpha(t), t = pairs so far / maximum pairs, each with alpha(1) = alpha:

* ``obrien-fleming``: 2 - 2 Phi(z_{alpha/2} / sqrt t) (Lan & DeMets' O'Brien-Fleming-like function);
* ``pocock``: alpha log(1 + (e - 1) t);
* ``power:g``: alpha t^g (Kim & DeMets), g > 0; ``power:3`` is close to O'Brien-Fleming early on;
* ``hsd:g``: alpha (1 - exp(-g t)) / (1 - exp(-g)) (Hwang, Shih & DeCani), g != 0.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from scipy.special import ndtr, ndtri

from survey.errors import SurveyError, pydantic_message

METHODS = ("group-sequential", "betting")
SPENDING = ("obrien-fleming", "pocock", "power:<g>", "hsd:<g>")
BETS = ("agrapa", "ons")


def _spending_parts(name: str) -> tuple[str, float | None]:
    kind, _, arg = str(name).partition(":")
    if kind in ("obrien-fleming", "pocock") and not arg:
        return kind, None
    if kind in ("power", "hsd") and arg:
        try:
            g = float(arg)
        except ValueError:
            g = math.nan
        if math.isfinite(g) and (g > 0 if kind == "power" else g != 0):
            return kind, g
    raise ValueError(f"spending must be one of {', '.join(SPENDING)} (power: g > 0, hsd: g != 0); got '{name}'")


def spent_alpha(spending: str, alpha: float, t) -> np.ndarray:
    """Cumulative alpha allowed by information fraction t (0 < t <= 1); alpha at t = 1."""
    kind, g = _spending_parts(spending)
    t = np.clip(np.asarray(t, dtype=float), 0.0, 1.0)
    if kind == "obrien-fleming":
        with np.errstate(divide="ignore"):
            out = 2.0 - 2.0 * ndtr(ndtri(1.0 - alpha / 2.0) / np.sqrt(t))
    elif kind == "pocock":
        out = alpha * np.log1p((math.e - 1.0) * t)
    elif kind == "power":
        out = alpha * t ** g
    else:
        out = alpha * -np.expm1(-g * t) / -math.expm1(-g)
    return np.minimum(out, alpha)


class SequentialDesign(BaseModel):
    """How a survey is bought and tested in rounds (the study file's ``[sequential]`` table)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    method: Literal["group-sequential", "betting"] = Field(
        "group-sequential", description="group-sequential (planned looks, batch jobs) or betting (monitor any time)")
    round_pairs: int = Field(4, ge=1, le=10_000, description="paraphrase pairs bought per round")
    max_pairs: int = Field(40, ge=1, le=100_000, description="the most pairs ever bought")
    alpha: float = Field(0.05, gt=0, lt=1, description="type I error over the whole sequence")
    alternative: Literal["two-sided", "greater", "less"] = "two-sided"
    spending: str = Field("obrien-fleming", description="alpha spending of the group-sequential test")
    futility: float | None = Field(
        None, gt=0, lt=1, description="stop for futility when conditional power (current trend) is below this")
    futility_from: float = Field(
        0.5, ge=0, le=1, description="consider futility only once this fraction of max_pairs is bought")
    bet: Literal["agrapa", "ons"] = Field("agrapa", description="how the betting test chooses its bets")
    flips: int = Field(4999, ge=99, le=1_000_000, description="random sign vectors when looks exceed exact_max_m")
    exact_max_m: int = Field(14, ge=1, le=20, description="enumerate all sign vectors up to this many pairs")

    @field_validator("spending")
    @classmethod
    def _spending(cls, v: str) -> str:
        _spending_parts(v)
        return v

    @model_validator(mode="after")
    def _rounds(self):
        if self.round_pairs > self.max_pairs:
            raise ValueError(f"round_pairs ({self.round_pairs}) exceeds max_pairs ({self.max_pairs})")
        return self

    def looks(self, max_pairs: int | None = None) -> np.ndarray:
        """Pairs at each look: every round_pairs, and the maximum (the last look may be a short round)."""
        top = self.max_pairs if max_pairs is None else int(max_pairs)
        return np.unique(np.append(np.arange(self.round_pairs, top + 1, self.round_pairs), top))

    def describe(self) -> str:
        how = f"spending {self.spending}" if self.method == "group-sequential" else f"bets {self.bet}"
        fut = (f", futility below {self.futility:g} conditional power from {self.futility_from:.0%} of the pairs"
               if self.futility else "")
        return (f"{self.method} ({how}{fut}): rounds of {self.round_pairs} pairs up to {self.max_pairs}, "
                f"alpha {self.alpha:g}, {self.alternative}")


def make_design(design: SequentialDesign | dict | None = None, **kwargs) -> SequentialDesign:
    """A SequentialDesign from a design, a dict and/or keywords (None values are left out)."""
    base = design.model_dump() if isinstance(design, SequentialDesign) else dict(design or {})
    base.update({k: v for k, v in kwargs.items() if v is not None})
    try:
        return SequentialDesign(**base)
    except ValidationError as exc:
        raise SurveyError(pydantic_message(exc, "sequential design")) from exc


def conditional_power(z, t, alpha: float, two_sided: bool) -> np.ndarray:
    """Conditional power under the current trend (the B-value drift z / sqrt t kept to the end).

    z is the self-normalised statistic sum_j D_j / sqrt(sum_j D_j^2), standard under random signs;
    t the information fraction. Used only for non-binding futility stops, which cannot raise the
    type I error: the efficacy boundaries are computed as if futility never stopped anything.
    """
    z = np.abs(z) if two_sided else np.asarray(z, dtype=float)
    crit = ndtri(1.0 - alpha / 2.0) if two_sided else ndtri(1.0 - alpha)
    t = np.asarray(t, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        cp = 1.0 - ndtr((crit - z / np.sqrt(t)) / np.sqrt(1.0 - t))
    return np.where(t >= 1.0, (z >= crit).astype(float), cp)
