"""The fax service: compose with chart documents or uploads, and the sent log."""

from __future__ import annotations

from pathlib import Path

from endstate.envs.suite.registry import System
from endstate.envs.systems.fax.app import ROUTES
from endstate.envs.systems.fax.schema import DDL
from endstate.envs.systems.fax.state import fax_state
from endstate.envs.world import World


def probes(world: World) -> list[str]:
    return [f"/compose?mrn={world.referrals[0].mrn}", "/sent"]


SYSTEM = System(
    "fax",
    "Fax service",
    ROUTES,
    fax_state,
    pages=Path(__file__).with_name("pages"),
    probes=probes,
    ddl=DDL,
    uploads=True,
)
