"""Payer B's portal: a request wizard, inquiry, appeals and education pages."""

from __future__ import annotations

from pathlib import Path

from endstate.envs.suite.registry import System
from endstate.envs.systems.payer_b.app import ROUTES
from endstate.envs.systems.payer_b.state import payer_b_state
from endstate.envs.systems.payer_b.walk import walk_wizard
from endstate.envs.world import World

PROBES = [
    "/login",
    "/home",
    "/requests/new/member",
    "/inquiry",
    "/appeals",
    "/appeals/file",
    "/education",
]


def probes(world: World) -> list[str]:
    return list(PROBES)


SYSTEM = System(
    "payer_b",
    "Payer B portal",
    ROUTES,
    payer_b_state,
    pages=Path(__file__).with_name("pages"),
    probes=probes,
    sign_in_before="/home",
    walk=walk_wizard,
    uploads=True,
)
