"""Determinism across systems: the same actions on the same world and episode seed give the
same Payer B reference and case numbers, the same fax id and the same state document."""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.world import mdy

from .envs_support import Visitor, referral_with_portal

UPLOAD = ("clinical-summary.txt", b"Pain persists after 12 weeks of physical therapy.\n")


def _post_files(v: Visitor, path: str, data: dict[str, str]) -> Any:
    v.last = v.client.post(
        v.base + path,
        data=data | {"_nonce": v.nonce()},
        files={"attachments": (UPLOAD[0], UPLOAD[1], "text/plain")},
    )
    return v.last


def _work(suite: EmbeddedSuite, info: EpisodeInfo) -> dict[str, Any]:
    """A fixed script: a Payer B request through the wizard, a Payer B appeal, an EHR note
    and a fax with a chart document and an upload."""
    world = suite.world
    ref = referral_with_portal(world, "payer_b")
    cov = next(c for c in world.coverages if c.id == ref.coverage_id)
    plan = world.plan(cov.plan_id)
    service = ref.services[0]
    day = max(date.fromisoformat(ref.appointment), world.today + timedelta(days=7))

    b = Visitor(info.start_urls["payer_b"])
    b.post(
        "/login", {"username": plan.portal_username or "", "password": plan.portal_password or ""}
    )
    b.get("/requests/new/member")
    steps = {
        "member": {
            "plan_id": plan.id,
            "member_id": cov.member_id,
            "member_dob": mdy(world.patient(ref.mrn).dob),
        },
        "provider": {"requesting_npi": ref.referring_npi, "servicing_npi": ref.provider_npi},
        "services": {
            "request_type": "outpatient",
            "diagnosis_codes": ", ".join(d.code for d in ref.diagnoses),
            "cpt_1": service.cpt,
            "units_1": str(service.quantity),
            "laterality_1": service.laterality or "NA",
            "start_date": mdy(day.isoformat()),
            "end_date": mdy(day.isoformat()),
        },
    }
    for step, data in steps.items():
        r = b.post(f"/requests/new/{step}", data)
        assert r.status_code == 200 and "error-summary" not in r.text, (step, r.text)
    r = _post_files(b, "/requests/new/clinical", {"clinical_summary": "Symptoms persist " * 3})
    assert r.url.path == "/requests/new/review", r.text
    r = b.post("/requests/new/review", {"attest": "yes"})
    assert r.status_code == 200 and r.url.path.startswith("/requests/RQ-"), r.text

    denial = next(
        d
        for d in world.denials
        if world.plan(d.plan_id).portal == "payer_b"
        and d.appeal_deadline >= world.today.isoformat()
    )
    b.get(f"/appeals/file?claim_id={denial.claim_id}")
    r = _post_files(
        b,
        "/appeals/file",
        {
            "claim_id": denial.claim_id,
            "reason": "medical-necessity",
            "explanation": "Records show the service was medically necessary.",
        },
    )
    assert r.url.path.startswith("/appeals/GA-"), r.text
    b.close()

    e = Visitor(info.start_urls["ehr"])
    e.get(f"/referrals/{ref.id}?tab=communications")
    e.post(
        f"/referrals/{ref.id}/notes",
        {"subject": "Submitted", "category": "auth-follow-up", "body": "Sent to the payer."},
    )
    e.close()

    doc = next(d for d in world.documents if d.mrn == ref.mrn)
    f = Visitor(info.start_urls["fax"])
    f.get(f"/compose?mrn={ref.mrn}")
    r = _post_files(
        f,
        "/compose",
        {
            "patient_mrn": ref.mrn,
            "recipient": plan.payer,
            "fax_number": plan.fax,
            "cover_note": "Records attached.",
            "document_ids": doc.id,
        },
    )
    assert r.url.path.startswith("/transmissions/FX-"), r.text
    f.close()
    return suite.state(info.id)


def _numbers(state: dict[str, Any]) -> list[str]:
    return [
        state["payer_b"]["pa_submissions"][0]["confirmation_number"],
        state["payer_b"]["appeals"][0]["confirmation_number"],
        state["fax"]["transmissions"][0]["id"],
    ]


def test_same_actions_same_episode_seed_same_numbers_and_state(suite: EmbeddedSuite) -> None:
    one, two, other = (suite.open_episode(seed=s) for s in (7, 7, 8))
    try:
        a, b, c = (_work(suite, e) for e in (one, two, other))
    finally:
        for e in (one, two, other):
            suite.close_episode(e.id)
    rq, ga, fx = _numbers(a)
    assert re.fullmatch(r"RQ-[A-Z2-9]{10}", rq) and re.fullmatch(r"GA-[A-Z2-9]{10}", ga)
    assert re.fullmatch(r"FX-[A-Z2-9]{8}", fx)
    assert _numbers(b) == [rq, ga, fx]
    assert a["episode"]["id"] != b["episode"]["id"]
    assert {k: v for k, v in a.items() if k != "episode"} == {
        k: v for k, v in b.items() if k != "episode"
    }
    # another episode seed: other numbers, same shape of work
    assert all(x != y for x, y in zip(_numbers(c), [rq, ga, fx], strict=True))
    assert sorted(c["delta"]) == sorted(a["delta"])
    assert a["fax"]["transmissions"][0]["uploads"][0]["filename"] == UPLOAD[0]
    assert a["payer_b"]["pa_submissions"][0]["attachments"][0]["size"] == len(UPLOAD[1])
