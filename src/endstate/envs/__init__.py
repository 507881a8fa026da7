"""Environments: the embedded suite (an EHR, two payer portals and a fax portal) and its world.

Exports are resolved on first use: the command line imports this package for its sub-app and
should not pay for the web stack until a suite actually starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from endstate.envs.server import EmbeddedSuite, EpisodeInfo
    from endstate.envs.world import World, generate_world

__all__ = ["EmbeddedSuite", "EpisodeInfo", "World", "generate_world"]


def __getattr__(name: str) -> Any:
    if name in ("EmbeddedSuite", "EpisodeInfo"):
        from endstate.envs import server

        return getattr(server, name)
    if name in ("World", "generate_world"):
        from endstate.envs import world

        return getattr(world, name)
    raise AttributeError(name)
