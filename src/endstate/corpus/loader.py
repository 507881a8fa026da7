"""Read a corpus directory into tasks, discovering the format and the family of each file.

Which format reads a file is the registered formats' answer (`corpus/formats.py`): a `.json`
file is one task (a scheduling case or endstate's native format when it says so, else
hab-v2); a `.jsonl` or `.csv` file holds Personal Health Arena rows, one task each; a format
from an installed package may claim a suffix of its own.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from endstate.corpus import pha
from endstate.corpus.formats import formats_for, task_suffixes
from endstate.corpus.lock import CorpusLock, compare, corpus_files, hash_tree, read_lock, tree_hash
from endstate.corpus.model import Task
from endstate.corpus.problems import Problem, errors
from endstate.errors import CorpusError
from endstate.jsonfile import JsonRefused, decode


@dataclass
class Corpus:
    """A loaded corpus: its tasks in id order, its pin, and the problems found while loading."""

    root: Path
    tasks: list[Task]
    lock: CorpusLock | None
    tree_hash: str
    file_hashes: dict[str, str]
    problems: list[Problem] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.lock.name if self.lock else self.root.name

    @property
    def vendored(self) -> bool:
        return self.lock is not None

    def task(self, task_id: str) -> Task:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise CorpusError(f"{self.root}: no task with id {task_id!r}")


def task_files(root: Path) -> list[Path]:
    return [p for p in corpus_files(root) if formats_for(p)]


def _read_file(root: Path, path: Path) -> tuple[list[Task], list[Problem]]:
    """The tasks of one file, by its format; bad content is reported, never raised."""
    rel = path.relative_to(root).as_posix()
    family = path.relative_to(root).parts[0] if len(path.relative_to(root).parts) > 1 else ""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return [], [Problem(file=rel, reason=f"cannot read: {exc.strerror or exc}")]
    data: Any = None
    decoded = False
    candidates = formats_for(path)
    for candidate in candidates:
        content: Any = raw
        if candidate.content == "json":
            if not decoded:
                try:
                    data = decode(raw, strict=True)
                except JsonRefused as exc:
                    return [], [Problem(file=rel, path=exc.path, reason=exc.reason)]
                decoded = True
            content = data
        try:
            if candidate.claims is None or candidate.claims(content):
                return candidate.parse(rel, family, content)
        except Exception as exc:  # a format's defect is reported against the file, not raised
            reason = f"corpus format {candidate.name!r} failed: {type(exc).__name__}: {exc}"
            return [], [Problem(file=rel, reason=reason[:500])]
    names = ", ".join(c.name for c in candidates)
    return [], [Problem(file=rel, reason=f"no corpus format claims this file (asked: {names})")]


def read_tasks(root: Path) -> tuple[list[Task], list[Problem]]:
    """Parse every task file; never raise for bad content, report it as problems instead."""
    tasks: list[Task] = []
    problems: list[Problem] = []
    for path in task_files(root):
        found_tasks, found = _read_file(root, path)
        tasks += found_tasks
        problems += found
    seen: Counter[str] = Counter(t.id for t in tasks)
    for task in tasks:
        if seen[task.id] > 1:
            where = pha.id_path(task) if task.format == pha.FORMAT else "$.id"
            problems.append(
                Problem(file=task.source, path=where, reason=f"duplicate task id {task.id!r}")
            )
    return sorted(tasks, key=lambda t: t.id), problems


def load_corpus(root: Path | str) -> Corpus:
    """Load a corpus for use. A lock mismatch or any error-level problem refuses it whole."""
    root = Path(root)
    if not root.is_dir():
        raise CorpusError(f"{root}: corpus directory not found")
    files = hash_tree(root)
    lock = read_lock(root)
    if lock is not None:
        mismatch = compare(files, lock)
        if not mismatch.ok:
            raise CorpusError(
                f"{root}: corpus was edited after import ({mismatch.describe()}); "
                "re-import it or restore the files"
            )
    tasks, problems = read_tasks(root)
    bad = errors(problems)
    if bad:
        more = (
            f" (and {len(bad) - 1} more; run `endstate corpus lint {root}`)" if len(bad) > 1 else ""
        )
        raise CorpusError(f"{root}/{bad[0].line()}{more}")
    if not tasks:
        kinds = ", ".join(f"*{suffix}" for suffix in task_suffixes())
        raise CorpusError(f"{root}: no task files ({kinds}) found")
    return Corpus(
        root=root,
        tasks=tasks,
        lock=lock,
        tree_hash=tree_hash(files),
        file_hashes=files,
        problems=problems,
    )
