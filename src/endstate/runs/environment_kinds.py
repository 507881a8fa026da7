"""Environment kinds, registered by name (`--env NAME`): the built-ins and any an installed
package declares under the entry-point group `endstate.environments`:

    [project.entry-points."endstate.environments"]
    mine = "my_package.env:KIND"        # an EnvironmentKind

A kind starts its environment for a run and stops it after; what the environment needs from
the harness (a browser page to read state through, its private paths) it declares itself.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from endstate.corpus.model import PublicTask
from endstate.errors import EndstateError
from endstate.plugins import Registry
from endstate.runs.environment import Environment

ENTRY_POINT_GROUP = "endstate.environments"


@dataclass(frozen=True)
class EnvironmentSettings:
    """What a run tells the environment it starts: the run's seed and the world's."""

    seed: int
    world_seed: int | None = None
    # Per system, how the run configures it (the scheduling service's `user_model`).
    system_options: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class EnvironmentKind:
    name: str
    start: Callable[[EnvironmentSettings], AbstractAsyncContextManager[Environment]]
    summary: str = ""
    # The tasks it is the environment of (a website of its own), when no --env is given.
    serves: Callable[[PublicTask], bool] | None = None
    # Why it cannot start on this machine (not set up), or None: checked before choosing it.
    unavailable: Callable[[], str | None] | None = None


KINDS: Registry[EnvironmentKind] = Registry(
    ENTRY_POINT_GROUP, EnvironmentKind, "endstate.runs.builtin_environment_kinds"
)


def register_environment(kind: EnvironmentKind) -> EnvironmentKind:
    return KINDS.register(kind)


def environment_kinds() -> dict[str, EnvironmentKind]:
    """Every kind: the built-ins, then those installed packages declare (loaded once)."""
    return KINDS.items()


def choose_environment(tasks: list[PublicTask]) -> str:
    """The environment a corpus's tasks name: the first kind that serves any of them (it then
    refuses, in one line, those it cannot run), else the embedded suite. A kind that serves
    them but is not set up here is refused with its reason."""
    for kind in environment_kinds().values():
        if kind.serves is not None and any(kind.serves(t) for t in tasks):
            why = kind.unavailable() if kind.unavailable is not None else None
            if why:
                raise EndstateError(
                    f"these tasks run on the {kind.name} environment ({kind.summary}), which is "
                    f"not ready: {why}"
                )
            return kind.name
    return "embedded"


def environment_kind(name: str) -> EnvironmentKind:
    kinds = environment_kinds()
    if name not in kinds:
        raise EndstateError(f"--env {name!r}: unknown environment (expected {', '.join(kinds)})")
    return kinds[name]
