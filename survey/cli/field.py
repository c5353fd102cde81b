"""`survey field STUDY`: serve the study to people as a web questionnaire (survey.field) until Ctrl-C."""

from __future__ import annotations

import json

import click

from survey.cli.common import json_option, require_file


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
@json_option
def field_cmd(study, host, port, respondents, quota_from, as_json):
    """Serve STUDY to people: consent, questions about them (the persona template's fields), the study's
    questions under the assigned message and paraphrase, an attention check, the completion code.

    Completed answers go to the study's store; `survey fidelity STUDY` and `survey analyze --humans` read
    them. The researcher's page (/admin) takes the token printed here once: it is stored nowhere."""
    require_file(study, "study")
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


def register(cli: click.Group) -> None:
    cli.add_command(field_cmd)
