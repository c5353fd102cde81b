"""Forced choice's power model (survey.stats.planning.plan): the preference test, sign flips over paraphrase pairs
of the order-averaged share choosing A, simulated by survey.kinds.choice.model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from survey.errors import SurveyError
from survey.kinds.choice.model import simulate_choice_counts
from survey.kinds.choice.statistics import choice_pvalues
from survey.stats.ab_tests import DECISION_TEST, ByTest
from survey.stats.planning.kind_plans import MAX_CELLS, KindPlan, listed, numbers


@dataclass(frozen=True)
class ChoicePlan(KindPlan):
    """Forced choice between A and B shown together in both orders (survey.kinds.choice.model): ``delta`` the
    logit preference of B over A (positive favours B, as for Yes/No), sigma and rho as for pick, ``positions``
    a logit shift of the first and second position (pick2's convention), ``tau`` the s.d. of a persona's pull
    towards the first. The deciding test is the preference test: sign flips over paraphrase pairs of the
    order-averaged share choosing A (one pair of messages: no Holm)."""

    delta: float
    scale: str = "choice"
    sigma: float | None = None
    rho: float | None = None
    positions: Sequence[float] | None = None
    tau: float | None = None

    def __post_init__(self):
        if np.ndim(self.delta) != 0 or not np.isfinite(float(self.delta)):
            raise SurveyError(f"forced choice compares two messages: `delta` takes one number; got {self.delta}")
        self._check_common(1)
        object.__setattr__(self, "delta", float(self.delta[0]))
        object.__setattr__(self, "tau", 0.0 if self.tau is None else float(self.tau))
        object.__setattr__(self, "positions", (0.0, 0.0) if self.positions is None
                           else numbers(self.positions, "positions", 2))

    prompts = 2  # both orders of each pair
    draws_per_cell = 2
    test_label = "the preference test (sign flips over paraphrase pairs of the order-averaged share choosing A)"

    def pvalues(self, n: int, m: int, r: int, simulations: int, rng: np.random.Generator,
                alternative: str = "two-sided", flips: int = 1000, exact_max_m: int = 12) -> ByTest:
        """Preference-test p-values on ``simulations`` forced-choice surveys of design (n, m, r)."""
        out = np.empty(simulations)
        step = max(1, MAX_CELLS // (n * m * r * 2))
        test_seed = int(rng.integers(2**63))
        position = float(1 / (1 + np.exp(self.positions[1] - self.positions[0])))
        for start in range(0, simulations, step):
            size = min(step, simulations - start)
            counts = simulate_choice_counts(n, m, r, rng, delta=self.delta, sigma=self.sigma, rho=self.rho,
                                            position=position, tau=self.tau, size=(size,))
            out[start:start + size] = choice_pvalues(*counts.arrays(), alternative, flips, exact_max_m, test_seed)[0]
        return ByTest({DECISION_TEST: out})

    def segment_model(self, source) -> tuple[dict, str]:
        """The keywords of the forced-choice segment simulator (survey.kinds.choice.segments)."""
        position = float(1 / (1 + np.exp(self.positions[1] - self.positions[0])))
        return {"tau": self.tau, "sigma": self.sigma, "rho": self.rho, "position": position}, "given"

    def summary(self) -> dict:
        return {"scale": self.scale, "messages": ["A", "B"], "delta": self.delta, "sigma": self.sigma, "rho": self.rho,
                "positions": list(self.positions), "tau": self.tau, "queries_per_cell": self.prompts}

    def describe(self) -> str:
        return (f"forced choice: delta={self.delta:g} (B over A, logit), sigma={self.sigma:g}, rho={self.rho:g}, "
                f"position shifts {listed(self.positions)}, tau={self.tau:g}; the preference test over pairs")


__all__ = ["ChoicePlan"]
