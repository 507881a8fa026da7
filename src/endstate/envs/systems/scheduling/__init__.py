"""The scheduling service: tools for agents that book, move and cancel appointments and send
communications under a user's approval, with an external system whose answers can be lost
(docs/scheduling-lab.md)."""

from __future__ import annotations

import sqlite3

from endstate.envs.registry import System
from endstate.envs.systems.scheduling.app import ROUTES
from endstate.envs.systems.scheduling.app import SYSTEM as NAME
from endstate.envs.systems.scheduling.directory import seed_directory
from endstate.envs.systems.scheduling.outcomes import summarize_scheduling
from endstate.envs.systems.scheduling.outcomes_view import scheduling_view
from endstate.envs.systems.scheduling.prepare import prepare
from endstate.envs.systems.scheduling.release_outcomes import RELEASE_OUTCOMES
from endstate.envs.systems.scheduling.run_options import ALIASES, SchedulingOptions
from endstate.envs.systems.scheduling.schema import DDL
from endstate.envs.systems.scheduling.state import scheduling_state
from endstate.envs.world import World
from endstate.report.outcomes import OutcomeSection

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
    options=SchedulingOptions,
    aliases=ALIASES,
)


# The lab's report section and the outcomes its release gates count: the report and the gates
# find them through the outcome registry (envs/builtin_outcomes.py), never by this name.
OUTCOMES = OutcomeSection(
    NAME, "Scheduling lab", summarize_scheduling, scheduling_view, RELEASE_OUTCOMES
)
