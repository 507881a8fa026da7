"""The bundle's container: a deterministic .tar.gz, its index of hashes, its detached checksum.

Deterministic so that the same run always packs to the same bytes (and the same checksum):
entries sorted by name, fixed mtimes, owners and modes, and a gzip header without a date.
Reading never raises past a one-line `BundleError` naming the file.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
import zlib
from pathlib import Path, PurePosixPath

from endstate.errors import EndstateError

INDEX = "index.json"
FORMAT = "endstate-bundle-v1"
MAX_MEMBER_BYTES = 256 * 1024 * 1024  # one member: far beyond any end state or record file
MAX_MEMBERS = 200_000


class BundleError(EndstateError):
    """A bundle that cannot be read or verified; the message names the file."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def checksum_path(archive: Path) -> Path:
    """The detached checksum beside the archive: `FILE.sha256`, in sha256sum's format."""
    return archive.with_name(archive.name + ".sha256")


def index_of(members: dict[str, bytes], run_id: str) -> bytes:
    """The index: every member's SHA-256, so one edited file is named, not just detected."""
    files = {name: sha256(data) for name, data in sorted(members.items())}
    doc = {"format": FORMAT, "run_id": run_id, "files": files}
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()


def write_archive(path: Path, members: dict[str, bytes]) -> str:
    """Pack `members` (name -> bytes) and write the detached checksum; return the SHA-256."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(members):
            data = members[name]
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    packed = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=packed, mtime=0) as gz:
        gz.write(raw.getvalue())
    data = packed.getvalue()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    digest = sha256(data)
    checksum_path(path).write_text(f"{digest}  {path.name}\n")
    return digest


def _safe_name(archive: Path, name: str) -> str:
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts or not name or name != pure.as_posix():
        raise BundleError(f"{archive}: member {name!r} is not a plain relative path")
    return name


def read_archive(path: Path) -> dict[str, bytes]:
    """Every member of a bundle archive; anything unreadable is one line naming the file."""
    try:
        blob = path.read_bytes()
    except FileNotFoundError:
        raise BundleError(f"{path}: bundle not found") from None
    except IsADirectoryError:
        raise BundleError(f"{path}: is a directory, not a bundle archive") from None
    members: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(blob), mode="r:gz") as tar:
            for info in tar:
                if len(members) >= MAX_MEMBERS:
                    raise BundleError(f"{path}: more than {MAX_MEMBERS} members")
                if not info.isfile():
                    raise BundleError(f"{path}: member {info.name!r} is not a regular file")
                if info.size > MAX_MEMBER_BYTES:
                    raise BundleError(f"{path}: member {info.name!r} is too large")
                name = _safe_name(path, info.name)
                if name in members:
                    raise BundleError(f"{path}: member {name!r} appears twice")
                handle = tar.extractfile(info)
                assert handle is not None  # a regular file always has data
                members[name] = handle.read()
    except BundleError:
        raise
    except (tarfile.TarError, EOFError, OSError, zlib.error) as exc:
        reason = str(exc) or type(exc).__name__
        raise BundleError(f"{path}: not a readable bundle archive (.tar.gz): {reason}") from None
    return members


def read_checksum(archive: Path) -> str:
    """The hex digest of `FILE.sha256`; missing or malformed is one line naming it."""
    path = checksum_path(archive)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise BundleError(f"{path}: detached checksum not found beside the bundle") from None
    fields = text.split()
    if not fields or len(fields[0]) != 64 or any(c not in "0123456789abcdef" for c in fields[0]):
        raise BundleError(f"{path}: not a sha256sum line (expected 64 hex digits, a file name)")
    return fields[0]
