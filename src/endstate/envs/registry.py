"""Systems of the embedded suite, registered as units: the built-ins and any an installed
package declares under the entry-point group `endstate.systems`.

A system is everything the suite needs to serve, store, grade and fingerprint it: its routes,
its pages, its own tables and how they are seeded from the world, its slice of the state
document, and the pages the fingerprint renders. The server, the episode database, the state
document and the fingerprint read this registry; adding a system edits none of them.

    [project.entry-points."endstate.systems"]
    mine = "my_package.system:SYSTEM"    # a System
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from starlette.routing import BaseRoute

from endstate.errors import EndstateError
from endstate.plugins import Registry

if TYPE_CHECKING:
    import httpx

    from endstate.envs.runtime import Episode
    from endstate.envs.world import World

ENTRY_POINT_GROUP = "endstate.systems"
_NAME = re.compile(r"[a-z][a-z0-9_]{0,30}")

StateSlice = Callable[["World", "Episode", list[dict[str, Any]]], Any]


@dataclass(frozen=True)
class System:
    """One system of the suite (its name is its port's, its cookie's and its state key)."""

    name: str
    title: str
    routes: Sequence[BaseRoute]
    state: StateSlice  # its slice of the state document, read from the episode database
    pages: Path | None = None  # its Jinja pages, named `<name>/<page>.html` in handlers
    ddl: str = ""  # CREATE TABLE statements of the tables it alone owns
    seed: Callable[[sqlite3.Connection, World], None] | None = None  # rows for those tables
    probes: Callable[[World], list[str]] = field(default=lambda world: [])  # fingerprinted
    # The first probe behind a sign-in: the fingerprint first signs in (POST /login) with the
    # portal account of a plan this system serves (`Plan.portal` is its name).
    sign_in_before: str | None = None
    # Pages reachable only by walking a flow (a wizard): fingerprinted after the probes.
    walk: Callable[[httpx.AsyncClient, World], Awaitable[dict[str, Any]]] | None = None
    # Applies this system's part of an episode setup (a case's initial snapshot) to a fresh
    # episode, inside one transaction; raises EpisodeSetupError naming what is wrong.
    prepare: Callable[[sqlite3.Connection, dict[str, Any]], None] | None = None
    # Whether its forms take files: its request bodies may then reach the suite's
    # `upload_request_bytes` rather than `request_bytes`.
    uploads: bool = False
    # A bound of its own on request bodies (a tool call's arguments), over the suite's.
    request_bytes: int | None = None
    # What a run may configure of it (`--system-option NAME.KEY=VALUE`): a pydantic model of
    # its own that validates them, and older flags that are aliases of its keys.
    options: type[BaseModel] | None = None
    aliases: Mapping[str, str] = field(default_factory=dict)


class EpisodeSetupError(EndstateError):
    """An episode setup the systems cannot apply (an unknown system, a bad field)."""


def _check(system: System) -> None:
    if not _NAME.fullmatch(system.name) or system.name == "grading":
        raise EndstateError(f"system name {system.name!r}: lowercase letters, digits and _")


SYSTEMS: Registry[System] = Registry(
    ENTRY_POINT_GROUP, System, "endstate.envs.builtin_systems", check=_check
)


def register_system(system: System) -> System:
    return SYSTEMS.register(system)


def systems() -> dict[str, System]:
    """Every system, built-ins first, then those installed packages declare (loaded once)."""
    return SYSTEMS.items()


def system_names() -> tuple[str, ...]:
    return tuple(systems())
