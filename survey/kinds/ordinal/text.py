"""The command line's text for rating scales: the mean-score printers, and the ordinal model's estimate."""

from __future__ import annotations

import click

from survey.cli.common import print_table
from survey.cli.kind_output import KindText


def echo_ordinal_estimate(res: dict, message: str) -> None:
    """One model's ordinal-model estimate (``OrdinalEstimate.to_dict()`` with its model)."""
    se, ci = res["se"], res["ci"]
    cut_se = se.get("cuts") or [None] * len(res["cuts"])
    rows = [[p, res[p], se.get(p), "[{:.4g}, {:.4g}]".format(*ci[p]) if p in ci else None]
            for p in ("tau", "sigma", "rho")]
    rows += [[f"cut {k + 1}", c, s, None] for k, (c, s) in enumerate(zip(res["cuts"], cut_se, strict=True))]
    print_table(f"model {res['model']}, message {message}: {res['n']} personas, {res['m']} perturbations, "
                f"{res['points']}-point scale; estimator: {res['method']}",
                ["parameter", "estimate", "bootstrap s.e.", "95% interval"], rows)
    for note in res["notes"]:
        click.echo(f"note: {note}")


TEXT = KindText(estimate=echo_ordinal_estimate)
