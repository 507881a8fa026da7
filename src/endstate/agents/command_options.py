"""The options of a `command:` agent: what its sandbox passes in, shows it and lets it reach."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from endstate.agents.build_fingerprint import DEFAULT_IGNORE
from endstate.agents.options import KindOptions


class CommandOptions(KindOptions):
    pass_env: tuple[str, ...] = Field(
        default=(), description="Environment variables passed to the program (names only)."
    )
    isolation: Literal["sandbox", "none"] = Field(
        default="sandbox", description="sandbox, or none (unsandboxed; every report says so)."
    )
    mounts: tuple[Path, ...] = Field(
        default=(), description="Folders the sandboxed program may read (default: its own)."
    )
    egress: tuple[str, ...] = Field(
        default=(), description="HOST:PORT the sandboxed program may reach (e.g. its model's API)."
    )
    build_root: tuple[Path, ...] = Field(
        default=(),
        description="Folders (or files) whose content is the program's build fingerprint "
        "(default: the folders the sandbox offers it).",
    )
    build_ignore: tuple[str, ...] = Field(
        default=DEFAULT_IGNORE, description="Glob patterns left out of the fingerprint."
    )
