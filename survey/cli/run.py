"""`survey run`, `survey export`, `survey status`: from a study file to stored responses to a table."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from survey import SurveyError
from survey.cli.common import echo_json, json_option, print_table, require_file
from survey.cli.sequential import print_run_decisions

if TYPE_CHECKING:
    from survey import Plan, RunReport

# Studies, stores and tables (pydantic, numpy, pandas) are imported inside the commands: --help stays light.


def _money(x: float | None) -> str:
    return "unknown price" if x is None else f"${x:,.4f}"


def _print_plan(plan: Plan) -> None:
    d = plan.to_dict()
    msgs = ", ".join(f"{k} ({v} perturbations)" for k, v in d["messages"].items())
    asked = (f" x {len(d['questions'])} questions ({', '.join(q['id'] for q in d['questions'])}, flow "
             f"{d['flow']})" if len(d["questions"]) > 1 else "")
    click.echo(f"study {d['study']}: {d['personas']} personas x [{msgs}]{asked} x r = {d['replicates']} "
               f"-> {d['cells_per_model']} cells, {d['queries_per_model']} queries per model")
    click.echo(f"store: {d['store']}")
    _print_sets(plan)
    _print_prompt(plan)
    print_table("plan", ["model", "backend", "queries", "stored", "to send", "est. tokens in/out",
                         "est. cost"],
                [[m["model"], f"{m['backend']}{' batch' if m['batch'] else ''}", m["queries"], m["stored"],
                  m["to_send"], f"{m['est_input_tokens']}/{m['est_output_tokens']}", _money(m["est_cost_usd"])]
                 for m in d["models"]])
    for m in d["models"]:
        notes = [f"{m[k]} {label}" for k, label in (
            ("invalid", "stored replies are invalid answers"), ("failed", "failed earlier and are sent again"),
            ("in_open_batch_jobs", f"are in open batch job(s) {', '.join(m['open_jobs'])}, resumed not resent"))
            if m[k]]
        if m["spent_usd"]:
            notes.append(f"about {_money(m['spent_usd'])} spent so far")
        if notes:
            click.echo(f"{m['model']}: " + "; ".join(notes))
    if len(d["questions"]) > 1:
        _print_questions(d)
    click.echo(f"total to send: {plan.to_send} queries, estimated cost {_money(plan.cost)}")
    for w in plan.warnings:
        click.echo(f"warning: {w}", err=True)


def _print_questions(d: dict) -> None:
    """Queries and estimated tokens per question and model (a prompt prefix the backend reuses is counted once)."""
    print_table("per question", ["model", "question", "queries", "to send", "est. tokens in/out"],
                [[m["model"], q, c["queries"], c["to_send"], f"{c['est_input_tokens']}/{c['est_output_tokens']}"]
                 for m in d["models"] for q, c in m["questions"].items()])


def _print_sets(plan: Plan) -> None:
    """The set files the study uses, with their sha256: the store records the same at run time."""
    from survey import set_files

    for line in set_files(plan.context):
        click.echo(line)


def _print_prompt(plan: Plan) -> None:
    """The first query's prompts: what the persona is told and asked (the Yes/No sentence of a persona
    set is replaced by a rating scale's own instruction; a forced choice shows both paraphrases)."""
    design = getattr(plan, "design", None)
    if design is None or not design.study.models:
        return
    first = next(design.queries(design.study.models[0]), None)
    if first is None:
        return
    if design.several:  # one system prompt, then every question's first prompt
        click.echo(f"system prompt (every question): {first.system}")
    for question in design.study.questions:
        _print_question(design, question, None if design.several else first.system)


def _print_question(design, question, system: str | None) -> None:
    rtype = question.response
    name = f"question {question.id}" if design.several else "question"
    click.echo(f"{name}: {rtype.scale}" + (f" (valid answers {rtype.describe_values()})" if rtype.scored else ""))
    if system is not None:
        click.echo(f"  system prompt: {system}")
    user = design.cell_prompts(question=question)[0][2]
    click.echo("  question: " + user.replace("\n", "\n            "))
    if question.order == "both":  # a balanced scale: what the other half of the replicates is asked
        back = question.response_for(1)
        click.echo(f"  order: both: replicates 1, 3, ... see the scale reversed (valid answers "
                   f"{back.describe_values()}, stored as the forward scale's score); the analysis reports the "
                   "direction effect")
        click.echo("  reversed question: " + back.template.replace("\n", "\n            "))


def interrupted_status(report: RunReport) -> int:
    """Exit status of an interrupted run: 128 + the signal's number, as a shell reports a command the
    signal ended (SIGTERM 143, Ctrl-C 130)."""
    return 143 if report.signal == "SIGTERM" else 130


def _confirm_paid(plan: Plan, yes: bool) -> None:
    if not plan.paid or yes:
        return
    what = f"{plan.to_send} queries to paid providers (estimated {_money(plan.cost)})"
    if not sys.stdin.isatty():
        raise SurveyError(f"this run sends {what}; pass --yes to confirm (there is no terminal to ask on)")
    click.confirm(f"Send {what}?", abort=True, err=True)


def _print_report(rep: RunReport, store_path) -> None:
    counts = ["valid", "invalid"] + (["text"] if any(m.text for m in rep.models.values()) else [])
    print_table("run", ["model", "stored", *counts, "failed", "retries", "requests", "skipped"],
                [[m.model, m.stored, *(getattr(m, c) for c in counts), m.failed, m.retries, m.calls, m.skipped]
                 for m in rep.models.values()])
    for m in rep.models.values():
        for (code, msg), n in m.errors.most_common(10):
            click.echo(f"{m.model}: {n} row(s) failed: [{code}] {msg}", err=True)
        if m.batch_jobs:
            click.echo(f"{m.model}: batch job(s) {', '.join(m.batch_jobs)}")
        if m.unanswered:
            click.echo(f"{m.model}: {m.unanswered} queries were not answered by the batch job; "
                       "rerun to submit them", err=True)
        if m.stopped:
            click.echo(f"{m.model}: {m.stopped}", err=True)
    state = (f"interrupted by {rep.signal}" if rep.signal else "interrupted") if rep.interrupted else "done"
    click.echo(f"{state}: {rep.stored} replies stored in {rep.seconds:.1f} s, {rep.failed} failed; "
               + ("rerun to resume, " if rep.incomplete else "")
               + f"`survey export {store_path} --out FILE.csv` for the table")


@click.command("run")
@click.argument("study_file", type=click.Path(dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Print cells, queries, tokens, cost and what is stored; send nothing.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask before sending queries to paid providers.")
@click.option("--model", "models", multiple=True, help="Run only this model (repeatable).")
@click.option("--max-attempts", type=click.IntRange(1, 50), default=8, show_default=True,
              help="Attempts per query on retryable errors (429, 5xx, timeouts).")
@click.option("--poll-interval", type=click.FloatRange(0.1, 3600), default=10.0, show_default=True,
              help="Seconds between batch job polls at first (grows to 2 minutes).")
@click.option("--drop-changed", is_flag=True,
              help="Delete stored replies collected with another prompt or settings and collect them again.")
@click.option("--rename-stored", metavar="OLDNAME", default=None,
              help="Keep every stored row of the study as study OLDNAME (in the same store) and collect afresh.")
@json_option
def run_cmd(study_file, dry_run, yes, models, max_attempts, poll_interval, drop_changed, rename_stored, as_json):
    """Collect the responses of a study; a rerun sends only what is missing.

    Stored replies collected with another prompt or settings are refused, naming what changed; choose
    --rename-stored OLDNAME or --drop-changed (both can be tried with --dry-run first)."""
    require_file(study_file, "study")
    from survey import Study

    study = Study.from_toml(study_file)
    way_out = {"drop_changed": drop_changed, "rename_stored": rename_stored}
    plan = study.dry_run(list(models), **way_out)
    if dry_run:
        echo_json(plan.to_dict()) if as_json else _print_plan(plan)
        return
    plan.check_budget()  # before asking: a run the budget refuses needs no confirmation
    _confirm_paid(plan, yes)  # asked here, outside the run's event loop, where Ctrl-C works plainly
    if not as_json:
        _print_sets(plan)
    result = study.run(yes=True, models=list(models), max_attempts=max_attempts, poll_interval=poll_interval,
                       progress=not as_json, **way_out)
    if as_json:
        echo_json(result.to_dict())
    elif result.report is None:
        click.echo(f"nothing to send: all {sum(m.replies for m in result.plan.models)} queries are stored "
                   f"in {study.store_path}")
    else:
        _print_report(result.report, study.store_path)
    if study.spec.sequential is not None and not as_json:
        print_run_decisions(study.sequential_results())
    if result.interrupted:
        sys.exit(interrupted_status(result.report))
    if result.incomplete:
        sys.exit(1)  # what arrived is stored, but the study is incomplete: scripts must notice


@click.command("export")
@click.argument("store", type=click.Path(dir_okay=False))
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="output .csv or .parquet")
@click.option("--study", default=None, help="study to export (needed when the store holds several)")
@click.option("--include-failed", is_flag=True, help="Also write rows whose call failed (answer empty).")
@json_option
def export_cmd(store, out, study, include_failed, as_json):
    """Write the long response table (model, message, perturbation, persona, replicate, answer, ...)."""
    require_file(store, "store")
    from survey import Store, invalid_answers, study_store, write_table

    store, study = study_store(store, study)
    with Store(store, read_only=True) as st:
        df = st.to_long_table(study, include_failed=include_failed)
    if df.empty:
        raise SurveyError(f"{store}: no stored replies to export; run the study first")
    path = write_table(df, out)
    info = {"out": str(path), "rows": len(df), "invalid": invalid_answers(df),
            "models": sorted(df["model"].unique()), "messages": sorted(df["message"].unique())}
    if as_json:
        echo_json(info)
    else:
        click.echo(f"wrote {info['rows']} rows ({info['invalid']} invalid answers) to {path}")


@click.command("status")
@click.argument("store", type=click.Path(dir_okay=False))
@click.option("--study", default=None, help="only this study")
@json_option
def status_cmd(store, study, as_json):
    """What a store holds: replies, invalid answers, failures and batch jobs per study and model."""
    require_file(store, "store")
    from survey import Store, study_store

    store, study = study_store(store, study)
    with Store(store, read_only=True) as st:
        summary = st.summary(study)
        jobs = st.batch_jobs(study)
        if study is not None and not summary and not jobs:
            studies = st.studies()
            raise SurveyError(f"{store} has no study '{study}'; it has {', '.join(studies) or 'none yet'}")
        errors = [e | {"study": s} for s in ([study] if study else st.studies()) for e in st.errors(s)]
    for j in jobs:
        j["custom_ids"] = len(j["custom_ids"])
    if as_json:
        echo_json({"models": summary, "batch_jobs": jobs, "errors": errors})
        return
    if not summary and not jobs:
        click.echo(f"{store}: no replies stored yet; `survey run STUDY.toml` collects them")
        return
    counts = ["valid", "invalid"] + (["text"] if any(s["text"] for s in summary) else [])
    print_table("store", ["study", "model", "replies", *counts, "failed", "tokens in/out", "last"],
                [[s["study"], s["model"], s["replies"], *(s[c] for c in counts), s["failed"],
                  f"{s['prompt_tokens']}/{s['completion_tokens']}", (s["last"] or "")[:19]] for s in summary])
    if jobs:
        print_table("batch jobs", ["job", "study", "model", "status", "queries", "ingested", "submitted"],
                    [[j["job_id"], j["study"], j["model"], j["status"], j["n_queries"],
                      "yes" if j["ingested"] else "no", j["submitted_at"]] for j in jobs])
    for e in errors[:20]:
        click.echo(f"{e['study']}/{e['model']}: {e['rows']} row(s) failed: [{e['code']}] {e['error']}")


def register(cli: click.Group) -> None:
    for cmd in (run_cmd, export_cmd, status_cmd):
        cli.add_command(cmd)
