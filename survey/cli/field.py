"""`survey field STUDY`: serve the study to people as a web questionnaire (survey.field) until Ctrl-C; with
`--export qualtrics --out FILE`, write the same instrument as a Qualtrics survey file (survey.field.qualtrics)."""

from __future__ import annotations

import json

import click

from survey.cli.common import echo_json, json_option, require_file


@click.command("field")
@click.argument("study", type=click.Path(dir_okay=False))
@click.option("--host", default="127.0.0.1", show_default=True,
              help="the address to listen on (0.0.0.0: every interface; put TLS in front, e.g. a reverse proxy)")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="the port (0: any free port, printed)")
@click.option("--respondents", type=click.IntRange(1, None), default=None,
              help="close after this many completes [default: the study's [field] respondents, else open]")
@click.option("--quota-from", "quota_from", type=click.Path(dir_okay=False), default=None,
              help="a target-margins file (.toml/.csv, as segments use): each level's quota is its share of "
                   "--respondents; a full cell turns people away with a 'quota full' page")
@click.option("--export", "export_format", metavar="FORMAT", default=None,
              help="write the instrument for another platform instead of serving it: qualtrics (a .qsf survey "
                   "file; its CSV export, downloaded with choice text, reads back as the study's human file)")
@click.option("--out", type=click.Path(), default=None, help="with --export: the file to write (e.g. shoes.qsf)")
@json_option
def field_cmd(study, host, port, respondents, quota_from, export_format, out, as_json):
    """Serve STUDY to people: consent, questions about them (the persona template's fields), the study's
    questions under the assigned message and paraphrase, an attention check, the completion code.

    Completed answers go to the study's store; `survey fidelity STUDY` and `survey analyze --humans` read
    them. The researcher's page (/admin) takes the token printed here once: it is stored nowhere.
    With --export qualtrics --out FILE it writes the same instrument as a Qualtrics survey file instead."""
    require_file(study, "study")
    if export_format is not None or out is not None:
        ctx = click.get_current_context()
        served = [f"--{n.replace('_', '-')}" for n in ("host", "port", "respondents", "quota_from")
                  if ctx.get_parameter_source(n) is click.core.ParameterSource.COMMANDLINE]
        if served:
            raise click.UsageError(f"--export writes a file and serves nothing: drop {', '.join(served)}")
        _export(study, export_format, out, as_json)
        return
    import survey

    def started(info: dict) -> None:
        if as_json:  # one line: a script reads it while the server keeps running
            click.echo(json.dumps(info))
        else:
            click.echo(f"Fielding '{info['study']}' at {info['url']} (answers go to {info['store']})")
            click.echo(f"Prolific link: {info['prolific_link']}")
            click.echo(f"Researcher's page: {info['admin']}  token (shown once, stored nowhere): {info['token']}")
            click.echo("Ctrl-C stops the server; a restart resumes where it stopped.")
        import sys

        sys.stdout.flush()

    survey.field(study, host=host, port=port, respondents=respondents, quota_from=quota_from, echo=started)
    if not as_json:
        click.echo("Stopped; every completed response is in the store.")


def _export(study: str, fmt: str | None, out: str | None, as_json: bool) -> None:
    from survey import export_instrument

    if fmt is None or out is None:
        raise click.UsageError("--export FORMAT and --out FILE go together (e.g. --export qualtrics --out shoes.qsf)")
    result = export_instrument(study, fmt.strip().lower(), out)
    if as_json:
        echo_json(result)
        return
    click.echo(f"wrote {result['out']}: {len(result['questions'])} question(s) about {len(result['messages'])} "
               f"message(s), {result['design']}-subjects, {result['conditions']} condition(s); answer columns "
               f"{', '.join(result['answer_columns']) or 'none'}")
    for note in result["notes"]:
        click.echo(f"note: {note}")


def register(cli: click.Group) -> None:
    cli.add_command(field_cmd)
