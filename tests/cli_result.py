"""Run the survey command line in-process and capture what it printed (tests outside tests/cli use it)."""

from survey.cli import main


def run_cli(capsys, *args) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``survey *args``."""
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
