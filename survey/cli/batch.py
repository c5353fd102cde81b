"""`survey batch export` / `survey batch import`: a study's queries as an OpenAI batch file for vLLM's
offline run-batch (or any Batch API), and its results back into the store (survey.collect.offline_batch)."""

from __future__ import annotations

import sys

import click

from survey.cli.common import echo_json, json_option


@click.group("batch")
def batch_group() -> None:
    """Offline batch files: export a model's missing queries, import the results (vLLM run-batch)."""


@batch_group.command("export")
@click.argument("study_file", type=click.Path(dir_okay=False))
@click.option("--model", required=True, help="the study's model entry (backend = \"openai\").")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="requests .jsonl to write")
@json_option
def export_cmd(study_file, model, out, as_json):
    """Write the queries MODEL still owes as OpenAI batch requests (custom_id, method, url, body)."""
    from survey import export_batch

    res = export_batch(study_file, model, out)
    if as_json:
        echo_json(res.to_dict())
    elif res.path is None:
        click.echo(f"nothing to export: model '{model}' has all {res.stored} queries stored"
                   + (f" or in open batch jobs ({res.in_open_jobs})" if res.in_open_jobs else ""))
    else:
        click.echo(f"wrote {res.queries} requests to {res.path} ({res.stored} already stored); run them with\n"
                   f"  python -m vllm.entrypoints.openai.run_batch -i {res.path} -o results.jsonl --model MODEL\n"
                   f"then: survey batch import {study_file} --model {model} results.jsonl")


@batch_group.command("import")
@click.argument("study_file", type=click.Path(dir_okay=False))
@click.argument("results", type=click.Path(exists=True, dir_okay=False))
@click.option("--model", required=True, help="the study's model entry the results answer.")
@json_option
def import_cmd(study_file, results, model, as_json):
    """Store the replies of a batch results file; stored replies are never overwritten."""
    from survey import import_batch

    res = import_batch(study_file, model, results)
    if as_json:
        echo_json(res.to_dict())
    else:
        _print_import(res, model)
    if res.failed:
        sys.exit(1)  # like `survey run`: stored, but some lines failed, so the study is incomplete


def _print_import(res, model: str) -> None:
    click.echo(f"{res.lines} result lines: {res.stored} replies stored ({res.invalid} invalid answers), "
               f"{res.failed} failed, {res.already} already stored, {res.foreign} not of model '{model}' "
               f"(ignored); batch job {res.job_id}")
    if res.missing:
        click.echo(f"{res.missing} queries of model '{model}' still have no reply: export again to get them",
                   err=True)


def register(cli: click.Group) -> None:
    cli.add_command(batch_group)
