"""The project's progress bars, all on stderr through rich: ``progress_bar`` (one count, for plan, validate,
compare, embedding and registry generation) and ``RunProgress`` (one bar per model with failures and rate,
for the collection engine). Both are no-ops when disabled (``--json``). In Jupyter they are plain text on
stderr (``force_jupyter=False``): rich's notebook widgets need ipywidgets, and without it rich warns."""

from __future__ import annotations

import sys
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class Bar:
    """What ``progress_bar`` yields: ``bar()`` / ``bar(k)`` advances; ``bar.update(done, total, **fields)``
    sets the count (and total, and the extra fields). Without a live bar both do nothing."""

    def __init__(self, progress: Progress | None = None, task=None):
        self.progress, self.task = progress, task

    def __call__(self, k: int = 1) -> None:
        if self.progress is not None:
            self.progress.advance(self.task, k)

    def update(self, done: int | None = None, total: int | None = None, **fields) -> None:
        if self.progress is not None:
            self.progress.update(self.task, completed=done, **({"total": total} if total is not None else {}),
                                 **fields)


@contextmanager
def progress_bar(label: str, total: int | None = None, enabled: bool = True, *, keep: bool = False,
                 fields: dict | None = None):
    """A progress bar for one count, yielding a ``Bar``. ``fields`` (name -> start value) are shown as
    "name: value" and set through ``bar.update``. A transient bar (the default) runs only on a terminal:
    off one it would leave just a blank line. ``keep``: the last state stays, also in logs, with the time
    it took."""
    if not enabled or (not keep and not sys.stderr.isatty()):
        yield Bar()
        return
    extra = [TextColumn(f"{name}: {{task.fields[{name}]}}") for name in fields or {}]
    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), *extra,
                  TimeElapsedColumn() if keep else TimeRemainingColumn(),
                  console=Console(stderr=True, force_jupyter=False), transient=not keep) as progress:
        yield Bar(progress, progress.add_task(label, total=total, **(fields or {})))


class _Rate(ProgressColumn):
    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("—/s" if speed is None else f"{speed:.1f}/s", style="cyan")


class TaskHandle:
    def __init__(self, progress: Progress | None, task_id):
        self.progress, self.task_id, self.failed = progress, task_id, 0

    def advance(self, ok: bool = True) -> None:
        if not ok:
            self.failed += 1
        if self.progress is not None:
            self.progress.update(self.task_id, advance=1, failed=self.failed)

    def status(self, text: str) -> None:
        if self.progress is not None:
            self.progress.update(self.task_id, status=text)


class RunProgress:
    def __init__(self, enabled: bool = True, console: Console | None = None):
        self.progress = None
        if enabled:
            self.progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TextColumn("[red]{task.fields[failed]} failed"), _Rate(), TimeElapsedColumn(),
                TimeRemainingColumn(), TextColumn("{task.fields[status]}"),
                console=console or Console(stderr=True, force_jupyter=False), transient=False)

    def add(self, name: str, total: int) -> TaskHandle:
        if self.progress is None:
            return TaskHandle(None, None)
        return TaskHandle(self.progress, self.progress.add_task(name, total=total, failed=0, status=""))

    def __enter__(self) -> RunProgress:
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.progress is not None:
            self.progress.stop()
