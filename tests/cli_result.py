"""Run the survey command line in-process and capture what it printed (one helper for every test folder)."""

from survey.cli import main


def run_cli(capsys, *args) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``survey *args``."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
