"""`survey init [FOLDER]`: copy the shipped example studies (and, with --sets, the shipped sets) into a folder."""

from __future__ import annotations

import click

from survey.cli.common import echo_json, json_option


@click.command("init")
@click.argument("folder", required=False, default="survey-examples")
@click.option("--sets", is_flag=True,
              help="also copy the shipped persona and paraphrase sets (personas/, perturbations/) to edit them")
@json_option
def init_cmd(folder, sets, as_json):
    """Copy the example studies into FOLDER (default ./survey-examples), where they run and keep their stores.

    A file already there with other content is never rewritten: the command names it and copies nothing."""
    from survey import init

    result = init(folder, sets=sets)
    if as_json:
        echo_json(result.to_dict())
        return
    for path in result.copied:
        click.echo(f"copied {path}")
    for path in result.unchanged:
        click.echo(f"already there, unchanged: {path}")
    sim = next((p for p in result.studies() if p.name == "sim.toml"), None)
    if sim is not None:
        click.echo(f"next: survey run {sim} --dry-run   (a simulated study: free, offline; its store is "
                   f"written beside it, in {result.folder})")


def register(cli: click.Group) -> None:
    cli.add_command(init_cmd)
