"""The command line's text for Yes/No results and the Beta-logit estimate."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.cli.kind_output import KindText, header, tests_and_decision
from survey.stats.comparison import Comparison


def echo_binary(res, r: Comparison) -> None:
    """One model's Yes/No comparison: P(Yes) difference, its interval, every test."""
    lo, hi = r.effect.ci
    header(r)
    click.echo(f"effect T = mean P(Yes|{r.a}) - P(Yes|{r.b}) = {r.effect.estimate:+.4f}, "
               f"{r.effect.confidence:.0%} CI [{lo:+.4f}, {hi:+.4f}] ({r.effect.method})")
    tests_and_decision(res, r)


def echo_beta_estimate(row: dict, message: str) -> None:
    """One model's Beta-logit estimate (``EstimateResult.to_dict()`` with its model)."""
    se, ci = row["se"], row["ci"]
    print_table(f"model {row['model']}, message {message}: {row['n_personas']} personas, "
                f"{row['n_perturbations']} perturbations; estimator: {row['method']}",
                ["parameter", "estimate", "bootstrap s.e.", "95% interval"],
                [[p, row[p], se.get(p), "[{:.4g}, {:.4g}]".format(*ci[p]) if p in ci else None]
                 for p in ("mu", "kappa", "a", "b", "sigma", "rho")])
    if row.get("note"):
        click.echo(f"note: {row['note']}")
    click.echo(f"rho: {row['rho_note']}")


TEXT = KindText(result=echo_binary, estimate=echo_beta_estimate)
