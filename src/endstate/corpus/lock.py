"""Vendoring a corpus and pinning it: sha256 per file, one tree hash, a lock file beside it."""

from __future__ import annotations

import hashlib
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from endstate.errors import CorpusError

LOCK_NAME = "endstate.lock.json"
LOCK_VERSION = 1
Split = Literal["train", "test"]


class CorpusLock(BaseModel):
    """What a vendored corpus was when imported; `verify` compares the tree against it."""

    lock_version: int = LOCK_VERSION
    name: str
    source: str = Field(description="Where the files were imported from.")
    imported_at: str = Field(description="UTC time of import, ISO 8601.")
    files: dict[str, str] = Field(description="sha256 per file, by path relative to the root.")
    tree_hash: str = Field(description="sha256 over the sorted (path, file hash) list.")
    split: Split | None = Field(
        default=None,
        description="The side of a held-out split these tasks are on: written by `corpus "
        "split`, or declared at `corpus import --split`; None: not declared.",
    )


class LockMismatch(BaseModel):
    changed: list[str] = []
    missing: list[str] = []
    added: list[str] = []

    @property
    def ok(self) -> bool:
        return not (self.changed or self.missing or self.added)

    def describe(self) -> str:
        parts = []
        for label, paths in (
            ("changed", self.changed),
            ("missing", self.missing),
            ("added", self.added),
        ):
            if paths:
                shown = ", ".join(paths[:3]) + (
                    f" and {len(paths) - 3} more" if len(paths) > 3 else ""
                )
                parts.append(f"{label}: {shown}")
        return "; ".join(parts)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def tree_hash(files: dict[str, str]) -> str:
    """One hash for the whole tree, independent of file system order."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(f"{rel}\0{files[rel]}\n".encode())
    return digest.hexdigest()


def corpus_files(root: Path) -> list[Path]:
    """Every regular file under root except the lock itself and hidden files, sorted."""
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if (
            path.is_file()
            and rel.as_posix() != LOCK_NAME
            and not any(part.startswith(".") for part in rel.parts)
        ):
            out.append(path)
    return out


def hash_tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): file_sha256(p) for p in corpus_files(root)}


def read_lock(root: Path) -> CorpusLock | None:
    path = root / LOCK_NAME
    if not path.exists():
        return None
    try:
        return CorpusLock.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "$"
        raise CorpusError(f"{path}: lock file is not valid ({where}: {first['msg']})") from None


def compare(actual: dict[str, str], lock: CorpusLock) -> LockMismatch:
    """Differences between a tree's file hashes and the ones its lock recorded."""
    return LockMismatch(
        changed=sorted(k for k in actual.keys() & lock.files.keys() if actual[k] != lock.files[k]),
        missing=sorted(lock.files.keys() - actual.keys()),
        added=sorted(actual.keys() - lock.files.keys()),
    )


def verify(root: Path) -> CorpusLock:
    """Return the lock if the tree matches it; raise a CorpusError naming what changed."""
    lock = read_lock(root)
    if lock is None:
        raise CorpusError(
            f"{root}: no {LOCK_NAME}; import the corpus with `endstate corpus import`"
        )
    mismatch = compare(hash_tree(root), lock)
    if not mismatch.ok:
        raise CorpusError(f"{root}: corpus differs from its lock ({mismatch.describe()})")
    if tree_hash(lock.files) != lock.tree_hash:
        raise CorpusError(f"{root / LOCK_NAME}: tree_hash does not match the listed file hashes")
    return lock


def vendor(
    src: Path, dest: Path, name: str, force: bool = False, split: Split | None = None
) -> CorpusLock:
    """Copy a task tree into dest and write its lock. Refuses to overwrite unless forced."""
    if not src.is_dir():
        raise CorpusError(f"{src}: not a directory")
    if dest.exists() and any(dest.iterdir()):
        if not force:
            raise CorpusError(f"{dest}: already exists and is not empty (use --force to replace)")
        shutil.rmtree(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for path in corpus_files(src):
        target = dest / path.relative_to(src)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    files = hash_tree(dest)
    lock = CorpusLock(
        name=name,
        source=str(src.resolve()),
        imported_at=datetime.now(UTC).isoformat(timespec="seconds"),
        files=files,
        tree_hash=tree_hash(files),
        split=split,
    )
    (dest / LOCK_NAME).write_text(lock.model_dump_json(indent=2, exclude_none=True) + "\n")
    return lock
