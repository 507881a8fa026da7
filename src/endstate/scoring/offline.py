"""Offline scoring: a corpus plus a directory of supplied end states gives task records."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from endstate import firewall
from endstate.corpus.loader import Corpus
from endstate.corpus.model import Task
from endstate.errors import StateError
from endstate.records import TaskRecord
from endstate.scoring.judge import Judge
from endstate.scoring.states import StateFile, discover, read_state, shown
from endstate.scoring.task_score import blocked, score_task, unmeasurable

MISSING = "no state document supplied"


@dataclass
class OfflineScoring:
    records: list[TaskRecord]
    task_ids: list[str]
    unknown_files: list[Path] = field(default_factory=list)
    blocked: list[firewall.FirewallVerdict] = field(default_factory=list)
    only_supplied: bool = False
    unknown_answers: list[Path] = field(default_factory=list)


MAX_ANSWER_BYTES = 2_000_000  # a final message beyond this is refused by the answer reader


def read_answer_file(path: Path) -> str:
    """A supplied final message: UTF-8 text; anything else names the file and why."""
    try:
        raw = path.read_bytes()[: MAX_ANSWER_BYTES + 1]
    except OSError as exc:
        raise StateError(f"{shown(path)}: cannot read final message ({exc.strerror})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise StateError(f"{shown(path)}: final message is not UTF-8 (byte {exc.start})") from None


def _score_one(task: Task, item: StateFile, judge: Judge | None, answer: Path | None) -> TaskRecord:
    source = str(item.path)
    try:
        state = read_state(item.path)
        message = read_answer_file(answer) if answer is not None else None
    except StateError as exc:
        return unmeasurable(task, item.attempt, str(exc), judge, source)
    try:
        return score_task(task, state, item.attempt, judge, source, message)
    except Exception as exc:  # one poisonous state never stops the scoring of the others
        reason = f"state could not be scored: {type(exc).__name__}: {exc}"
        return unmeasurable(task, item.attempt, reason[:500], judge, source)


def score_supplied(
    corpus: Corpus,
    states_dir: Path,
    pattern: str = "*.json",
    judge: Judge | None = None,
    only_supplied: bool = False,
    workers: int = 8,
    on_record: Callable[[TaskRecord], None] | None = None,
    project_fn: firewall.ProjectFn = firewall.project,
    answers_dir: Path | None = None,
) -> OfflineScoring:
    """Score every supplied state; tasks without one are unmeasurable unless excluded.

    `answers_dir` holds the agents' final messages for tasks with read legs, named as the
    states are but ending in `.txt`; a task without one has no answer (its read legs fail)."""
    tasks = {t.id: t for t in corpus.tasks}
    files, unknown = discover(states_dir, list(tasks), pattern)
    answers: dict[tuple[str, str], Path] = {}
    unknown_answers: list[Path] = []
    if answers_dir is not None:
        found, unknown_answers = discover(answers_dir, list(tasks), "*.txt")
        answers = {(f.task_id, f.attempt): f.path for f in found}
    supplied = {f.task_id for f in files}
    in_scope = [t for t in corpus.tasks if t.id in supplied or not only_supplied]
    verdicts = {t.id: firewall.verify(t, project_fn) for t in in_scope}
    records: list[TaskRecord] = []
    jobs: list[tuple[Task, StateFile]] = []
    for task in in_scope:
        verdict = verdicts[task.id]
        attempts = [f for f in files if f.task_id == task.id]
        if verdict.status == "blocked":
            labels = [f.attempt for f in attempts] or ["1"]
            records += [blocked(task, a, verdict.reason or "blocked", judge) for a in labels]
        elif not attempts:
            records.append(unmeasurable(task, "1", MISSING, judge))
        else:
            jobs += [(task, f) for f in attempts]
    for record in records:
        if on_record:
            on_record(record)
    with ThreadPoolExecutor(max_workers=workers if judge else 1) as pool:
        for record in pool.map(
            lambda job: _score_one(
                job[0], job[1], judge, answers.get((job[1].task_id, job[1].attempt))
            ),
            jobs,
        ):
            records.append(record)
            if on_record:
                on_record(record)
    records.sort(key=lambda r: (r.task_id, r.attempt))
    return OfflineScoring(
        records=records,
        task_ids=[t.id for t in in_scope],
        unknown_files=unknown,
        blocked=[v for v in verdicts.values() if v.status == "blocked"],
        only_supplied=only_supplied,
        unknown_answers=unknown_answers,
    )
