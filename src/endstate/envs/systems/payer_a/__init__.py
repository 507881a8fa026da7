"""Payer A's portal: prior authorization, eligibility, policies, claims and appeals."""

from __future__ import annotations

from pathlib import Path

from endstate.envs.suite.registry import System
from endstate.envs.systems.payer_a.app import ROUTES
from endstate.envs.systems.payer_a.state import payer_a_state
from endstate.envs.world import World

PROBES = [
    "/login",
    "/dashboard",
    "/prior-auth/new",
    "/prior-auth",
    "/policies",
    "/eligibility",
    "/claims",
    "/appeals/new",
    "/appeals",
]


def probes(world: World) -> list[str]:
    return list(PROBES)


SYSTEM = System(
    "payer_a",
    "Payer A portal",
    ROUTES,
    payer_a_state,
    pages=Path(__file__).with_name("pages"),
    probes=probes,
    sign_in_before="/dashboard",
    uploads=True,
)
