"""Best-worst scaling's power model (survey.stats.planning.plan): the Holm-adjusted A vs B sign-flip test of
best-minus-worst scores, simulated on the study's cyclic block design (survey.kinds.maxdiff.simulation)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from survey.errors import SurveyError
from survey.kinds.maxdiff.simulation import simulate_maxdiff_arrays
from survey.kinds.maxdiff.statistics import scores_from_counts
from survey.kinds.pick.statistics import holm_pair_pvalues
from survey.stats.planning.kind_plans import MESSAGES_MAX, KindPlan, listed, numbers, pair_count, scale_size


@dataclass(frozen=True)
class MaxDiffPlan(KindPlan):
    """Best–worst scaling (``scale`` "maxdiff3": blocks of s = 3) on v messages: ``delta`` message A's utility over
    every other message (then ``messages`` = v is needed), or one utility per message; sigma, rho as for pick;
    ``positions`` a logit shift per position in a block."""

    delta: float | Sequence[float]
    scale: str = "maxdiff3"
    messages_shown: int | None = None
    sigma: float | None = None
    rho: float | None = None
    positions: Sequence[float] | None = None
    pair_pvalues = staticmethod(holm_pair_pvalues)

    def __post_init__(self):
        s = scale_size(self.scale, "maxdiff")
        v = self.messages_shown if np.ndim(self.delta) == 0 else len(np.atleast_1d(self.delta))
        if v is None:
            raise SurveyError(f"scale '{self.scale}': say how many messages the study compares (`messages=`), "
                              "or give one delta per message")
        if self.messages_shown is not None and int(self.messages_shown) != v:
            raise SurveyError(f"{v} deltas for {self.messages_shown} messages: give one delta per message")
        if not s <= int(v) <= MESSAGES_MAX:
            raise SurveyError(f"scale '{self.scale}' shows {s} messages per block: the study needs {s} to "
                              f"{MESSAGES_MAX} messages; got {v}")
        self._check_common(int(v))
        object.__setattr__(self, "messages_shown", int(v))
        object.__setattr__(self, "positions", (0.0,) * s if self.positions is None
                           else numbers(self.positions, "positions", s))

    @property
    def holm_family(self) -> tuple[int, str]:
        """A vs B is Holm-adjusted over every pair of the v messages (survey.stats.planning.paraphrases)."""
        return pair_count(self.messages_shown), "pairs of messages"

    @property
    def prompts(self) -> int:  # v blocks per paraphrase set
        return len(self.delta)

    @property
    def draws_per_cell(self) -> int:
        return 2 * len(self.delta) * len(self.positions)

    def per_set(self, size, n, m, r, rng) -> np.ndarray:
        best, worst, valid = simulate_maxdiff_arrays(size, n, m, r, len(self.delta), len(self.positions),
                                                     deltas=self.delta, sigma=self.sigma, rho=self.rho,
                                                     positions=self.positions, seed=rng)
        return scores_from_counts(best, worst, valid)

    def describe(self) -> str:
        return (f"{self.scale} on {len(self.delta)} messages: utilities {listed(self.delta)} (logit), "
                f"sigma={self.sigma:g}, rho={self.rho:g}, position shifts {listed(self.positions)}; A vs B "
                f"best-minus-worst, Holm over the {pair_count(len(self.delta))} pairs")


__all__ = ["MaxDiffPlan"]
