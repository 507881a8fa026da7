"""A contamination register: the cases a team has shown its agent — in prompts, in
demonstrations, in training data — so a run over them is never mistaken for held-out
evidence. A run checks its tasks against the register it is given, pins the register and
the overlap in its manifest, and every report says which scores are not held out.

    register: endstate-contamination-v1
    name: assistant-v3 prompts            # optional
    entries:
      - case: booking-01                  # a task id, or
        sha256: 9f2c…                     # the sha256 of its file (survives a rename), or both
        used_in: prompt                   # prompt | demonstration | training
        where: few-shot block of system prompt v3
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from endstate.corpus.loader import Corpus
from endstate.errors import EndstateError
from endstate.manifest import ContaminationPin, Overlap

FORMAT = "endstate-contamination-v1"
UsedIn = Literal["prompt", "demonstration", "training"]


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    case: str | None = None
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    used_in: UsedIn
    where: str = ""

    @model_validator(mode="after")
    def _names_a_case(self) -> Entry:
        if self.case is None and self.sha256 is None:
            raise ValueError("an entry names a case, a sha256, or both")
        return self


class Register(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["endstate-contamination-v1"] = Field(alias="register")
    name: str = ""
    entries: list[Entry] = Field(min_length=1)


def load_register(path: Path) -> tuple[Register, str]:
    """The register and its file's sha256; a clear error naming the file and field."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise EndstateError(f"{path}: cannot read the contamination register ({exc})") from exc
    try:
        data = yaml.safe_load(raw)
    except yaml.YAMLError as exc:
        raise EndstateError(f"{path}: not YAML ({exc})") from exc
    try:
        return Register.model_validate(data), hashlib.sha256(raw).hexdigest()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "$"
        raise EndstateError(f"{path}: {where}: {first['msg']}") from None


def overlap(register: Register, corpus: Corpus, task_ids: list[str]) -> list[Overlap]:
    """The scheduled tasks the register names, by id or by their file's sha256."""
    chosen = set(task_ids)
    by_source = {t.source: t.id for t in corpus.tasks if t.id in chosen}
    by_hash = {h: by_source[f] for f, h in corpus.file_hashes.items() if f in by_source}
    found: dict[str, Overlap] = {}
    for e in register.entries:
        if e.case is not None and e.case in chosen:
            found.setdefault(
                e.case, Overlap(task_id=e.case, used_in=e.used_in, where=e.where, matched_by="case")
            )
        elif e.sha256 is not None and e.sha256 in by_hash:
            task = by_hash[e.sha256]
            found.setdefault(
                task, Overlap(task_id=task, used_in=e.used_in, where=e.where, matched_by="sha256")
            )
    return [found[k] for k in sorted(found)]


def pin_register(path: Path, corpus: Corpus, task_ids: list[str]) -> ContaminationPin:
    register, digest = load_register(path)
    return ContaminationPin(
        path=str(path),
        name=register.name or path.name,
        sha256=digest,
        overlapping=overlap(register, corpus, task_ids),
    )


def describe(pin: ContaminationPin, scheduled: int) -> str:
    """One line for the report's first disclosure item."""
    n = len(pin.overlapping)
    if not n:
        return f"contamination register {pin.name!r}: none of the {scheduled} tasks"
    uses = sorted({o.used_in for o in pin.overlapping})
    return (
        f"contamination register {pin.name!r}: {n} of {scheduled} tasks were seen by the agent "
        f"({', '.join(uses)}): their scores are not held-out evidence "
        f"({', '.join(o.task_id for o in pin.overlapping[:5])}{', …' if n > 5 else ''})"
    )
