"""Supplied state documents: find them on disk, match them to tasks and attempts, read them."""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from endstate.errors import StateError
from endstate.jsonfile import JsonRefused, decode, printable


def shown(path: Path) -> str:
    """A path as text that can always be printed (undecodable names come back escaped)."""
    return printable(str(path))


@dataclass(frozen=True)
class StateFile:
    task_id: str
    attempt: str
    path: Path


MAX_STATE_BYTES = 256 * 1024 * 1024  # far beyond any recorded state; a bomb, not a state


def read_state(path: Path) -> Any:
    """Decode one state document; any failure names the file and what is wrong."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO would block the read forever
            raise StateError(f"{shown(path)}: state document is not a regular file")
        if info.st_size > MAX_STATE_BYTES:
            raise StateError(
                f"{shown(path)}: state document too large ({info.st_size:,} bytes; "
                f"the limit is {MAX_STATE_BYTES:,})"
            )
        raw = path.read_bytes()
    except OSError as exc:
        raise StateError(f"{shown(path)}: cannot read state document ({exc.strerror})") from None
    try:
        data = decode(raw, strict=False)
    except JsonRefused as exc:
        raise StateError(f"{shown(path)}: state document unusable: {exc}") from None
    if not isinstance(data, dict):
        raise StateError(f"{shown(path)}: state document is not a JSON object")
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
        if path.is_dir():
            if path.name not in known:  # `<task-id>/` folders are read below
                unknown.append(path)
            continue
        stem = path.name[: -len(suffix)] if path.name.endswith(suffix) else path.stem
        match = _match(stem, by_length)
        if match is None:
            unknown.append(path)
        else:
            found.append(StateFile(task_id=match[0], attempt=match[1], path=path))
    for path in sorted(states_dir.glob(f"*/{pattern}")):
        if path.is_dir():
            unknown.append(path)
            continue
        if path.parent.name in known:
            stem = path.name[: -len(suffix)] if path.name.endswith(suffix) else path.stem
            found.append(StateFile(task_id=path.parent.name, attempt=stem, path=path))
        else:
            unknown.append(path)
    return found, unknown


def writable_state(state: Any) -> tuple[Any, bytes]:
    """The state document as it will be scored and kept, and its UTF-8 JSON.

    A document read from a browser the agent drove can hold lone surrogates (`"\\ud800"` in a
    stored value decodes to one), which no UTF-8 file can hold: those texts are written as
    escapes, in the document scored as in the file kept, so the two stay the same."""
    try:
        return state, json.dumps(state, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        safe = _printable_tree(state)
        return safe, json.dumps(safe, ensure_ascii=False).encode("utf-8")


def _printable_tree(value: Any) -> Any:
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(str(k)): _printable_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable_tree(v) for v in value]
    return value
