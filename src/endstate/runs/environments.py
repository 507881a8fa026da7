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
from dataclasses import dataclass
from importlib.metadata import entry_points

from endstate.errors import EndstateError
from endstate.runs.environment import Environment

ENTRY_POINT_GROUP = "endstate.environments"


@dataclass(frozen=True)
class EnvironmentSettings:
    """What a run tells the environment it starts: the run's seed and the world's."""

    seed: int
    world_seed: int | None = None


@dataclass(frozen=True)
class EnvironmentKind:
    name: str
    start: Callable[[EnvironmentSettings], AbstractAsyncContextManager[Environment]]
    summary: str = ""


_REGISTERED: dict[str, EnvironmentKind] = {}
_LOADED = False


def register_environment(kind: EnvironmentKind) -> EnvironmentKind:
    if kind.name in _REGISTERED and _REGISTERED[kind.name] is not kind:
        raise EndstateError(f"environment kind {kind.name!r} is registered twice")
    _REGISTERED[kind.name] = kind
    return kind


def environment_kinds() -> dict[str, EnvironmentKind]:
    """Every kind: the built-ins, then those installed packages declare (loaded once)."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        from endstate.runs import builtin_environments  # noqa: F401  registers the built-ins

        for point in entry_points(group=ENTRY_POINT_GROUP):
            try:
                kind = point.load()
            except Exception as exc:
                raise EndstateError(
                    f"environment plug-in {point.name!r} ({point.value}) failed to load: {exc}"
                ) from None
            if not isinstance(kind, EnvironmentKind):
                raise EndstateError(
                    f"environment plug-in {point.name!r} ({point.value}) is not an EnvironmentKind"
                )
            register_environment(kind)
    return dict(_REGISTERED)


def environment_kind(name: str) -> EnvironmentKind:
    kinds = environment_kinds()
    if name not in kinds:
        raise EndstateError(f"--env {name!r}: unknown environment (expected {', '.join(kinds)})")
    return kinds[name]
