"""`survey plan-humans`: how many humans and how many persona queries reach a target interval or power about
people? The mixed-subjects planner (survey.stats.planning.plan_mixed_effect), with r stated or measured on a
pilot study whose models answered as each respondent (survey.api.fidelity.plan_humans)."""

from __future__ import annotations

import click

from survey import SurveyError
from survey.cli.common import echo_json, json_option, print_table, require_file


@click.command("plan-humans")
@click.option("--pilot", type=click.Path(dir_okay=False), default=None,
              help="a pilot study (file or store) whose models answered as each human respondent: r, sigma, the "
                   "design and the queries per persona are measured there, per model")
@click.option("--model", default=None, help="with --pilot: plan for this model only")
@click.option("--r", "r", type=float, default=None,
              help="without --pilot: a stated guess of corr(human answer, model prediction); the literature "
                   "measures 0.2-0.5")
@click.option("--sigma", type=float, default=None, help="without --pilot: s.d. of an answer (of the paired difference "
              "for --design within) [default: 0.5, the largest for Yes/No]")
@click.option("--sigma-f", "sigma_f", type=float, default=None,
              help="without --pilot: the s.d. of the model's predictions, to plan PPI++'s cap of lambda at 1 "
                   "(models that answer too uniformly are worth less) [default: no cap planned]")
@click.option("--design", type=click.Choice(["mean", "within", "between"]), default=None,
              help="without --pilot: one message's mean, a within- or a between-subjects effect [default: mean]")
@click.option("--cost-human", type=float, required=True, help="cost of one human answer (any currency)")
@click.option("--cost-query", type=float, required=True, help="cost of one model query (same currency)")
@click.option("--queries-per-persona", type=float, default=None,
              help="queries one persona prediction takes (paraphrases x replicates, x 2 messages for an effect) "
                   "[default: the pilot's, or 1]")
@click.option("--half-width", type=float, default=None, help="target: the CI half-width about people")
@click.option("--effect", type=float, default=None, help="target: an effect (or mean difference) to detect")
@click.option("--power", type=float, default=0.8, show_default=True, help="with --effect")
@click.option("--alpha", type=float, default=0.05, show_default=True, help="1 - the interval's level")
@click.option("--max-personas", type=int, default=None, help="personas available at most")
@click.option("--scale", default=None, help="without --pilot: the answers' response scale, e.g. likert5 (targets are in "
              "its units; sigma defaults to half its range) [default: binary (Yes/No)]")
@json_option
def plan_humans_cmd(pilot, model, r, sigma, sigma_f, design, cost_human, cost_query, queries_per_persona, half_width, effect,
                    power, alpha, max_personas, scale, as_json):
    """The cheapest mix of human answers and persona queries for a valid statement about people (prediction-
    powered inference), beside the humans-only plan, with what one human is worth (1 / (1 - r^2))."""
    if pilot is not None:
        require_file(pilot, "pilot")
    elif model is not None:
        raise SurveyError("--model picks a model of the --pilot; give the pilot too")
    from survey import humans_phrase as humans
    from survey import plan_humans

    res = plan_humans(pilot, cost_human=cost_human, cost_query=cost_query, r=r, sigma=sigma, sigma_f=sigma_f,
                      design=design,
                      queries_per_persona=queries_per_persona, half_width=half_width, effect=effect, power=power,
                      alpha=alpha, max_personas=max_personas, model=model, scale=scale)
    plans = res if isinstance(res, dict) else {"stated": res}
    if as_json:
        echo_json({name: p.to_dict() for name, p in plans.items()})
        return
    print_table("the cheapest mix of humans and persona queries (beside humans alone)",
                ["model", "r", "humans", "personas", "queries", "cost", "humans alone (cost)", "saving"],
                [[name, p.plan.r, p.humans, p.plan.N, p.queries, f"{p.cost:.4g}",
                  f"{p.humans_only} ({p.arms * p.plan.humans_only_cost:.4g})", f"{p.plan.saving:.0%}"]
                 for name, p in plans.items()])
    first = next(iter(plans.values()))
    click.echo(first.note)
    for name, p in plans.items():
        click.echo(f"{name}: one human is worth at most {humans(p.plan.worth_per_human)}; basis: {p.basis}")
        for warning in p.warnings:
            click.echo(f"warning: {name}: {warning}", err=True)


def register(cli: click.Group) -> None:
    cli.add_command(plan_humans_cmd)
