"""`survey plan` (power and budget allocation by simulation) and `survey validate` (null-split and
sub-sampling checks of every test on a collected or simulated long table). See docs/planning.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from survey.cli.common import echo_json, json_option, print_table, study_option, to_json
from survey.common.progress import progress_bar
from survey.data.sources import load_long_table
from survey.data.table import messages_in, models_in, require_messages, require_models
from survey.errors import SurveyError, pydantic_message
from survey.stats.beta_logit import make_params
from survey.stats.estimate import estimate
from survey.stats.planning.power import (
    DEFAULT_BUDGETS,
    DEFAULT_STRATEGIES,
    TESTS,
    best_per_budget,
    cheapest_design,
    designs_for,
    estimate_power,
    mc_error,
    parse_design,
    parse_strategy,
)
from survey.stats.planning.validity import DEFAULT_DRAWS, VALIDITY_TESTS, validity_study

ALT = click.Choice(["two-sided", "greater", "less"])
PARAMS = ("mu", "kappa", "sigma", "rho")


class PlanOptions(BaseModel):
    """Numeric options of `survey plan`; pydantic names the bad flag and its range."""

    model_config = ConfigDict(extra="forbid")
    alpha: float = Field(gt=0, lt=1)
    simulations: int = Field(ge=20, le=1_000_000)
    flips: int = Field(ge=19)
    budgets: list[int] = Field(min_length=1)
    target_power: float | None = Field(default=None, gt=0, lt=1)


class ValidateOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    alpha: float = Field(gt=0, lt=1)
    draws: int = Field(ge=10, le=100_000)
    flips: int = Field(ge=19)
    confidence: float = Field(gt=0, lt=1)


def _options(cls, **kw):
    try:
        return cls(**kw)
    except ValidationError as exc:
        raise SurveyError(pydantic_message(exc, "options")) from exc


def _ints(values, flag: str) -> list[int]:
    out = []
    for v in values:
        for part in str(v).split(","):
            try:
                out.append(int(float(part)))
            except ValueError:
                raise SurveyError(f"{flag} takes whole numbers (repeat it or separate by commas); got '{part}'") \
                    from None
    return out


def _pick_result(rows: list[dict], model: str | None, message: str | None, source: str) -> dict:
    if message is not None:
        rows = [r for r in rows if r.get("message") == message]
    if model is not None:
        rows = [r for r in rows if r.get("model") == model]
    if len(rows) != 1:
        found = ", ".join(f"{r.get('model')}/{r.get('message')}" for r in rows) or "none"
        raise SurveyError(f"{source}: need exactly one estimate; matching (model/message): {found}. "
                          "Choose with --model and --message")
    return rows[0]


def load_params(from_estimate, from_table, model, message, study=None) -> tuple[dict, str]:
    """mu, kappa, sigma, rho from a `survey estimate --json` file or a long table, and the source."""
    if from_estimate and from_table:
        raise SurveyError("give --from-estimate or --from-table, not both")
    if from_estimate:
        path = Path(from_estimate)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            raise SurveyError(f"{path}: no such file (write one with `survey estimate ... --json > {path}`)") \
                from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise SurveyError(f"{path}: not JSON ({exc}); expected `survey estimate --json` output") from None
        rows = data.get("results") if isinstance(data, dict) else None
        if not isinstance(rows, list) or not all(isinstance(r, dict) and "kappa" in r for r in rows):
            raise SurveyError(f"{path}: expected {{\"results\": [...]}} as written by `survey estimate --json`")
        row = _pick_result(rows, model, message, str(path))
        missing = [p for p in PARAMS if not isinstance(row.get(p), (int, float))]
        if missing:
            raise SurveyError(f"{path}: the estimate lacks numeric {', '.join(missing)}")
        return ({p: float(row[p]) for p in PARAMS},
                f"{path} (model {row.get('model')}, message {row.get('message')})")
    if from_table:
        if not message:
            raise SurveyError("--from-table needs --message: the message whose answers are fitted")
        df = load_long_table(from_table, study, min_perturbations=0)
        models = models_in(df)
        if model is None and len(models) > 1:
            raise SurveyError(f"{from_table} has several models ({', '.join(models)}); choose one with --model")
        mdl = model or models[0]
        if mdl not in models:
            raise SurveyError(f"model '{mdl}' is not in {from_table}; it has {', '.join(models)}")
        res = estimate(df, mdl, message)
        return ({p: float(getattr(res, p)) for p in PARAMS},
                f"estimated from {from_table} (model {mdl}, message {message})")
    return {}, "given"


@click.command("plan")
@click.option("--mu", type=float, help="mean persona Yes-rate (default 0.5, or read from a source)")
@click.option("--kappa", type=float, help="Beta precision a+b (default 4)")
@click.option("--sigma", type=float, help="perturbation s.d. on the logit scale (default 1)")
@click.option("--rho", type=float, help="shared share of the perturbation variance (default 0.3)")
@click.option("--delta", type=float, required=True, help="logit effect of B over A to detect (0 gives the size)")
@click.option("--from-estimate", type=click.Path(dir_okay=False), help="read mu, kappa, sigma, rho from `survey estimate --json` output")
@click.option("--from-table", type=click.Path(dir_okay=False), help="estimate mu, kappa, sigma, rho from a long table (with --message)")
@click.option("--model", "model", default=None, help="model to take from --from-estimate/--from-table")
@click.option("--message", default=None, help="message to take from --from-estimate/--from-table")
@click.option("--study", default=None, help="study to read from a --from-table store holding several")
@click.option("--budget", "budgets", multiple=True, help="total queries N = 2nmr; repeat or comma-separate [default: 200..10000, 10 values]")
@click.option("--strategy", "strategies", multiple=True, help="allocation n:m:r, e.g. 1:4:1; repeatable [default: 8 strategies]")
@click.option("--design", "designs", multiple=True, help="an explicit n,m,r triple; repeatable")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--simulations", type=int, default=1000, show_default=True, help="simulated surveys per design")
@click.option("--flips", type=int, default=1000, show_default=True, help="random sign vectors when m > 12 (exact below)")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--alternative", type=ALT, default="two-sided", show_default=True)
@click.option("--target-power", type=float, default=None, help="also find the cheapest n,m,r reaching this power")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="also write the JSON result here")
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="plot file [default: next to --out, else reports/plan.png]")
@click.option("--no-plot", is_flag=True, help="do not draw the plot")
@json_option
def plan_cmd(mu, kappa, sigma, rho, delta, from_estimate, from_table, model, message, study, budgets, strategies,
             designs, alpha, simulations, flips, seed, alternative, target_power, out, plot, no_plot, as_json):
    """Simulate the power of each test for allocation strategies and budgets; find the cheapest design."""
    opts = _options(PlanOptions, alpha=alpha, simulations=simulations, flips=flips,
                    budgets=_ints(budgets, "--budget") if budgets else list(DEFAULT_BUDGETS),
                    target_power=target_power)
    values, source = load_params(from_estimate, from_table, model, message, study)
    given = {k: v for k, v in (("mu", mu), ("kappa", kappa), ("sigma", sigma), ("rho", rho)) if v is not None}
    values.update(given)  # a flag overrides the value read from a file
    params = make_params(**values, delta=delta)
    triples = [parse_design(d) for d in designs]
    if strategies:
        for s in strategies:
            parse_strategy(s)
        strategy_list = list(strategies)
    else:
        strategy_list = [] if triples else list(DEFAULT_STRATEGIES)
    plan = designs_for(strategy_list, opts.budgets, triples)
    show = not as_json
    with progress_bar("simulating designs", len(plan), show) as advance:
        results = estimate_power(params, plan, opts.simulations, opts.alpha, seed, alternative, opts.flips,
                                 progress=advance)
    cheapest = None
    if opts.target_power is not None:
        with progress_bar("searching the cheapest design", None, show):
            cheapest = cheapest_design(params, results, opts.target_power, opts.simulations, opts.alpha,
                                       seed, alternative, opts.flips)
    warnings = []
    if params.rho > 0:
        warnings.append(f"rho = {params.rho:g} > 0: the sign and Wilcoxon tests are INVALID (oversized); their "
                        "'power' includes false positives. Plan with the permutation test.")
    if opts.target_power is not None and cheapest is None:
        warnings.append(f"no design reached power {opts.target_power:g} with the permutation test; "
                        "try larger --budget values or another --strategy")
    plot_file = None
    if not no_plot:
        from survey.plots.power import power_curves

        plot_file = Path(plot) if plot else (Path(out).with_suffix(".png") if out else Path("reports/plan.png"))
        plot_file.parent.mkdir(parents=True, exist_ok=True)
        fig = power_curves(results, opts.alpha, opts.target_power, params.rho,
                           title=_describe(params, opts.simulations))
        fig.savefig(plot_file, dpi=120)
    doc = {
        "params": {**params.model_dump(), "source": source},
        "alpha": opts.alpha, "simulations": opts.simulations, "seed": seed, "alternative": alternative,
        "flips": opts.flips, "mc_error": mc_error(opts.simulations),
        "results": [r.to_dict() for r in results],
        "best": best_per_budget(results),
        "cheapest": cheapest, "target_power": opts.target_power,
        "warnings": warnings, "plot": str(plot_file) if plot_file else None,
    }
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(to_json(doc) + "\n")
    if as_json:
        echo_json(doc)
        return
    _print_plan(doc, params)


def _describe(params, simulations: int) -> str:
    return (f"mu={params.mu:g}, kappa={params.kappa:g}, sigma={params.sigma:g}, rho={params.rho:g}, "
            f"delta={params.delta:g}; {simulations} simulated surveys per design")


def _print_plan(doc: dict, params) -> None:
    click.echo(f"parameters ({doc['params']['source']}): {_describe(params, doc['simulations'])}; "
               f"alpha = {doc['alpha']:g}; Monte Carlo s.e. <= {doc['mc_error']:.3f}")
    best = {(b["budget"], b["strategy"]) for b in doc["best"]}
    rows = []
    for r in sorted(doc["results"], key=lambda x: x["budget"]):  # stable: strategies keep their order
        mark = "*" if (r["budget"], r["strategy"]) in best else ""
        rows.append([r["budget"], r["strategy"] + mark, r["n"], r["m"], r["r"], 2 * r["n"] * r["m"] * r["r"],
                     *(r["power"][t] for t in TESTS)])
    print_table("power by design (* = best strategy at that budget, permutation test)",
                ["budget", "strategy", "n", "m", "r", "queries", *TESTS], rows)
    c = doc["cheapest"]
    if c:
        click.echo(f"cheapest design reaching power {c['target_power']:g}: n = {c['n']} personas, m = {c['m']} "
                   f"perturbations, r = {c['r']} replicates ({c['budget']} queries, strategy {c['strategy']}, "
                   f"power {c['power']['permutation']:.3f})")
    for w in doc["warnings"]:
        click.echo(f"warning: {w}")
    if doc["plot"]:
        click.echo(f"plot: {doc['plot']}")


@click.command("validate")
@click.argument("table", type=click.Path(dir_okay=False))
@click.option("--message", default=None, help="null condition: split this message's perturbations in two halves")
@click.option("--a", "a", default=None, help="alternative condition: message A ...")
@click.option("--b", "b", default=None, help="... against message B (power by sub-sampling)")
@click.option("--model", "model", default=None, help="model to check [default: every model]")
@click.option("--config", "configs", multiple=True, help="n,m,r sub-sample size; repeatable [default: the paper's six, clipped to the table]")
@click.option("--draws", type=int, default=DEFAULT_DRAWS, show_default=True, help="random sub-samples per configuration")
@click.option("--alpha", type=float, default=0.05, show_default=True)
@click.option("--confidence", type=float, default=0.95, show_default=True, help="level of the Clopper-Pearson intervals")
@click.option("--flips", type=int, default=1000, show_default=True, help="random sign vectors when m > 12 (exact below)")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--alternative", type=ALT, default="two-sided", show_default=True)
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help="ECDF plot [default: reports/validate.png; one file per model]")
@click.option("--no-plot", is_flag=True)
@study_option
@json_option
def validate_cmd(table, message, a, b, model, configs, draws, alpha, confidence, flips, seed, alternative,
                 plot, no_plot, study, as_json):
    """Rejection rates of every test on random sub-samples: null split (Type-I error) or A vs B (power)."""
    opts = _options(ValidateOptions, alpha=alpha, draws=draws, flips=flips, confidence=confidence)
    df = load_long_table(table, study, min_perturbations=0)
    msgs = messages_in(df)
    if message is not None and (a is not None or b is not None):
        raise SurveyError("give --message (null split) or --a and --b (alternative), not both")
    if message is None and (a is None or b is None):
        raise SurveyError(f"give --message M for the null split, or --a A --b B for power; messages: {', '.join(msgs)}")
    require_messages(df, [message, a, b])
    if a is not None and a == b:
        raise SurveyError("--a and --b must name two different messages (use --message for the null split)")
    cfgs = [parse_design(c) for c in configs] or None
    models = models_in(df) if model is None else [model]
    require_models(df, models)
    results = []
    n_cfg = len(cfgs) if cfgs else 6
    with progress_bar("sub-sampling", n_cfg * len(models), not as_json) as advance:
        for mdl in models:
            results.append(validity_study(df, mdl, message or a, None if message else b, cfgs, opts.draws,
                                          opts.alpha, seed, alternative, opts.flips, opts.confidence,
                                          progress=advance))
    plots = []
    if not no_plot:
        from survey.plots.validity import pvalue_ecdfs

        base = Path(plot or "reports/validate.png")
        for mdl, res in zip(models, results, strict=True):
            path = base if len(models) == 1 else base.with_name(f"{base.stem}-{_safe(mdl)}{base.suffix}")
            path.parent.mkdir(parents=True, exist_ok=True)
            pvalue_ecdfs(res).savefig(path, dpi=110)
            plots.append(str(path))
    flat = [r for res in results for r in res]
    doc = {"condition": "null" if message else "alternative", "table": str(table),
           "alpha": opts.alpha, "draws": opts.draws, "confidence": opts.confidence, "seed": seed,
           "results": [r.to_dict() for r in flat], "plots": plots}
    if as_json:
        echo_json(doc)
        return
    _print_validity(doc)


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)


def _print_validity(doc: dict) -> None:
    null = doc["condition"] == "null"
    what = "Type-I error (null split)" if null else "power (alternative)"
    for model in dict.fromkeys(r["model"] for r in doc["results"]):
        rows = []
        for r in (x for x in doc["results"] if x["model"] == model):
            for t in VALIDITY_TESTS:
                x = r["tests"][t]
                rows.append([r["n"], r["m"], r["r"], t, x["rate"], f"[{x['ci'][0]:.3f}, {x['ci'][1]:.3f}]",
                             x["verdict"] if null else ""])
        first = next(x for x in doc["results"] if x["model"] == model)
        cols = ["n", "m", "r", "test", "rate", "CI"] + (["verdict"] if null else [])
        print_table(f"model {model}: {what}, {first['a']} vs {first['b']}, rejection rate at alpha = "
                    f"{doc['alpha']:g} over {doc['draws']} draws ({doc['confidence']:.0%} Clopper-Pearson CI)",
                    cols, [row[:len(cols)] for row in rows])
        for x in doc["results"]:
            if x["model"] == model and x["requested"] != [x["n"], x["m"], x["r"]]:
                click.echo(f"note: default configuration {tuple(x['requested'])} clipped to the table: "
                           f"({x['n']}, {x['m']}, {x['r']})")
    if null:
        click.echo("a valid test has alpha inside or above its interval: 'oversized' means the interval lies "
                   "above alpha; 'conservative' below (expected for the permutation test at small m)")
    for p in doc["plots"]:
        click.echo(f"plot: {p}")


def register(cli: click.Group) -> None:
    for cmd in (plan_cmd, validate_cmd):
        cli.add_command(cmd)
