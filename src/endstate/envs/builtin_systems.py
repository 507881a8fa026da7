"""The four systems endstate ships — the EHR, two payer portals and the fax service —
registered like any plug-in's."""

from __future__ import annotations

from endstate.envs import ehr, fax, payer_a, payer_b
from endstate.envs.fingerprint import walk_payer_b_wizard
from endstate.envs.statedoc import ehr_state, fax_state, payer_a_state, payer_b_state
from endstate.envs.systems import System, register_system
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


def _ehr_probes(world: World) -> list[str]:
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


def _payer_a_probes(world: World) -> list[str]:
    return [
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


def _payer_b_probes(world: World) -> list[str]:
    return [
        "/login",
        "/home",
        "/requests/new/member",
        "/inquiry",
        "/appeals",
        "/appeals/file",
        "/education",
    ]


def _fax_probes(world: World) -> list[str]:
    return [f"/compose?mrn={world.referrals[0].mrn}", "/sent"]


EHR = register_system(System("ehr", "EHR", ehr.ROUTES, ehr_state, probes=_ehr_probes))
PAYER_A = register_system(
    System("payer_a", "Payer A portal", payer_a.ROUTES, payer_a_state, probes=_payer_a_probes)
)
PAYER_B = register_system(
    System(
        "payer_b",
        "Payer B portal",
        payer_b.ROUTES,
        payer_b_state,
        probes=_payer_b_probes,
        walk=walk_payer_b_wizard,
    )
)
FAX = register_system(System("fax", "Fax service", fax.ROUTES, fax_state, probes=_fax_probes))
