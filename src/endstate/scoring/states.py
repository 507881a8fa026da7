"""Supplied state documents: find them on disk, match them to tasks and attempts, read them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from endstate.errors import StateError


@dataclass(frozen=True)
class StateFile:
    task_id: str
    attempt: str
    path: Path


def read_state(path: Path) -> Any:
    """Decode one state document; any failure names the file and what is wrong."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise StateError(f"{path}: cannot read state document ({exc.strerror})") from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise StateError(
            f"{path}: state document is not JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except UnicodeDecodeError:
        raise StateError(f"{path}: state document is not UTF-8 text") from None
    except RecursionError:
        raise StateError(f"{path}: state document is nested too deeply to read") from None
    if not isinstance(data, dict):
        raise StateError(f"{path}: state document is not a JSON object")
    return data


def _suffix(pattern: str) -> str:
    return pattern.rsplit("*", 1)[-1] if "*" in pattern else ".json"


def _match(stem: str, task_ids: list[str]) -> tuple[str, str] | None:
    """Longest task id that names this file: `<id>` or `<id>.<attempt>`."""
    for task_id in task_ids:
        if stem == task_id:
            return task_id, "1"
        if stem.startswith(task_id + ".") and len(stem) > len(task_id) + 1:
            return task_id, stem[len(task_id) + 1 :]
    return None


def discover(
    states_dir: Path, task_ids: list[str], pattern: str = "*.json"
) -> tuple[list[StateFile], list[Path]]:
    """State files for known tasks, and the files that match no task (reported, never dropped).

    Layouts: `<task-id>.json`, `<task-id>.<attempt>.json`, or `<task-id>/<attempt>.json`.
    """
    if not states_dir.is_dir():
        raise StateError(f"{states_dir}: states directory not found")
    by_length = sorted(task_ids, key=len, reverse=True)
    known = set(task_ids)
    suffix = _suffix(pattern)
    found: list[StateFile] = []
    unknown: list[Path] = []
    for path in sorted(states_dir.glob(pattern)):
        if not path.is_file():
            continue
        stem = path.name[: -len(suffix)] if path.name.endswith(suffix) else path.stem
        match = _match(stem, by_length)
        if match is None:
            unknown.append(path)
        else:
            found.append(StateFile(task_id=match[0], attempt=match[1], path=path))
    for path in sorted(states_dir.glob(f"*/{pattern}")):
        if not path.is_file():
            continue
        if path.parent.name in known:
            stem = path.name[: -len(suffix)] if path.name.endswith(suffix) else path.stem
            found.append(StateFile(task_id=path.parent.name, attempt=stem, path=path))
        else:
            unknown.append(path)
    return found, unknown
