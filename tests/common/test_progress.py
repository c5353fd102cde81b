"""The one progress-bar helper: a no-op when disabled or (transient) off a terminal; a kept bar leaves
its last state, extra fields included, on stderr."""

from __future__ import annotations

from survey.common.progress import Bar, progress_bar


def test_disabled_and_transient_off_a_terminal_write_nothing(capsys):
    for enabled in (False, True):  # pytest's stderr is not a terminal
        with progress_bar("counting", 3, enabled) as bar:
            assert isinstance(bar, Bar) and bar.progress is None
            bar()
            bar.update(2, 3, anything=1)
    assert capsys.readouterr().err == ""


def test_a_kept_bar_shows_count_and_fields(capsys):
    with progress_bar("generating", 4, keep=True, fields={"requests": 0}) as bar:
        bar(2)
        bar.update(3, requests=7)
        assert bar.progress.tasks[0].completed == 3
        bar.update(4, total=5)
        assert bar.progress.tasks[0].total == 5
    err = capsys.readouterr().err
    assert "generating" in err and "4/5" in err and "requests: 7" in err
