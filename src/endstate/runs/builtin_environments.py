"""The environments endstate ships, registered like any plug-in's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from endstate.runs.environment import Environment
from endstate.runs.environments import EnvironmentKind, EnvironmentSettings, register_environment


@asynccontextmanager
async def _embedded(settings: EnvironmentSettings) -> AsyncIterator[Environment]:
    """The embedded suite: one server for every episode of the run, stopped after it."""
    from endstate.envs.server import EmbeddedSuite
    from endstate.envs.world import DEFAULT_SEED
    from endstate.runs.embedded import EmbeddedEnvironment

    world = settings.world_seed if settings.world_seed is not None else DEFAULT_SEED
    suite = await asyncio.to_thread(EmbeddedSuite.start, world)
    env = EmbeddedEnvironment(suite, settings.seed)
    try:
        yield env
    finally:
        await env.aclose()


EMBEDDED = register_environment(
    EnvironmentKind("embedded", _embedded, "EHR, two payer portals and a fax service on loopback")
)
