"""What the agent was asked: the task's projection, read from the corpus the manifest names.

Neither a record nor the manifest holds the instruction, so it comes from the corpus on disk,
through the firewall's projection: exactly the public fields the agent received, never a
grading field. The corpus may have moved or changed since the run; then the page says so
rather than showing an instruction the agent never read as if it had.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from endstate.corpus.loader import read_tasks
from endstate.corpus.lock import file_sha256
from endstate.corpus.model import Task
from endstate.errors import EndstateError
from endstate.firewall import Projection, project
from endstate.manifest import Manifest


@dataclass(frozen=True)
class Instruction:
    projection: Projection | None
    note: str | None = None  # why there is none, or why to read it with care


class Instructions:
    """Projections of the run's tasks, the corpus read once, on first use."""

    def __init__(self, manifest: Manifest) -> None:
        self._root = Path(manifest.corpus.root)
        self._pins = manifest.corpus.files
        self._tasks: dict[str, Task] | None = None
        self._problem: str | None = None
        self._lock = threading.Lock()

    def _load(self) -> dict[str, Task]:
        with self._lock:
            if self._tasks is None:
                self._tasks = {}
                if not self._root.is_dir():
                    self._problem = f"the run's corpus {self._root} is not on this machine"
                    return self._tasks
                try:
                    tasks, _ = read_tasks(self._root)
                except (EndstateError, OSError) as exc:
                    self._problem = f"the run's corpus {self._root} could not be read: {exc}"
                    return self._tasks
                self._tasks = {t.id: t for t in tasks}
            return self._tasks

    def get(self, task_id: str) -> Instruction:
        task = self._load().get(task_id)
        if task is None:
            return Instruction(None, self._problem or f"no task {task_id!r} in {self._root}")
        projection = project(task)
        pinned = self._pins.get(task.source)
        try:
            now = file_sha256(self._root / task.source)
        except OSError:
            now = None
        if pinned is not None and now != pinned:
            return Instruction(
                projection,
                f"{task.source} has changed since the run (its sha256 differs from the "
                "manifest's pin): this is the task as it is now, not necessarily as the "
                "agent read it",
            )
        return Instruction(projection)
