"""The EHR: referral, denial and DME worklists, charts, documents and notes."""

from __future__ import annotations

from pathlib import Path

from endstate.envs.suite.registry import System
from endstate.envs.systems.ehr.app import ROUTES
from endstate.envs.systems.ehr.schema import DDL
from endstate.envs.systems.ehr.state import ehr_state
from endstate.envs.world import World

REFERRAL_TABS = (
    "referral",
    "diagnoses",
    "services",
    "coverages",
    "authorizations",
    "documents",
    "communications",
)


def probes(world: World) -> list[str]:
    """The pages the fingerprint renders: every worklist, every tab, one record of each."""
    referral = world.referrals[0]
    doc = next(d for d in world.documents if d.mrn == referral.mrn)
    denial = world.denials[0]
    order = world.dme_orders[0]
    return [
        "/worklist",
        *(f"/referrals/{referral.id}?tab={t}" for t in REFERRAL_TABS),
        f"/documents/{doc.id}",
        "/denials",
        *(f"/denials/{denial.claim_id}?tab={t}" for t in ("claim", "remittance", "appeal")),
        f"/patients/{denial.mrn}?claim={denial.claim_id}",
        "/dme",
        *(f"/dme/{order.id}?tab={t}" for t in ("order", "documents", "notes")),
    ]


SYSTEM = System(
    "ehr",
    "EHR",
    ROUTES,
    ehr_state,
    pages=Path(__file__).with_name("pages"),
    probes=probes,
    ddl=DDL,
)
