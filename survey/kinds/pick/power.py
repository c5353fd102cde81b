"""Pick one of k's power model (survey.stats.planning.plan): the Holm-adjusted A vs B sign-flip test over
paraphrase sets, simulated by the multinomial-logit simulator (survey.kinds.pick.table)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from survey.errors import SurveyError
from survey.kinds.pick.statistics import cell_shares, holm_pair_pvalues, message_shares
from survey.kinds.pick.table import PickTruth, simulate_pick_arrays
from survey.stats.planning.kind_plans import KindPlan, listed, numbers, pair_count, scale_size


@dataclass(frozen=True)
class PickPlan(KindPlan):
    """Pick one of k (``scale`` "pick3": k = 3): ``delta`` message A's logit utility over every other message, or
    one utility per message (A, B, ...; the plan tests A vs B); ``sigma`` the paraphrase s.d. (default 1),
    ``rho`` its share all personas share (0.3), ``positions`` a logit shift per position (none), ``tau`` the
    s.d. of a persona's pull towards position 1 (0)."""

    delta: float | Sequence[float]
    scale: str = "pick3"
    sigma: float | None = None
    rho: float | None = None
    positions: Sequence[float] | None = None
    tau: float | None = None
    invalid_rate: float = 0.0
    pair_pvalues = staticmethod(holm_pair_pvalues)
    family = "pick"  # the scale names it plans: "pick3" (a class attribute, not a field)

    def __post_init__(self):
        k = scale_size(self.scale, self.family)
        self._check_common(k)
        tau = 0.0 if self.tau is None else float(self.tau)
        if not (np.isfinite(tau) and tau >= 0):
            raise SurveyError(f"`tau` is the s.d. of a persona's pull towards position 1, >= 0; got {self.tau}")
        if not 0 <= self.invalid_rate < 1:
            raise SurveyError(f"`invalid_rate` is a reply's chance of being unusable, in [0, 1); got {self.invalid_rate}")
        object.__setattr__(self, "tau", tau)
        object.__setattr__(self, "positions", (0.0,) * k if self.positions is None
                           else numbers(self.positions, "positions", k))

    @property
    def holm_family(self) -> tuple[int, str]:
        """A vs B is Holm-adjusted over every pair of the k messages (survey.stats.planning.paraphrases)."""
        return pair_count(len(self.delta)), "pairs of messages"

    @property
    def prompts(self) -> int:  # k arrangements of each paraphrase set
        return len(self.delta)

    @property
    def draws_per_cell(self) -> int:
        return len(self.delta) ** 2

    def per_set(self, size, n, m, r, rng) -> np.ndarray:
        truth = PickTruth(deltas=self.delta, sigma=self.sigma, rho=self.rho, positions=self.positions, tau=self.tau,
                          invalid_rate=self.invalid_rate)
        chosen, valid, _ = simulate_pick_arrays(size, n, m, r, len(self.delta), truth=truth, seed=rng)
        return message_shares(cell_shares(chosen, valid))

    def summary(self) -> dict:
        return {**super().summary(), "tau": self.tau, "invalid_rate": self.invalid_rate}

    def describe(self) -> str:
        return (f"{self.scale}: message utilities {listed(self.delta)} (logit), sigma={self.sigma:g}, rho={self.rho:g}, "
                f"position shifts {listed(self.positions)}, tau={self.tau:g}; A vs B, Holm over the "
                f"{pair_count(len(self.delta))} pairs")


__all__ = ["PickPlan"]
