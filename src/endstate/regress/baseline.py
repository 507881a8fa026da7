"""Frozen baselines: a run's score sheet, named, written once, read-only, checked on every read.

A baseline file holds the sheet and the SHA-256 of its canonical JSON. Reading recomputes the
hash, so an edited baseline is refused rather than compared against; freezing never replaces
an existing name. (The hash catches edits, careless or not; it does not authenticate who froze
the file — keep baselines where releases are kept.)
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from endstate.corpus.problems import SAFE_ID
from endstate.errors import EndstateError
from endstate.regress.sheet import ScoreSheet

DEFAULT_BASELINES = Path(".endstate/baselines")


class Baseline(BaseModel):
    name: str
    frozen_at: str
    sheet: ScoreSheet


class BaselineFile(BaseModel):
    """The file on disk: the baseline and the hash that makes an edit detectable."""

    baseline: Baseline
    sha256: str = Field(description="SHA-256 of the baseline's canonical JSON.")


def _canonical(baseline: Baseline) -> bytes:
    return json.dumps(
        baseline.model_dump(mode="json"), sort_keys=True, separators=(",", ":")
    ).encode()


def _path(folder: Path, name: str) -> Path:
    if not SAFE_ID.fullmatch(name) or ".." in name:
        raise EndstateError(
            f"--name {name!r}: use letters, digits and . _ : @ + - (no '..', no '/')"
        )
    return folder / f"{name}.json"


def freeze(sheet: ScoreSheet, name: str, folder: Path = DEFAULT_BASELINES) -> tuple[Baseline, Path]:
    """Write a new baseline from a run's sheet; an existing name is never overwritten."""
    path = _path(folder, name)
    if path.exists():
        raise EndstateError(
            f"{path}: baseline {name!r} already exists; frozen baselines are never replaced"
        )
    baseline = Baseline(
        name=name, frozen_at=datetime.now(UTC).isoformat(timespec="seconds"), sheet=sheet
    )
    body = BaselineFile(baseline=baseline, sha256=hashlib.sha256(_canonical(baseline)).hexdigest())
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)  # never two writers
    with os.fdopen(fd, "w") as out:
        out.write(body.model_dump_json(indent=1))
    return baseline, path


def load(name: str, folder: Path = DEFAULT_BASELINES) -> Baseline:
    """Read a baseline, refusing one whose content no longer matches its hash."""
    path = _path(folder, name)
    if not path.is_file():
        known = ", ".join(names(folder)) or "none"
        raise EndstateError(f"{path}: no baseline named {name!r} (baselines here: {known})")
    return read_file(path)


def read_file(path: Path) -> Baseline:
    try:
        stored = BaselineFile.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise EndstateError(f"{path}: not a baseline file ({where}: {first['msg']})") from None
    actual = hashlib.sha256(_canonical(stored.baseline)).hexdigest()
    if actual != stored.sha256:
        raise EndstateError(
            f"{path}: baseline was edited after it was frozen (sha256 {actual[:12]}…, "
            f"frozen as {stored.sha256[:12]}…); refusing to compare against it"
        )
    return stored.baseline


def names(folder: Path = DEFAULT_BASELINES) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []
