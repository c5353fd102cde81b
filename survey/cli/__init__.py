"""The `survey` command line. Each command group lives in its own module, listed in COMMAND_MODULES."""

from __future__ import annotations

import importlib
import re
import sys

import click

from survey import SurveyError, Terminated, path_error_message, to_json

# Adding a command group: write survey/cli/<name>.py exposing `register(cli)`, then list it here.
COMMAND_MODULES = ["init", "analysis", "run", "batch", "registry", "report", "demo", "dbpa", "plan", "compare",
                   "fidelity", "plan_humans", "field"]


class _FlagsGroup(click.Group):
    """The command group: a library error that names an API keyword (`from_table=`) reads as its flag here."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except SurveyError as exc:
            if "`" not in str(exc):
                raise
            cmd = self.commands.get(ctx.invoked_subcommand or "")
            known = None if cmd is None else {o for p in cmd.params for o in getattr(p, "opts", [])}
            raise type(exc)(as_flags(str(exc), known)) from exc


@click.group(cls=_FlagsGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="survey")
def cli() -> None:
    """Generative surveys: LLM personas answer questions about messages (Yes/No, rating scales, forced choice,
    free text); valid tests say which wins."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"{__name__}.{_name}").register(cli)


def json_requested(argv: list[str] | None = None) -> bool:
    """Whether the command line asks for --json (before any "--"), so that even an error that stops
    the command before its options are parsed (a bad flag) comes out as JSON."""
    args = list(sys.argv[1:] if argv is None else argv)
    return "--json" in (args[:args.index("--")] if "--" in args else args)


def _fail(message: str, code: int, as_json: bool, prefix: str = "error: ") -> None:
    """With --json, one JSON object {"error": message} on stdout (where scripts read); else one line on
    stderr. Either way the exit status is ``code``."""
    if as_json:
        click.echo(to_json({"error": message}))
    else:
        click.echo(f"{prefix}{message}", err=True)
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point: user mistakes print one line and exit 2; no traceback. With --json they print
    {"error": "..."} on stdout instead."""
    as_json = json_requested(argv)
    try:
        cli.main(args=argv, prog_name="survey", standalone_mode=False)
    except click.exceptions.Abort:
        _fail("aborted", 130, as_json, prefix="")
    except click.ClickException as exc:  # bad flags and values: exit 2 (click's usage errors), one line
        ctx = getattr(exc, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        _fail(exc.format_message() + hint, exc.exit_code, as_json)
    except SurveyError as exc:
        _fail(str(exc), 2, as_json)
    except Terminated:  # SIGTERM during a run, before anything was sent
        _fail("terminated", 143, as_json, prefix="")
    except KeyboardInterrupt:
        _fail("interrupted", 130, as_json, prefix="")
    except OSError as exc:  # an output path that cannot be written (bad folder, permissions, full disk)
        _fail(path_error_message(exc), 2, as_json)


_API_NAME = re.compile(r"`([a-z][a-z_]*)=([^`]*)`")


def as_flags(message: str, known: set[str] | None = None) -> str:
    """The statistics and the data layer name what to change in API terms (`from_table=`, `scale=likert5`);
    on the command line those are its flags (--from-table, --scale likert5). With ``known`` (the command's
    flags), a name the command has no flag for stays as it is: a study-file or Python setting, not a flag."""
    def flag(m):
        name = "--" + m.group(1).replace("_", "-")
        if known is not None and name not in known:
            return m.group(0)
        return name + (f" {m.group(2)}" if m.group(2) else "")

    return _API_NAME.sub(flag, message)
