"""A ranking's power model (survey.stats.planning.plan): the Holm-adjusted A vs B sign-flip test of Borda scores
over paraphrase sets, simulated by Plackett–Luce rankings (survey.kinds.rank.simulation). Its knobs and checks
are pick one of k's (survey.kinds.pick.power): the same utilities, positions and pull, shown the same way."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from survey.kinds.pick.power import PickPlan
from survey.kinds.pick.statistics import cell_shares, message_shares
from survey.kinds.pick.table import PickTruth
from survey.kinds.rank.simulation import simulate_rank_arrays
from survey.stats.planning.kind_plans import listed, pair_count


@dataclass(frozen=True)
class RankPlan(PickPlan):
    """A ranking (``scale`` "rank4": k = 4): ``delta`` message A's logit utility over every other message, or one
    utility per message (A, B, ...; the plan tests A vs B); ``sigma`` the paraphrase s.d. (default 1), ``rho`` its
    share all personas share (0.3), ``positions`` a logit shift per position (none), ``tau`` the s.d. of a
    persona's pull towards position 1 (0), ``invalid_rate`` a reply's chance of being unusable."""

    scale: str = "rank3"
    family = "rank"

    @property
    def draws_per_cell(self) -> int:
        return 2 * len(self.delta) ** 2  # a Gumbel draw and a sort per position, arrangement and replicate

    def per_set(self, size, n, m, r, rng) -> np.ndarray:
        truth = PickTruth(deltas=self.delta, sigma=self.sigma, rho=self.rho, positions=self.positions, tau=self.tau,
                          invalid_rate=self.invalid_rate)
        borda, valid, _ = simulate_rank_arrays(size, n, m, r, len(self.delta), truth=truth, seed=rng)
        return message_shares(cell_shares(borda, valid))

    def segment_model(self, source) -> tuple[dict, str]:
        """The keywords of the ranking segment simulator (survey.kinds.rank.segments)."""
        return {"tau": self.tau, "sigma": self.sigma, "rho": self.rho, "utilities": tuple(self.delta),
                "positions": tuple(self.positions), "invalid_rate": self.invalid_rate}, "given"

    def segment_delta(self) -> float:
        """A segment plan's effect: B's utility over A's (positive favours B, the segment plans' convention)."""
        return float(self.delta[1] - self.delta[0])

    def segment_draws(self, replicates: int) -> int:
        return 3 * len(self.delta) ** 2 * replicates  # Gumbel draws and two argsorts per reply and position

    def describe(self) -> str:
        return (f"{self.scale}: message utilities {listed(self.delta)} (logit, Plackett–Luce rankings), "
                f"sigma={self.sigma:g}, rho={self.rho:g}, position shifts {listed(self.positions)}, tau={self.tau:g}; "
                f"A vs B Borda scores, Holm over the {pair_count(len(self.delta))} pairs")


__all__ = ["RankPlan"]
