"""Operating characteristics of a sequential design by simulation from the Beta-logit model.

Each simulated survey's paired differences D_j = mean_i (yes_ij^A - yes_ij^B) / r come from
survey.stats.beta_logit (Helm & Priebe 2026, "When prompt perturbations break your A/B test: A valid
statistical test for generative surveying"); the design's rule runs on all of them at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from survey.common.threads import one_blas_thread
from survey.stats.beta_logit import ModelParams, simulate_counts
from survey.stats.permutation import sign_flip_pvalues
from survey.stats.sequential.design import SequentialDesign
from survey.stats.sequential.rule import run_rule

_MAX_CELLS = 2_000_000  # cells per simulated batch


def simulate_pair_differences(params: ModelParams, n: int, pairs: int, r: int, simulations: int,
                              rng: np.random.Generator) -> np.ndarray:
    """(simulations, pairs) paired differences D_j of simulated surveys with n personas, r replicates."""
    out = np.empty((simulations, pairs))
    step = max(1, _MAX_CELLS // (n * pairs))
    for start in range(0, simulations, step):
        k = min(step, simulations - start)
        ya, yb = simulate_counts(params, n, pairs, pairs, r, rng, size=(k,))
        out[start:start + k] = (ya - yb).mean(axis=-2) / r
    return out


@dataclass
class OperatingCharacteristics:
    """Rejection rate and queries of a sequential design beside the fixed design of max_pairs."""

    design: SequentialDesign
    params: ModelParams
    personas: int
    replicates: int
    simulations: int
    power: float  # rejection rate of the sequential rule
    futility_rate: float
    expected_pairs: float
    fixed_power: float  # the sign-flip test on all max_pairs pairs
    naive_rejection: float  # fixed sign-flip p-value tested after every round, no correction

    @property
    def statistic(self) -> float:
        return self.ratio

    @property
    def expected_queries(self) -> float:
        return 2.0 * self.expected_pairs * self.personas * self.replicates

    @property
    def fixed_queries(self) -> int:
        return 2 * self.design.max_pairs * self.personas * self.replicates

    @property
    def ratio(self) -> float:
        """Expected queries of the sequential rule over the fixed design's."""
        return self.expected_pairs / self.design.max_pairs

    def to_dict(self) -> dict:
        return {"design": self.design.model_dump(), "params": self.params.model_dump(),
                "personas": self.personas, "replicates": self.replicates, "simulations": self.simulations,
                "power": self.power, "futility_rate": self.futility_rate,
                "expected_pairs": self.expected_pairs, "expected_queries": self.expected_queries,
                "fixed_power": self.fixed_power, "fixed_queries": self.fixed_queries, "ratio": self.ratio,
                "naive_rejection": self.naive_rejection}


def naive_rejections(D, looks, alpha: float, alternative: str = "two-sided", flips: int = 999, seed=0) -> np.ndarray:
    """Per survey: does the fixed sign-flip p-value, tested after every look without correction, ever
    fall to alpha? The mistake sequential tests prevent: its rate exceeds alpha under H0."""
    hit = np.zeros(len(D), dtype=bool)
    for m in looks:
        hit |= sign_flip_pvalues(D[:, :m], alternative, n_resamples=flips, seed=seed) <= alpha
    return hit


def operating_characteristics(design: SequentialDesign, params: ModelParams, personas: int, replicates: int,
                              simulations: int = 2000, seed=0, D=None, naive: bool = False) -> OperatingCharacteristics:
    """Simulate ``simulations`` surveys at ``params`` (or use the given D) and run the rule on each."""
    rng = np.random.default_rng(seed)
    if D is None:
        D = simulate_pair_differences(params, personas, design.max_pairs, replicates, simulations, rng)
    with one_blas_thread():
        out = run_rule(D, design, seed=int(rng.integers(2 ** 31)))
        fixed = sign_flip_pvalues(D, design.alternative, n_resamples=999, seed=int(rng.integers(2 ** 31)))
        naive_rate = (float(naive_rejections(D, out.looks, design.alpha, design.alternative).mean())
                      if naive else float("nan"))
    return OperatingCharacteristics(design, params, personas, replicates, len(D), float(out.rejected.mean()),
                                    float((out.decision == 1).mean()), float(out.pairs.mean()),
                                    float((fixed <= design.alpha).mean()), naive_rate)


def fixed_power(params: ModelParams, personas: int, pairs: int, replicates: int, alpha: float = 0.05,
                simulations: int = 2000, seed=0, alternative: str = "two-sided") -> float:
    """Power of the fixed sign-flip test on ``pairs`` pairs (999 random sign vectors past 12 pairs)."""
    D = simulate_pair_differences(params, personas, pairs, replicates, simulations, np.random.default_rng(seed))
    with one_blas_thread():
        return float((sign_flip_pvalues(D, alternative, n_resamples=999, seed=seed) <= alpha).mean())


def delta_for_power(power: float, params: ModelParams, personas: int, pairs: int, replicates: int,
                    alpha: float = 0.05, simulations: int = 2000, seed=0, high: float = 4.0, steps: int = 12) -> float:
    """The logit effect delta at which the fixed design reaches ``power`` (bisection, common seeds)."""
    low = 0.0
    for _ in range(steps):
        mid = (low + high) / 2
        at = params.model_copy(update={"delta": mid})
        if fixed_power(at, personas, pairs, replicates, alpha, simulations, seed) < power:
            low = mid
        else:
            high = mid
    return (low + high) / 2
