"""The patient portal: a practice's portal as its patients see it — their own labs, problems,
allergies, medications, appointments, messages and bills — over a Synthea-like population
(docs/patient-portal.md)."""

from __future__ import annotations

from pathlib import Path

from endstate.envs.suite.registry import System
from endstate.envs.systems.patient_portal.app import ROUTES
from endstate.envs.systems.patient_portal.common import SYSTEM as NAME
from endstate.envs.systems.patient_portal.schema import DDL
from endstate.envs.systems.patient_portal.seed import seed
from endstate.envs.systems.patient_portal.state import patient_portal_state
from endstate.envs.systems.patient_portal.walk import PROBES, walk_portal
from endstate.envs.world import World


def probes(world: World) -> list[str]:
    return list(PROBES)


# No `sign_in_before`: the fingerprint signs in there only with a payer plan's account, and
# the portal's accounts are its patients'. The walk signs in as one and renders the rest.
SYSTEM = System(
    NAME,
    "Patient portal",
    ROUTES,
    patient_portal_state,
    pages=Path(__file__).with_name("pages"),
    ddl=DDL,
    seed=seed,
    probes=probes,
    walk=walk_portal,
)
