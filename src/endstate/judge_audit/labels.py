"""People's labels, one append-only file per labeller beside the run:
`judge-audit/labels-NAME.jsonl`, one line per label given, each fsync'd.

Nothing is ever rewritten: labelling an item again appends a line, the latest counts and the
earlier ones stay as its history. A line records whether its labeller had already seen the
judge's verdict on that item (a label changed after the reveal), so the report can say so.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from endstate.errors import EndstateError
from endstate.judge_audit.sample import audit_dir
from endstate.records import SafeText

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,39}")
PREFIX, SUFFIX = "labels-", ".jsonl"
MAX_COMMENT = 2000
HumanLabel = Literal["pass", "fail"]

_append_lock = threading.Lock()


class Label(BaseModel):
    item: str
    shown: str = Field(description="Hash of what the labeller was shown (the sample's).")
    label: HumanLabel
    comment: SafeText = ""
    labeller: str
    at: str
    after_reveal: bool = Field(
        default=False, description="The labeller had seen the judge's verdict on this item."
    )


def check_name(name: str) -> str:
    """A labeller name that is safe as part of a file name, or one clear error."""
    if not NAME.fullmatch(name):
        raise EndstateError(
            f"labeller name {name!r}: use 1 to 40 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def labels_path(root: Path, labeller: str) -> Path:
    return audit_dir(root) / f"{PREFIX}{check_name(labeller)}{SUFFIX}"


def read_labels(path: Path) -> list[Label]:
    """Every complete line of one labeller's file; a torn last line (killed mid-write) is
    skipped, any other bad line is refused by number."""
    if not path.exists():
        return []
    data = path.read_bytes()
    out: list[Label] = []
    lines = data.splitlines(keepends=True)
    for number, raw in enumerate(lines, start=1):
        if not raw.endswith(b"\n"):
            break
        if not raw.strip():
            continue
        try:
            out.append(Label.model_validate_json(raw))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "$"
            raise EndstateError(
                f"{path}: line {number} is not a label ({where}: {first['msg']})"
            ) from None
    return out


def latest(labels: list[Label]) -> dict[str, Label]:
    """Each item's label that counts: the last one given."""
    return {label.item: label for label in labels}


def append_label(
    root: Path, labeller: str, item: str, shown: str, label: HumanLabel, comment: str = ""
) -> Label:
    """Append one label (fsync'd); labelling an item again is a new line, never an edit."""
    path = labels_path(root, labeller)
    if len(comment) > MAX_COMMENT:
        raise EndstateError(f"comment: at most {MAX_COMMENT} characters ({len(comment)} given)")
    with _append_lock:
        before = latest(read_labels(path))
        entry = Label(
            item=item,
            shown=shown,
            label=label,
            comment=comment,
            labeller=labeller,
            at=datetime.now(UTC).isoformat(timespec="milliseconds"),
            after_reveal=item in before,
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        _cut_torn_tail(path)
        with path.open("a", encoding="utf-8") as fh:
            fh.write(entry.model_dump_json() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
    return entry


def _cut_torn_tail(path: Path) -> None:
    """A line cut short by a kill would swallow the next label: drop it before appending."""
    if not path.exists():
        return
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)
            fh.flush()
            os.fsync(fh.fileno())


@dataclass(frozen=True)
class Labeller:
    name: str
    path: Path
    labels: list[Label]  # every line, in order: the history


def all_labellers(root: Path) -> list[Labeller]:
    """Every labeller with a file beside the run, by name."""
    folder = audit_dir(root)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob(f"{PREFIX}*{SUFFIX}")):
        name = path.name[len(PREFIX) : -len(SUFFIX)]
        if NAME.fullmatch(name):
            found.append(Labeller(name, path, read_labels(path)))
    return found
