"""`survey plan` (power and budget allocation by simulation) and `survey validate` (null-split and
sub-sampling checks of every test on a collected or simulated long table). See docs/planning.md.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import click

from survey import SurveyError
from survey.cli.common import (
    DELTA_HELP,
    FLIPS_HELP_SIMULATED,
    alpha_option,
    count_type,
    echo_completeness,
    echo_json,
    flips_option,
    json_option,
    print_table,
    require_file,
    scale_option,
    seed_option,
    study_option,
    to_json,
)
from survey.cli.plan_segments import run_segment_plan, segment_options, study_scale, wants_segments
from survey.cli.sequential import design_options, print_sequential_plan, sequential_options
from survey.cli.texts import DECISION_TEST, DEFAULT_DRAWS, SCALE_CHOICES

if TYPE_CHECKING:
    from survey import PlanResult, Validation

# The statistics (numpy, pandas, scipy) are imported inside the commands: --help stays light.

ALT = click.Choice(["two-sided", "greater", "less"])


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


def _progress(enabled: bool):
    from survey import progress_bar

    return lambda label, total: progress_bar(label, total, enabled)


SCALE_HELP = (f"answer scale: {SCALE_CHOICES}; a rating scale is simulated from the ordinal model; pickK (pick one "
              "of K = 2..9), maxdiffS (best-worst, S = 3..9 per block), rankK (a ranking of K = 3..7) and choice from "
              "their kind's simulator")
TAU_HELP = ("rating scales: persona s.d. on the latent logit scale (default 1); pickK, rankK, choice: s.d. of a "
            "persona's pull towards position 1 (default 0)")
KIND_DELTA_HELP = "; pickK/maxdiffS/rankK: message A's logit utility over the others, or one per message (comma-separated)"
CUTS_HELP = "rating scales: K-1 increasing cut points on the latent logit scale, comma-separated [default: logit(c/K)]"


@click.command("plan")
@click.argument("study_file", metavar="[STUDY]", required=False, type=click.Path(dir_okay=False))
@click.option("--scale", default="binary", show_default=True, help=SCALE_HELP)
@click.option("--tau", type=float, default=None, help=TAU_HELP)
@click.option("--cuts", default=None, help=CUTS_HELP)
@click.option("--mu", type=float, help="mean persona Yes-rate (default 0.5, or read from a source)")
@click.option("--kappa", type=float, help="Beta precision a+b (default 4)")
@click.option("--sigma", type=float, help="perturbation s.d. on the logit scale (default 1)")
@click.option("--rho", type=float, help="shared share of the perturbation variance (default 0.3)")
@click.option("--delta", required=True, help=f"effect to detect (0 gives the size): {DELTA_HELP}{KIND_DELTA_HELP}")
@click.option("--positions", default=None, help="pickK/maxdiffS/rankK: a logit shift per position, comma-separated "
              "[default: none]")
@click.option("--messages", "n_messages", type=count_type(3, 26, "messages are named A..Z"), default=None,
              help="maxdiffS: how many messages the study compares (or give one --delta per message)")
@click.option("--from-estimate", type=click.Path(dir_okay=False), help="read mu, kappa, sigma, rho from `survey estimate --json` output")
@click.option("--from-table", type=click.Path(dir_okay=False), help="estimate mu, kappa, sigma, rho from a long table (with --message)")
@click.option("--model", "model", default=None, help="model to take from --from-estimate/--from-table")
@click.option("--message", default=None, help="message to take from --from-estimate/--from-table")
@click.option("--study", default=None, help="study to read from a --from-table store holding several")
@click.option("--method", type=click.Choice(["moments", "appendix-c"]), default="moments", show_default=True,
              help="estimator fitted on --from-table (appendix-c: the paper's, biased, for comparison)")
@click.option("--budget", "budgets", multiple=True, help="total queries N = 2nmr; repeat or comma-separate [default: 200..10000, 10 values]")
@click.option("--strategy", "strategies", multiple=True, help="allocation n:m:r, e.g. 1:4:1; repeatable [default: 8 strategies]")
@click.option("--design", "designs", multiple=True, help="an explicit n,m,r triple; repeatable")
@click.option("--max-paraphrases", type=count_type(2, 10**6, "no set holds more"), default=None,
              help="paraphrases per message the sets hold: recommendations stay within it")
@click.option("--sets", "sets", multiple=True, help="perturbation sets the study will use (names or files; "
              "repeatable): recommendations stay within the smallest")
@alpha_option()
@click.option("--simulations", type=int, default=1000, show_default=True, help="simulated surveys per design")
@flips_option(1000, FLIPS_HELP_SIMULATED)
@seed_option()
@click.option("--alternative", type=ALT, default="two-sided", show_default=True)
@click.option("--target-power", type=float, default=None, help="also find the cheapest n,m,r reaching this power")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="also write the JSON result here")
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="also save the power curves here (none unless given, or next to --out)")
@click.option("--no-plot", is_flag=True, help="draw no plot, even next to --out")
@click.option("--questions", type=count_type(2, 20, "a family of more questions is planned in parts"), default=None,
              help="Yes/No: a study of K questions with this effect each: also the family's power (the primary "
                   "question alone, and each question after the --family adjustment over the K)")
@click.option("--question-correlation", type=float, default=0.5, show_default=True,
              help="--questions: correlation of a persona's levels across the questions (Gaussian copula)")
@click.option("--family", type=click.Choice(["holm", "bh"]), default="holm", show_default=True,
              help="--questions: the adjustment over the questions")
@sequential_options("also simulate a sequential rule whose maximum is each design's m")
@segment_options
@json_option
def plan_cmd(study_file, scale, tau, cuts, mu, kappa, sigma, rho, delta, positions, n_messages, from_estimate, from_table, model, message, study, method, budgets, strategies,
             designs, max_paraphrases, sets, alpha, simulations, flips, seed, alternative, target_power, out, plot,
             no_plot, as_json, segments, persona_set, by, interaction_delta, pairs, replicates, adjustment, questions,
             question_correlation, family, **seq):
    """Simulate the power of each test for allocation strategies and budgets; find the cheapest design.
    With --segments K (or --personas SET --by ATTR): the personas needed per segment. STUDY (a study file):
    plan its question's scale; a segment plan then takes the study's personas by its [segments] (or --by)."""
    from survey import (
        BinaryPlan,
        PlanSource,
        RatingPlan,
        parse_cuts,
        plan,
        plan_params,
        plans_segments,
        simulation_view,
    )

    if questions is None:  # a setting of the family that is not planned would be silently ignored
        ctx = click.get_current_context()
        orphans = [f"--{n.replace('_', '-')}" for n in ("question_correlation", "family")
                   if ctx.get_parameter_source(n) is click.core.ParameterSource.COMMANDLINE]
        if orphans:
            raise SurveyError(f"{' and '.join(orphans)} describe{'s' if len(orphans) == 1 else ''} a family of "
                              "questions: add --questions K (or drop it)")
    study_spec = None
    if study_file is not None:
        require_file(study_file, "study")
        scale_given = click.get_current_context().get_parameter_source("scale") is click.core.ParameterSource.COMMANDLINE
        scale, study_spec = study_scale(study_file, scale_given)
    deltas = _floats(delta, "--delta")
    kind_params = plan_params(scale, deltas[0] if len(deltas) == 1 else deltas, sigma=sigma, rho=rho, tau=tau,
                              positions=_floats(positions, "--positions") if positions else None, messages=n_messages)
    seg = {"segments": segments, "persona_set": persona_set, "by": by, "interaction_delta": interaction_delta,
           "pairs": pairs, "replicates": replicates, "adjustment": adjustment, "target_power": target_power,
           "alpha": alpha, "simulations": simulations, "flips": flips, "seed": seed}
    if kind_params is not None:
        given = {"--mu": mu, "--kappa": kappa, "--cuts": cuts, "--from-estimate": from_estimate,
                 "--from-table": from_table, "--model": model, "--message": message, "--study": study,
                 "--sequential": seq["seq_method"],
                 "--segments/--personas": (wants_segments(seg) and not plans_segments(scale)) or None}
        wrong = [flag for flag, v in given.items() if v is not None]
        if wrong:
            raise SurveyError(f"{', '.join(wrong)} {'does' if len(wrong) == 1 else 'do'} not apply to scale '{scale}': "
                              "it is planned from --delta, "
                              "--sigma, --rho, --positions" + (", --tau" if tau is not None else "")
                              + " and the designs")
    elif positions is not None or n_messages is not None:
        raise SurveyError("--positions and --messages belong to pickK, maxdiffS, rankK and choice scales (e.g. --scale pick3)")
    elif len(deltas) > 1:
        raise SurveyError(f"--delta takes one number for scale '{scale}'; one per message is for pickK, maxdiffS and rankK")
    else:
        delta = deltas[0]
    view = simulation_view(scale) if kind_params is None else None  # a bad --scale stops here, before any file is read
    if view is None:
        params, source = kind_params, None
    elif not view.ordered and (tau is not None or cuts is not None):
        raise SurveyError("--tau and --cuts belong to rating scales (e.g. --scale likert5); "
                          "a binary survey takes --mu and --kappa")
    elif view.ordered and (mu is not None or kappa is not None):
        raise SurveyError(f"--mu and --kappa belong to the binary model; scale '{scale}' takes --tau (persona "
                          "s.d.) and --cuts (cut points) on the latent logit scale")
    else:
        params = (RatingPlan(delta, scale, tau, sigma, rho, parse_cuts(cuts)) if view.ordered else
                  BinaryPlan(delta, mu, kappa, sigma, rho))
        source = PlanSource(from_estimate, from_table, model, message, study, method)
    if wants_segments(seg):
        budget_only = {"--budget": budgets, "--strategy": strategies, "--design": designs,
                       "--max-paraphrases": max_paraphrases, "--sets": sets, "--out": out, "--plot": plot,
                       "--cuts": cuts,
                       "--alternative": alternative != "two-sided", "--sequential": seq["seq_method"],
                       "--questions": questions}
        run_segment_plan(params, source, seg, budget_only, as_json, study_spec)
        return
    res = plan(params, source=source, budgets=_ints(budgets, "--budget") if budgets else None,
               strategies=strategies, designs=designs, alpha=alpha, simulations=simulations, flips=flips, seed=seed,
               alternative=alternative, target_power=target_power, max_paraphrases=max_paraphrases,
               sets=_set_sizes(sets), progress=_progress(not as_json),
               sequential=design_options(seq) if seq["seq_method"] else None, questions=questions,
               question_correlation=question_correlation, family=family)
    doc = res.to_dict()
    if (plot or out) and not no_plot:  # a file only where one was asked for: --plot, or beside --out
        from survey import power_curves

        plot_file = Path(plot) if plot else Path(out).with_suffix(".png")
        plot_file.parent.mkdir(parents=True, exist_ok=True)
        power_curves(res.results, res.alpha, res.target_power, res.params.rho,
                     title=res.describe()).savefig(plot_file, dpi=120)
        doc["plot"] = str(plot_file)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(to_json(doc) + "\n")
    if as_json:
        echo_json(doc)
        return
    _print_plan(res, doc["plot"])


def _print_family(family: dict, alpha: float) -> None:
    """The power of K questions with and without the adjustment, per design."""
    k, method = family["questions"], {"holm": "Holm", "bh": "BH"}[family["method"]]
    print_table(f"power of each of {k} questions (persona correlation {family['correlation']:g}, alpha = {alpha:g})",
                ["n", "m", "r", "queries", "primary", "unadjusted", f"{method} over {k}", "gated", f"all {k}"],
                [[row["n"], row["m"], row["r"], row["queries"], row["primary"], row["unadjusted"], row["adjusted"],
                  row["secondary_gated"], row["all_adjusted"]] for row in family["rows"]])
    click.echo(f"queries: all {k} questions; primary: the deciding question at alpha alone; unadjusted: one question "
               f"at alpha alone; {method} over {k}: one question after the adjustment over all {k}; gated: a "
               f"secondary question after the primary's gate and {method} over the other {k - 1}; all {k}: every "
               f"question found after {method}")


def _floats(text: str, flag: str) -> list[float]:
    """'0.5' or '0.5,0,0.2' -> numbers; a bad one is a one-line error naming the flag."""
    try:
        out = [float(part) for part in str(text).split(",")]
    except ValueError:
        raise SurveyError(f"{flag} takes numbers, comma-separated; got '{text}'") from None
    if not all(math.isfinite(x) for x in out):
        raise SurveyError(f"{flag} takes finite numbers; got '{text}'")
    return out


def _print_plan(res: PlanResult, plot: str | None) -> None:
    from survey import ab_tests

    click.echo(f"parameters ({res.source}): {res.describe()}; alpha = {res.alpha:g}; "
               f"Monte Carlo s.e. <= {res.to_dict()['mc_error']:.3f}")
    best = {(b["budget"], b["strategy"]) for b in res.best}
    tests = list(res.results[0].power)
    rows = []
    for r in sorted(res.results, key=lambda x: x.design.budget):  # stable: strategies keep their order
        d = r.design
        mark = "*" if (d.budget, d.strategy) in best else ""
        rows.append([d.budget, d.strategy + mark, d.n, d.m, d.r, d.queries, *(r.power[t] for t in tests)])
    test = getattr(res, "test_label", None) or f"{ab_tests.label(DECISION_TEST)} test"
    print_table(f"power by design (* = best strategy at that budget, {test})",
                ["budget", "strategy", "n", "m", "r", "queries", *tests], rows)
    c = res.cheapest
    if c:
        click.echo(f"cheapest design reaching power {c['target_power']:g}: n = {c['n']} personas, m = {c['m']} "
                   f"perturbations, r = {c['r']} replicates ({c['budget']} queries, strategy {c['strategy']}, "
                   f"power {c['power'][DECISION_TEST]:.3f})")
    if getattr(res, "sequential", None):
        print_sequential_plan(res.sequential)
    if getattr(res, "family", None):
        _print_family(res.family, res.alpha)
    for w in res.warnings:
        click.echo(f"warning: {w}")
    if plot:
        click.echo(f"plot: {plot}")


@click.command("validate")
@click.argument("table", type=click.Path(dir_okay=False))
@click.option("--message", default=None, help="null condition: split this message's perturbations in two halves")
@click.option("--a", "a", default=None, help="alternative condition: message A ...")
@click.option("--b", "b", default=None, help="... against message B (power by sub-sampling)")
@click.option("--model", "model", default=None, help="model to check [default: every model]")
@click.option("--config", "configs", multiple=True, help="n,m,r sub-sample size; repeatable [default: the paper's six, clipped to the table]")
@click.option("--draws", type=count_type(10, 100_000, "a rejection rate from 100,000 draws is already within 0.002"),
              default=DEFAULT_DRAWS, show_default=True, help="random sub-samples per configuration")
@alpha_option()
@click.option("--confidence", type=float, default=0.95, show_default=True, help="level of the Clopper-Pearson intervals")
@flips_option(1000, FLIPS_HELP_SIMULATED)
@seed_option()
@click.option("--alternative", type=ALT, default="two-sided", show_default=True)
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="also save the p-value ECDFs here (one file per model; none unless given)")
@click.option("--no-plot", is_flag=True, help="draw no plot (the default; kept for scripts)")
@scale_option
@study_option
@json_option
def validate_cmd(table, message, a, b, model, configs, draws, alpha, confidence, flips, seed, alternative,
                 plot, no_plot, scale, study, as_json):
    """Rejection rates of every test on random sub-samples: null split (Type-I error) or A vs B (power)."""
    require_file(table, "source")
    from survey import open_source, validate

    res = validate(open_source(table, study, min_perturbations=0, scale=scale), message, a, b, model=model, configs=configs,
                   draws=draws, alpha=alpha, confidence=confidence, flips=flips, seed=seed, alternative=alternative,
                   source=str(table), progress=_progress(not as_json))
    doc = res.to_dict()
    if plot and not no_plot:  # a reading command writes only when asked
        from survey import pvalue_ecdfs

        base = Path(plot)
        for mdl, results in res.by_model.items():
            path = base if len(res.by_model) == 1 else base.with_name(f"{base.stem}-{_safe(mdl)}{base.suffix}")
            path.parent.mkdir(parents=True, exist_ok=True)
            pvalue_ecdfs(results).savefig(path, dpi=110)
            doc["plots"].append(str(path))
    if as_json:
        echo_json(doc)
        return
    _print_validity(res, doc["plots"])


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)


def _print_validity(res: Validation, plots: list[str]) -> None:
    from survey import CANNOT_REJECT, cannot_reject_note

    echo_completeness(res.completeness)
    null = res.condition == "null"
    what = "Type-I error (null split)" if null else "power (alternative)"
    cols = ["n", "m", "r", "test", "rate", "CI"] + (["verdict"] if null else [])
    for model, results in res.by_model.items():
        rows = [[*x.config, t, rate.rate, f"[{rate.ci[0]:.3f}, {rate.ci[1]:.3f}]", rate.verdict][:len(cols)]
                for x in results for t, rate in x.rates.items()]
        print_table(f"model {model}: {what}, {results[0].a} vs {results[0].b}, rejection rate at alpha = "
                    f"{res.alpha:g} over {res.draws} draws ({res.confidence:.0%} Clopper-Pearson CI)", cols, rows)
        for x in results:
            if x.requested is not None and tuple(x.requested) != tuple(x.config):
                click.echo(f"note: default configuration {tuple(x.requested)} clipped to the table: {tuple(x.config)}")
        small = sorted({x.config[1] for x in results if cannot_reject_note(x.config[1], res.alpha, res.alternative)})
        if small:
            click.echo(f"note: {cannot_reject_note(max(small), res.alpha, res.alternative)} "
                       f"(configurations with m = {', '.join(map(str, small))})")
    if null:
        click.echo("a valid test has alpha inside or above its interval: 'oversized' means the interval lies "
                   f"above alpha; 'conservative' below; '{CANNOT_REJECT}': the sign-flip test's smallest "
                   "p-value (2/2^m two-sided) exceeds alpha, so it rejects nothing whatever the data")
    for p in plots:
        click.echo(f"plot: {p}")


def register(cli: click.Group) -> None:
    for cmd in (plan_cmd, validate_cmd):
        cli.add_command(cmd)


def _set_sizes(sets) -> dict[str, int]:
    """--sets NAME[,NAME]: each perturbation set's size, read here so that planning does no I/O."""
    from survey import load_perturbation_set

    names = [x for s in sets for x in s.split(",") if x]
    return {name: len(load_perturbation_set(name).items) for name in names}
