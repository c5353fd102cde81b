"""`survey simulate`, `survey analyze`, `survey estimate`: the statistical core on a long table."""

from __future__ import annotations

import click

from survey.cli.common import echo_json, json_option, print_table, study_option
from survey.data.sources import load_long_table
from survey.data.table import models_in, pick_messages, require_messages, require_models, write_table
from survey.errors import SurveyError, TableError
from survey.stats import compare_messages, estimate
from survey.stats.beta_logit import simulate

ALT = click.Choice(["two-sided", "greater", "less"])


@click.command("simulate")
@click.option("--personas", "n", type=int, default=50, show_default=True, help="n personas")
@click.option("--perturbations", "m", type=int, default=10, show_default=True, help="m perturbations per message")
@click.option("--perturbations-b", "m_b", type=int, default=None, help="m for message B if it differs")
@click.option("--replicates", "r", type=int, default=5, show_default=True, help="r replicates per cell")
@click.option("--mu", type=float, default=0.5, show_default=True)
@click.option("--kappa", type=float, default=4.0, show_default=True)
@click.option("--sigma", type=float, default=1.0, show_default=True)
@click.option("--rho", type=float, default=0.3, show_default=True)
@click.option("--delta", type=float, default=0.0, show_default=True, help="logit effect of B over A")
@click.option("--seed", type=int, default=None)
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="output .csv or .parquet")
@json_option
def simulate_cmd(n, m, m_b, r, mu, kappa, sigma, rho, delta, seed, out, as_json):
    """Simulate respondents from the Beta-logit model and write a long table."""
    df = simulate(n, m, r, mu=mu, kappa=kappa, sigma=sigma, rho=rho, delta=delta, seed=seed, m_b=m_b)
    path = write_table(df, out)
    info = {"out": str(path), "rows": len(df), "personas": n, "perturbations": {"A": m, "B": m_b or m},
            "replicates": r}
    if as_json:
        echo_json(info)
    else:
        click.echo(f"wrote {len(df)} rows to {path}")


@click.command("analyze")
@click.argument("table", metavar="TABLE_OR_STORE", type=click.Path(dir_okay=False))
@click.option("--a", "a", default=None, help="message A (default: the first of two, or the one --b leaves)")
@click.option("--b", "b", default=None, help="message B (default: the second of two, or the one --a leaves)")
@click.option("--flips", type=int, default=9999, show_default=True,
              help="random sign vectors when m > 40 (below that the test is exact)")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--alternative", type=ALT, default="two-sided", show_default=True)
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--probabilities", is_flag=True,
              help="use the exact per-cell P(Yes) (p_yes, local model in exact mode) instead of answer rates")
@study_option
@json_option
def analyze_cmd(table, a, b, flips, seed, alternative, confidence, probabilities, study, as_json):
    """Test message A vs B for every model in a long table (one independent analysis per model)."""
    if flips < 1:
        raise SurveyError("--flips must be >= 1")
    if not 0 < confidence < 1:
        raise SurveyError("--confidence must be between 0 and 1, e.g. 0.95")
    df = load_long_table(table, study)
    a, b = pick_messages(df, a, b)
    results, left_out = [], []
    for model in models_in(df):
        try:
            results.append(compare_messages(df, model, a, b, alternative=alternative, n_resamples=flips,
                                            seed=seed, confidence=confidence, probabilities=probabilities))
        except TableError as exc:  # e.g. every answer invalid: one such model must not hide the others
            left_out.append(str(exc))
    if not results:
        raise SurveyError("; ".join(left_out))
    if as_json:
        echo_json({"results": [_analysis_json(r) for r in results], "left_out": left_out})
        return
    for reason in left_out:
        click.echo(f"left out: {reason}", err=True)
    for r in results:
        lo, hi = r.effect.ci
        perts = ", ".join(f"{k} {v}" for k, v in r.n_perturbations.items())
        click.echo(f"\nmodel {r.model}: {r.a} vs {r.b} — {r.n_personas} personas, "
                   f"perturbations {perts} ({r.n_paired} pairs), r = {r.replicates}, "
                   f"invalid answers {r.invalid['total']}, empty cells {sum(r.empty_cells.values())}")
        click.echo(f"effect T = mean P(Yes|{r.a}) - P(Yes|{r.b}) = {r.effect.estimate:+.4f}, "
                   f"{confidence:.0%} CI [{lo:+.4f}, {hi:+.4f}] ({r.effect.method})")
        print_table("tests", ["test", "statistic", "p-value", "note"], [
            ["sign-flip permutation", r.permutation.statistic, r.permutation.pvalue,
             f"valid for any rho; {'exact' if r.permutation.exact else 'Monte Carlo'}"],
            ["unpaired permutation", r.unpaired.statistic, r.unpaired.pvalue, "valid; uses all perturbations"],
            ["sign", r.sign.statistic, r.sign.pvalue, "INVALID when rho > 0"],
            ["wilcoxon", r.wilcoxon.statistic, r.wilcoxon.pvalue, "INVALID when rho > 0"],
        ])


def _analysis_json(r) -> dict:
    d = r.to_dict()
    return {"model": d["model"], "a": d["a"], "b": d["b"], "n_personas": d["n_personas"],
            "n_perturbations": d["n_perturbations"], "n_paired": d["n_paired"],
            "replicates": d["replicates"], "invalid": d["invalid"], "empty_cells": d["empty_cells"],
            "effect": d["effect"], "tests": d["tests"]}


@click.command("estimate")
@click.argument("table", metavar="TABLE_OR_STORE", type=click.Path(dir_okay=False))
@click.option("--message", required=True, help="the message whose responses are fitted")
@click.option("--model", "model", default=None, help="model to fit (default: every model)")
@click.option("--bootstrap", type=int, default=200, show_default=True,
              help="bootstrap resamples of personas and perturbations for standard errors (0: none)")
@click.option("--seed", type=int, default=0, show_default=True)
@study_option
@json_option
def estimate_cmd(table, message, model, bootstrap, seed, study, as_json):
    """Estimate mu, kappa, sigma, rho of the Beta-logit model (seeds/004 appendix C)."""
    if bootstrap < 0:
        raise SurveyError("--bootstrap must be >= 0")
    df = load_long_table(table, study, min_perturbations=0)
    models = models_in(df) if model is None else [model]
    require_messages(df, [message])
    require_models(df, models)
    out, left_out = [], []
    for mdl in models:
        try:
            res = estimate(df, mdl, message, bootstrap=bootstrap, seed=seed)
        except SurveyError as exc:  # e.g. every answer invalid: one such model must not hide the others
            left_out.append(f"model '{mdl}': {exc}")
            continue
        out.append({"model": mdl, "message": message, **res.to_dict()})
    if not out:
        raise SurveyError("; ".join(left_out))
    if as_json:
        echo_json({"results": out, "left_out": left_out})
        return
    for reason in left_out:
        click.echo(f"left out: {reason}", err=True)
    for res in out:
        se = res["se"]
        print_table(f"model {res['model']}, message {message}: {res['n_personas']} personas, "
                    f"{res['n_perturbations']} perturbations",
                    ["parameter", "estimate", "bootstrap s.e."],
                    [[p, res[p], se.get(p)] for p in ("mu", "kappa", "a", "b", "sigma", "rho")])


def register(cli: click.Group) -> None:
    for cmd in (simulate_cmd, analyze_cmd, estimate_cmd):
        cli.add_command(cmd)
