"""`survey simulate`, `survey analyze`, `survey estimate`: the statistical core on a long table."""

from __future__ import annotations

import click

import survey
from survey import BOOTSTRAP_MAX, WHY, SurveyError
from survey.cli.common import (
    DELTA_HELP,
    DELTA_MEANING,
    FLIPS_HELP_ONE_TEST,
    alpha_option,
    count_type,
    echo_basis,
    echo_completeness,
    echo_json,
    flips_option,
    humans_file_options,
    humans_spec,
    json_option,
    require_file,
    scale_option,
    seed_option,
    study_option,
)
from survey.cli.segments import echo_segments, segment_arguments, segment_options
from survey.cli.sequential import analyze_sequential, sequential_options
from survey.cli.texts import SCALE_CHOICES

# The statistics and tables (numpy, pandas, scipy) are imported inside the commands: --help stays light.

ALT = click.Choice(["two-sided", "greater", "less"])
FIELDED = "<fielded>"  # --humans given without a file: the answers fielded into the store


@click.command("simulate")
@click.option("--personas", "n", type=int, default=50, show_default=True, help="n personas")
@click.option("--perturbations", "m", type=int, default=10, show_default=True, help="m perturbations per message")
@click.option("--perturbations-b", "m_b", type=int, default=None, help="m for message B if it differs")
@click.option("--replicates", "r", type=int, default=5, show_default=True, help="r replicates per cell")
@click.option("--scale", default="binary", show_default=True,
              help=f"answer scale: {SCALE_CHOICES}; a rating scale is simulated from the ordinal model")
@click.option("--mu", type=float, default=None, show_default="0.5", help="binary: mean persona Yes-rate")
@click.option("--kappa", type=float, default=None, show_default="4.0", help="binary: Beta precision a+b")
@click.option("--tau", type=float, default=None, show_default="1.0",
              help="rating scales: persona s.d. on the latent logit scale")
@click.option("--cuts", default=None, help="rating scales: K-1 increasing cut points on the latent logit scale, "
              "comma-separated [default: logit(c/K)]")
@click.option("--sigma", type=float, default=1.0, show_default=True)
@click.option("--rho", type=float, default=0.3, show_default=True)
@click.option("--delta", type=float, default=0.0, show_default=True, help=DELTA_HELP)
@seed_option(default=None)
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="output .csv or .parquet")
@json_option
def simulate_cmd(n, m, m_b, r, scale, mu, kappa, tau, cuts, sigma, rho, delta, seed, out, as_json):
    """Simulate respondents (Yes/No: the Beta-logit model; rating scales: the ordinal model) and write a long table."""
    from survey import DELTA_MEANING_ORDINAL, parse_cuts, simulate, simulation_view, write_table

    rating = simulation_view(scale).ordered
    df = simulate(n, m, r, mu=mu, kappa=kappa, sigma=sigma, rho=rho, delta=delta, seed=seed, m_b=m_b, scale=scale,
                  tau=tau, cuts=parse_cuts(cuts))
    path = write_table(df, out)
    meaning = DELTA_MEANING_ORDINAL if rating else DELTA_MEANING
    info = {"out": str(path), "rows": len(df), "personas": n, "perturbations": {"A": m, "B": m_b or m},
            "replicates": r, "delta": {"value": delta, "meaning": meaning}}
    if rating:
        info["scale"] = scale
    if as_json:
        echo_json(info)
    else:
        click.echo(f"wrote {len(df)} rows to {path}" + (f" (delta = {delta:g}: {meaning})" if delta else ""))


@click.command("analyze")
@click.argument("table", metavar="TABLE_OR_STORE", type=click.Path(dir_okay=False))
@click.option("--a", "a", default=None, help="message A (default: the first of two, or the one --b leaves)")
@click.option("--b", "b", default=None, help="message B (default: the second of two, or the one --a leaves)")
@click.option("--every-pair", "every_pair", is_flag=True,
              help="without --a/--b: every pair of messages the kind can compare, Holm-adjusted, with each "
                   "message's level once (the default with three or more messages; kept for scripts)")
@flips_option(9999, FLIPS_HELP_ONE_TEST)
@seed_option()
@click.option("--alternative", type=ALT, default="two-sided", show_default=True)
@alpha_option(help="level at which the sign-flip test decides; the CI is 1 - alpha unless --confidence")
@click.option("--confidence", type=float, default=None,
              help="level of the effect's CI  [default: 1 - alpha]")
@click.option("--probabilities", is_flag=True,
              help="use the exact per-cell expected score (expected; P(Yes) for Yes/No, from a local model in "
                   "exact mode, a provider's logprobs or a stated distribution) instead of answer means")
@click.option("--humans", "humans", type=click.Path(dir_okay=False), default=None, is_flag=False,
              flag_value=FIELDED, metavar="[FILE]",
              help="human answers to the same messages: adds the human effect by prediction-powered inference "
                   "(`survey fidelity` compares levels and effects); without FILE, the answers `survey field` "
                   "stored in the store (or the study's own human file)")
@click.option("--family", "family", type=click.Choice(["holm", "bh"]), default=None,
              help="several questions: the adjustment over questions x pairs, Holm (family-wise error) or "
                   "Benjamini-Hochberg (false discovery rate)  [default: the study's [analysis] family, else holm]")
@click.option("--question", "question", default=None,
              help="several questions: analyse this question alone, as a one-question study")
@humans_file_options
@sequential_options("replay a stopping rule over the pairs in collection order")
@segment_options
@scale_option
@study_option
@json_option
def analyze_cmd(table, a, b, every_pair, flips, seed, alternative, alpha, confidence, probabilities, scale, study, as_json,
                by, filters, target, personas, adjust, pooled, humans, humans_wide, humans_id_column, humans_columns,
                family, question, **seq):
    """Test message A vs B for every model in a long table (one independent analysis per model); with three or
    more messages and no --a/--b, every message's level (share, score or mean) with its interval, then every
    pair (effect, CI, Holm-adjusted p, simultaneous CI).

    Yes/No compares P(Yes); a rating scale compares mean scores (effect in scale points) and the top-2-box;
    forced choice tests the preference for A with both orders averaged, and reports the position bias.
    --by/--segment: the same per segment of personas, with the segments' interaction test; --target: the
    effect weighted to a target market (a study's [segments] and [target] apply unless --pooled).
    A study of several questions prints a scorecard per message pair: each question's effect, its adjusted
    p-value over the family of questions and which message wins (--family; --question for one alone)."""
    require_file(table, "source")
    fielded, humans = humans == FIELDED, (None if humans == FIELDED else humans)
    require_file(humans, "humans")
    from survey import open_source
    from survey.cli.kind_output import print_result

    segments = segment_arguments(by, filters, target, personas, pooled)
    if seq["seq_method"] and (humans or fielded):
        raise SurveyError("--humans adds the statements about people to the full analysis; a --sequential replay "
                          "tests the personas only: run them separately")
    if seq["seq_method"] and (segments.get("by") or segments.get("weights")):
        raise SurveyError("--sequential replays the pooled stopping rule only; --by, --segment and --target are not "
                          "replayed: run them without --sequential")
    if seq["seq_method"]:
        src = open_source(table, study, scale=scale)  # several questions: the rule monitors the primary one
        return analyze_sequential(src if question is None else src.for_question(question), a, b, alternative, alpha,
                                  seed, probabilities, as_json, seq, pooled=pooled)
    src = open_source(table, study, scale=scale, humans=humans_spec(humans, humans_wide, humans_id_column,
                                                                    humans_columns))
    if question is not None:
        src = src.for_question(question)
    if (humans or fielded) and len(src.questions) > 1:
        raise SurveyError(f"--humans compares one question with the people's answers; the study asks "
                          f"{', '.join(src.questions)}: name one with --question")
    res = survey.analyze(src, a, b, every_pair=every_pair, alternative=alternative, alpha=alpha, confidence=confidence,
                  flips=flips, seed=seed, probabilities=probabilities, adjust=adjust, family=family, **segments)
    if fielded and src.humans is None:
        gap = src.fielded_gap
        raise SurveyError(f"{table}: no human answers: {gap}" if gap else
                          f"{table}: no human answers: the store holds none fielded (`survey field`) and its study "
                          "names no human file; give one with --humans FILE")
    people = _about_humans(src, a, b, confidence or 1 - alpha, flips, seed, res) if humans or fielded else None
    if as_json:
        echo_json({**res.to_dict(), **({"humans": people if isinstance(people, dict) else people.to_dict()}
                                       if people else {})})
        return
    echo_basis(res)
    if hasattr(res, "scorecard"):
        from survey.cli.scorecard import echo_scorecard

        return echo_scorecard(res)
    if hasattr(res, "sets"):  # three or more messages: the levels once, then every pair (Holm)
        from survey.cli.message_set_output import echo_message_set

        echo_message_set(res)
        for r in res.results:
            if r.segments is not None:
                click.echo(f"\nmodel {r.model}: {r.a} vs {r.b} by segment")
                echo_segments(r.segments)
    else:
        for r in res.results:
            print_result(res, r)
            echo_segments(r.segments)
    if people:
        from survey.cli.humans_output import echo_about_humans, echo_people

        echo_about_humans(people) if isinstance(people, dict) else echo_people(people)


def _about_humans(src, a, b, confidence, flips, seed, prior):
    """The PPI statements about people for `analyze --humans` (survey.stats.humans), as JSON-ready dicts; a kind
    with its own comparison with people (a ranking) gives that comparison's result."""
    from survey import DESIGNS, VALIDITY

    out = survey.about_humans(src, a, b, confidence=confidence, flips=flips, seed=seed, prior=prior)
    if not isinstance(out, dict):
        return out
    return {"a": out["a"], "b": out["b"], "design": out["design"], "design_text": DESIGNS[out["design"]],
            "humans": src.humans.summary(), "human_effect": out["human_effect"].to_dict(),
            "ppi": {m: p.to_dict() for m, p in out["ppi"].items()}, "notes": out["notes"], "validity": VALIDITY}


@click.command("estimate")
@click.argument("table", metavar="TABLE_OR_STORE", type=click.Path(dir_okay=False))
@click.option("--message", required=True, help="the message whose responses are fitted")
@click.option("--model", "model", default=None, help="model to fit (default: every model)")
@click.option("--bootstrap", type=count_type(0, BOOTSTRAP_MAX, WHY["bootstrap"]), default=200, show_default=True,
              help="bootstrap resamples of personas and perturbations for standard errors (0: none)")
@seed_option()
@click.option("--method", type=click.Choice(["moments", "appendix-c"]), default="moments", show_default=True,
              help="moments: unbiased on the probability scale (needs r >= 2, else appendix C with a note); "
                   "appendix-c: the paper's estimator, biased, for comparison (Yes/No only)")
@click.option("--question", "question", default=None, help="several questions: the question whose answers are fitted")
@scale_option
@study_option
@json_option
def estimate_cmd(table, message, model, bootstrap, seed, method, scale, study, question, as_json):
    """Estimate mu, kappa, sigma, rho of the Beta-logit model of Helm & Priebe (2026); on a rating scale
    tau, sigma, rho and the cut points of the ordinal model."""
    require_file(table, "source")
    from survey import open_source
    from survey.cli.kind_output import print_estimate

    res = survey.estimate(open_source(table, study, min_perturbations=0, scale=scale), message, model,
                   bootstrap=bootstrap, seed=seed, method=method, question=question)
    doc = res.to_dict()
    if as_json:
        echo_json(doc)
        return
    echo_completeness(res.completeness)
    for reason in doc["left_out"]:
        click.echo(f"left out: {reason}", err=True)
    for row in doc["results"]:
        print_estimate(res.view, row, message)


def register(cli: click.Group) -> None:
    for cmd in (simulate_cmd, analyze_cmd, estimate_cmd):
        cli.add_command(cmd)
