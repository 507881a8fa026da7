"""Walking Payer B's request wizard with valid answers, so the pages behind its first step can be
fingerprinted (and their controls checked): each step is reachable only once the one before it is
saved."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx

from endstate.envs.suite.fingerprint import nonce, page_structure
from endstate.envs.world import World, mdy

STEPS = ("member", "provider", "services", "clinical", "review")


def wizard_answers(world: World) -> dict[str, dict[str, str]]:
    """Form data each step accepts, for the first active member of a Payer B plan."""
    plans = {p.id for p in world.plans if p.portal == "payer_b"}
    cov = next(c for c in world.coverages if c.plan_id in plans and c.status == "active")
    day = world.today + timedelta(days=7)
    when = f"{day.month:02d}/{day.day:02d}/{day.year}"
    npi = world.providers[0].npi
    return {
        "member": {
            "plan_id": cov.plan_id,
            "member_id": cov.member_id,
            "member_dob": mdy(world.patient(cov.mrn).dob),
        },
        "provider": {"requesting_npi": npi, "servicing_npi": npi},
        "services": {
            "request_type": "outpatient",
            "diagnosis_codes": "M17.11",
            "cpt_1": "27447",
            "units_1": "1",
            "laterality_1": "RT",
            "start_date": when,
            "end_date": when,
        },
        "clinical": {"clinical_summary": "Structural probe of the clinical step."},
    }


# The clinical step needs a document: a small text file stands in for one.
PROBE_ATTACHMENT = ("attachments", "probe.txt", b"probe", "text/plain")


async def walk_wizard(client: httpx.AsyncClient, world: World) -> dict[str, Any]:
    """Fill every step with valid answers and fingerprint each page reached."""
    field, name, content, kind = PROBE_ATTACHMENT
    pages: dict[str, Any] = {}
    page = await client.get("/requests/new/member")
    for step, data in wizard_answers(world).items():
        files = {field: (name, content, kind)} if step == "clinical" else None
        await client.post(
            f"/requests/new/{step}", data=data | {"_nonce": nonce(page.text)}, files=files
        )
        nxt = STEPS[STEPS.index(step) + 1]
        page = await client.get(f"/requests/new/{nxt}")
        pages[f"/requests/new/{nxt}"] = {"status": page.status_code} | page_structure(page.text)
    return pages
