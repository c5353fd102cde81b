"""Simulated respondents from the Beta-logit model of Helm & Priebe (2026) (survey.stats.beta_logit),
offline and free.

Every random quantity is a pure function of (seed, ids), never of call order: p_i hashes
(seed, persona), u_j (seed, message, perturbation), v_ij (seed, message, perturbation, persona) and
the Yes/No draw adds the replicate. So an interrupted and resumed run, at any concurrency, gives
exactly the table an uninterrupted run would have given.

Options (the study's ``[models.options]``): mu, kappa, sigma, rho (ModelParams), ``deltas`` (a logit
shift per message id, e.g. {boots = 0.5}), ``seed`` (else the model's seed, else 0),
``invalid_rate`` (share of replies that are neither Yes nor No) and ``latency`` (seconds per call).
"""

from __future__ import annotations

import asyncio
import hashlib
import math

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy.special import expit, logit

from survey.backends.base import Capabilities, Query, Reply
from survey.backends.provider import parse_options
from survey.errors import SurveyError
from survey.stats.beta_logit import ModelParams


class SimulatedOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    mu: float = Field(0.5, gt=0, lt=1)
    kappa: float = Field(4.0, gt=0)
    sigma: float = Field(1.0, ge=0)
    rho: float = Field(0.3, ge=0, le=1)
    deltas: dict[str, float] = Field(default_factory=dict, description="logit shift per message id")
    seed: int | None = None
    invalid_rate: float = Field(0.0, ge=0, le=1)
    latency: float = Field(0.0, ge=0)

    def check_messages(self, messages: list[str]) -> None:
        """A delta for a message the study does not have (a typo) would be ignored: refuse it."""
        unknown = sorted(set(self.deltas) - set(messages))
        if unknown:
            raise SurveyError(f"simulated backend options: deltas: unknown message(s) {', '.join(unknown)}; "
                              f"the study's messages are {', '.join(messages)}")


def _rng(*parts) -> np.random.Generator:
    """A generator seeded by a stable hash of the parts (Python's hash() is salted per process)."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


class SimulatedBackend:
    name = "simulated"
    capabilities = Capabilities(paid=False, needs_model_id=False)
    options_model = SimulatedOptions  # checked by a dry run without creating the backend
    allowed_params: frozenset[str] = frozenset()  # nothing to pass on: any params would be ignored

    def __init__(self, model_id: str = "", **options):
        self.options = o = parse_options(SimulatedOptions, "simulated", options)
        self.params = ModelParams(mu=o.mu, kappa=o.kappa, sigma=o.sigma, rho=o.rho)
        self.model_id = model_id or "beta-logit"
        self._base: dict[tuple, float] = {}
        self._shared: dict[tuple, float] = {}

    def cell_probability(self, seed: int, persona: str, message: str, perturbation: str) -> float:
        """p_ij: the true P(Yes) of a (persona, perturbation) cell."""
        p = self.params
        if (seed, persona) not in self._base:
            draw = _rng(seed, "persona", persona).beta(p.a, p.b)
            self._base[(seed, persona)] = float(logit(min(max(draw, 1e-12), 1 - 1e-12)))
        if (seed, message, perturbation) not in self._shared:
            self._shared[(seed, message, perturbation)] = float(
                _rng(seed, "u", message, perturbation).normal(0.0, p.sigma * math.sqrt(p.rho)))
        v = _rng(seed, "v", message, perturbation, persona).normal(0.0, p.sigma * math.sqrt(1 - p.rho))
        shift = self.options.deltas.get(message, 0.0)
        return float(expit(self._base[(seed, persona)] + shift + self._shared[(seed, message, perturbation)] + v))

    async def complete(self, query: Query) -> Reply:
        if self.options.latency:
            await asyncio.sleep(self.options.latency)
        seed = self.options.seed if self.options.seed is not None else (query.seed or 0)
        p = self.cell_probability(seed, query.persona, query.message, query.perturbation)
        u_invalid, u_yes = _rng(seed, "y", query.message, query.perturbation, query.persona,
                                query.replicate).random(2)
        text = "Maybe" if u_invalid < self.options.invalid_rate else ("Yes" if u_yes < p else "No")
        logprobs = None
        if query.logprobs:
            logprobs = {"Yes": math.log(max(p, 1e-300)), "No": math.log(max(1 - p, 1e-300))}
        return Reply(text=text, model_id=f"simulated/{self.model_id}",
                     prompt_tokens=(len(query.system) + len(query.user)) // 4, completion_tokens=1,
                     logprobs=logprobs, p_yes=p)

    async def aclose(self) -> None:
        return None
