"""The progress bar every long run shows: done/total, passes, failures, unmeasurable, ETA."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from endstate.records import TaskRecord


class RunProgress:
    """A Rich progress bar: done/total, passes, failures, unmeasurable, elapsed, ETA."""

    def __init__(self, label: str = "run", console: Console | None = None) -> None:
        self.progress = Progress(
            TextColumn(f"[bold]{label}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
        )
        self.bar = self.progress.add_task("", total=None)
        self.counts = {"passed": 0, "failed": 0, "unmeasurable": 0, "blocked": 0}
        self.started = False
        self._told: set[str] = set()  # causes of model-endpoint losses already said

    def start(self, total: int, already: int) -> None:
        """Shown from the first attempt on: a refusal before it prints one line, no bar."""
        self.progress.start()
        self.started = True
        self.progress.update(self.bar, total=total, completed=already)

    def stop(self) -> None:
        if self.started:
            self.progress.stop()
            self.started = False

    def record(self, record: TaskRecord) -> None:
        self.counts[record.status] += 1
        fault = record.infrastructure
        if fault is not None and fault.kind == "model" and fault.detail not in self._told:
            # A dead model endpoint is news at once, not at the end of a long run.
            self._told.add(fault.detail)
            self.progress.console.print(
                Text.assemble(("model endpoint: ", "yellow"), f"attempt lost, {fault.detail}"),
                soft_wrap=True,
            )
        c = self.counts
        self.progress.update(
            self.bar,
            advance=1,
            description=(
                f"[green]{c['passed']} passed[/] · {c['failed']} failed · "
                f"[yellow]{c['unmeasurable']} unmeasurable[/] · {c['blocked']} blocked"
            ),
        )
