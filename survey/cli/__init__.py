"""The `survey` command line. Each command group lives in its own module, listed in COMMAND_MODULES."""

from __future__ import annotations

import importlib
import sys

import click

from survey.errors import SurveyError

# Adding a command group: write survey/cli/<name>.py exposing `register(cli)`, then list it here.
COMMAND_MODULES = ["analysis", "run", "registry", "report", "demo", "dbpa", "plan", "compare"]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="survey")
def cli() -> None:
    """Generative surveys: LLM personas answer Yes/No about messages; valid tests say which wins."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"{__name__}.{_name}").register(cli)


def main(argv: list[str] | None = None) -> None:
    """Entry point: user mistakes print one line and exit 2; no traceback."""
    try:
        cli.main(args=argv, prog_name="survey", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except SurveyError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except OSError as exc:  # an output path that cannot be written (bad folder, permissions, full disk)
        where = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"error: {where}{exc.strerror or exc}", err=True)
        sys.exit(2)
