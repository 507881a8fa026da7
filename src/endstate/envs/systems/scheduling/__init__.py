"""The scheduling service: tools for agents that book, move and cancel appointments and send
communications under a user's approval, with an external system whose answers can be lost
(docs/scheduling-lab.md)."""

from __future__ import annotations

import sqlite3

from endstate.envs.registry import System
from endstate.envs.systems.scheduling.app import ROUTES
from endstate.envs.systems.scheduling.app import SYSTEM as NAME
from endstate.envs.systems.scheduling.directory import seed_directory
from endstate.envs.systems.scheduling.prepare import prepare
from endstate.envs.systems.scheduling.schema import DDL
from endstate.envs.systems.scheduling.state import scheduling_state
from endstate.envs.world import World

TOOL_CALL_BYTES = 256 * 1024


def seed(conn: sqlite3.Connection, world: World) -> None:
    seed_directory(conn, world.seed, world.clock)


def probes(world: World) -> list[str]:
    return ["/", "/tools"]


SYSTEM = System(
    NAME,
    "Scheduling service",
    ROUTES,
    scheduling_state,
    ddl=DDL,
    seed=seed,
    probes=probes,
    prepare=prepare,
    # A tool call is a small JSON object: its arguments never need more.
    request_bytes=TOOL_CALL_BYTES,
)
