"""Identify the build that produced a number: version, source revision, dirty flag, image."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pydantic import BaseModel

from endstate import __version__


class BuildInfo(BaseModel):
    version: str
    revision: str | None = None
    dirty: bool | None = None
    image_digest: str | None = None

    def describe(self) -> str:
        rev = "unknown revision (not a git checkout)"
        if self.revision:
            rev = f"revision {self.revision[:12]}" + (" (dirty)" if self.dirty else " (clean)")
        image = f", image {self.image_digest}" if self.image_digest else ""
        return f"endstate {self.version}, {rev}{image}"


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout


def build_info() -> BuildInfo:
    source = Path(__file__).resolve().parent
    revision = _git(["rev-parse", "HEAD"], source)
    status = _git(["status", "--porcelain", "--untracked-files=no"], source) if revision else None
    return BuildInfo(
        version=__version__,
        revision=revision.strip() if revision else None,
        dirty=bool(status.strip()) if status is not None else None,
        image_digest=os.environ.get("ENDSTATE_IMAGE_DIGEST") or None,
    )
