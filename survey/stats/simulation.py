"""Simulated long tables with known truth, on any scale a kind can simulate (survey.stats.kinds):
Yes/No from the Beta-logit model (survey.stats.beta_logit), rating scales from the ordinal model
(survey.kinds.ordinal.table)."""

from __future__ import annotations

import pandas as pd

from survey.stats.kinds import kind_of, scale_view


def simulate(n: int, m: int, r: int, mu: float | None = None, kappa: float | None = None, sigma: float = 1.0,
             rho: float = 0.3, delta: float = 0.0, seed=None, m_b: int | None = None,
             messages: tuple[str, str] = ("A", "B"), model: str = "simulated", scale: str = "binary",
             tau: float | None = None, cuts=None) -> pd.DataFrame:
    """A long table of simulated answers on ``scale``: "binary" (Yes/No from the Beta-logit model, with
    mu default 0.5 and kappa default 4) or a rating scale such as "likert5" (the ordinal model, with tau
    default 1 and cuts default logit(c/K)). sigma, rho and delta keep their meaning on the logit scale."""
    view = scale_view(scale)
    return kind_of(view).simulate(view, n, m, r, mu=mu, kappa=kappa, tau=tau, cuts=cuts, sigma=sigma, rho=rho,
                                  delta=delta, seed=seed, m_b=m_b, messages=messages, model=model)


__all__ = ["simulate"]
