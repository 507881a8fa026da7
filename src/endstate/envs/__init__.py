"""Environments: the embedded suite — an EHR, two payer portals, a fax service, a patient
portal and a scheduling service — and its world, by job: `server.py` assembles the suite in
one process; `systems/` holds each system; `shared/` the web pieces they share; `suite/` the
runtime (systems registry, episode database, grading channel, state document); `world/` the
world and its reference data. Each stands only on those after it (an import-linter contract).

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
