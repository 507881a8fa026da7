"""Writing an export file whole or not at all: no half-written file is ever left at `out`."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from endstate.errors import EndstateError


@contextmanager
def staged(out: Path) -> Iterator[Path]:
    """A fresh path beside `out` to write to; moved onto `out` only if the write succeeds.

    The staging folder is private, so the file inside is created with the user's usual
    permissions, and a write error of any kind becomes one line naming `out`."""
    blocker = _file_in_the_way(out.parent)
    if blocker is not None:
        raise EndstateError(f"{out}: cannot write: {blocker} is not a directory")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=".export-", dir=out.parent))
    except OSError as exc:
        raise EndstateError(f"{out}: cannot write: {exc.strerror or exc}") from None
    try:
        tmp = folder / out.name
        yield tmp
        if out.is_dir():
            raise EndstateError(f"{out}: is a directory; name a file with --out")
        os.replace(tmp, out)
    except OSError as exc:
        raise EndstateError(f"{out}: cannot write: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _file_in_the_way(folder: Path) -> Path | None:
    """The nearest existing ancestor of `folder` if it is not a directory (mkdir's
    "File exists" would not say which)."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return None if candidate.is_dir() else candidate
    return None
