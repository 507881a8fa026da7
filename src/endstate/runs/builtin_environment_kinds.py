"""The environments endstate ships, registered like any plug-in's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from endstate.corpus.model import PublicTask
from endstate.runs.environment import Environment
from endstate.runs.environment_kinds import (
    EnvironmentKind,
    EnvironmentSettings,
    register_environment,
)


@asynccontextmanager
async def _embedded(settings: EnvironmentSettings) -> AsyncIterator[Environment]:
    """The embedded suite: one server for every episode of the run, stopped after it."""
    from endstate.envs.server import EmbeddedSuite
    from endstate.envs.world import DEFAULT_SEED
    from endstate.runs.embedded import EmbeddedEnvironment

    world = settings.world_seed if settings.world_seed is not None else DEFAULT_SEED
    suite = await asyncio.to_thread(
        EmbeddedSuite.start, world, system_options=settings.system_options
    )
    env = EmbeddedEnvironment(suite, settings.seed)
    try:
        yield env
    finally:
        await env.aclose()


EMBEDDED = register_environment(
    EnvironmentKind(
        "embedded",
        _embedded,
        "EHR, two payer portals, a fax service and a patient portal on loopback",
    )
)


NOT_SET_UP = (
    "no build of the benchmark's portals here; build one from a checkout of the benchmark "
    "(its benchmark/v2/portals folder) with: endstate env hab setup --source PATH"
)


@asynccontextmanager
async def _hab(settings: EnvironmentSettings) -> AsyncIterator[Environment]:
    """The benchmark's portals: one `next start` of the latest build for every episode."""
    from endstate.errors import EndstateError
    from endstate.hab.build import find_build
    from endstate.hab.server import PortalServer
    from endstate.runs.hab import HabEnvironment

    build = find_build()
    if build is None:
        raise EndstateError(f"--env hab: {NOT_SET_UP}")
    server = PortalServer(build)
    await asyncio.to_thread(server.start)
    try:
        yield HabEnvironment(build, server, settings.seed)
    finally:
        await asyncio.to_thread(server.stop)


def _serves_hab(task: PublicTask) -> bool:
    from endstate.runs.hab import serves

    return serves(task)


def _hab_unavailable() -> str | None:
    from endstate.hab.build import find_build

    return NOT_SET_UP if find_build() is None else None


HAB = register_environment(
    EnvironmentKind(
        "hab",
        _hab,
        "the benchmark's own EHR, payer and fax portals (HealthAdminBench v2)",
        serves=_serves_hab,
        unavailable=_hab_unavailable,
    )
)
