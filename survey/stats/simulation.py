"""Simulated long tables with known truth, on any scale a kind can simulate (survey.stats.kinds):
Yes/No from the Beta-logit model (survey.stats.beta_logit), rating scales from the ordinal model
(survey.kinds.ordinal.table)."""

from __future__ import annotations

import pandas as pd

from survey.stats.kinds import kind_of, scale_view


def simulate(n: int, m: int, r: int, *, scale: str = "binary", **params) -> pd.DataFrame:
    """A long table of simulated answers on ``scale``: "binary" (Yes/No from the Beta-logit model, with
    ``mu`` default 0.5 and ``kappa`` default 4) or a rating scale such as "likert5" (the ordinal model, with
    ``tau`` default 1 and ``cuts`` default logit(c/K)). The kind's model takes the other ``params`` by name:
    ``sigma`` (1), ``rho`` (0.3) and ``delta`` (0) keep their meaning on the logit scale; ``seed``, ``m_b`` (B's
    perturbations), ``messages`` (("A", "B")) and ``model`` ("simulated")."""
    view = scale_view(scale)
    return kind_of(view).simulate(view, n, m, r, **params)


__all__ = ["simulate"]
