"""`survey field-export STUDY --format qualtrics --out FILE`: the study's instrument as a file another survey
platform imports (survey.field.qualtrics), its export read back by the wide human-file import."""

from __future__ import annotations

import click

from survey.cli.common import echo_json, json_option


@click.command("field-export")
@click.argument("study", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", required=True, metavar="FORMAT",
              help="qualtrics: a .qsf survey file (Qualtrics: Import Survey)")
@click.option("--out", required=True, type=click.Path(), help="the file to write (e.g. shoes.qsf)")
@json_option
def field_export(study: str, fmt: str, out: str, as_json: bool) -> None:
    """Write STUDY as a survey people answer elsewhere: consent, the persona template's demographics, one
    message and paraphrase per respondent (embedded data condition and perturbation), the study's questions.
    Download the responses as CSV with "Use choice text" and name it as the study's human file."""
    from survey.field.qualtrics import export_instrument

    result = export_instrument(study, fmt.strip().lower(), out)
    if as_json:
        echo_json(result)
        return
    click.echo(f"wrote {result['out']}: {len(result['questions'])} question(s) about {len(result['messages'])} "
               f"message(s), {result['conditions']} condition(s); answer columns "
               f"{', '.join(result['answer_columns']) or 'none'}")
    for note in result["notes"]:
        click.echo(f"note: {note}")


def register(cli: click.Group) -> None:
    cli.add_command(field_export)
