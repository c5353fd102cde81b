"""A rich progress bar per model showing done, failed and rate; a no-op when disabled (--json)."""

from __future__ import annotations

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
                console=console or Console(stderr=True), transient=False)

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
