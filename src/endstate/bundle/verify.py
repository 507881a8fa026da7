"""A bundle's integrity: the detached checksum over the archive, the index over each member.

Every mismatch is one line naming the file: the archive (its `.sha256`), or the member whose
bytes do not hash to what `index.json` lists, or a member missing or unlisted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from endstate.bundle.archive import (
    FORMAT,
    INDEX,
    BundleError,
    checksum_path,
    read_archive,
    read_checksum,
    sha256,
)


def _index(path: Path, members: dict[str, bytes]) -> dict[str, str]:
    if INDEX not in members:
        raise BundleError(f"{path}: no {INDEX}; not an endstate bundle")
    try:
        doc: Any = json.loads(members[INDEX])
    except (ValueError, UnicodeDecodeError):
        raise BundleError(f"{path}: {INDEX} is not JSON") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise BundleError(f"{path}: {INDEX} is not an {FORMAT} index")
    files = doc.get("files")
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        raise BundleError(f"{path}: {INDEX}: `files` is not a map of names to SHA-256 digests")
    return files


def verified_members(path: Path) -> tuple[dict[str, bytes], list[str]]:
    """The archive's members and every integrity failure, one line each (empty: intact)."""
    members = read_archive(path)
    problems: list[str] = []
    expected = read_checksum(path)
    actual = sha256(path.read_bytes())
    if actual != expected:
        problems.append(
            f"{path}: archive SHA-256 {actual} does not match {checksum_path(path).name} "
            f"({expected})"
        )
    files = _index(path, members)
    for name in sorted(files):
        if name not in members:
            problems.append(f"{path}: member {name}: listed in {INDEX} but missing")
        elif sha256(members[name]) != files[name]:
            problems.append(f"{path}: member {name}: SHA-256 does not match {INDEX}")
    for name in sorted(set(members) - set(files) - {INDEX}):
        problems.append(f"{path}: member {name}: not listed in {INDEX}")
    return members, problems
