"""The patient portal's gates over plain HTTP: the sign-in, one patient's records only,
the nonce, and visible validation that stores nothing."""

from __future__ import annotations

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.systems.patient_portal.model import Patient
from endstate.envs.systems.patient_portal.population import of_world

from .envs_support import Visitor


def _signed_in(episode: EpisodeInfo, who: Patient) -> Visitor:
    v = Visitor(episode.start_urls["patient_portal"])
    r = v.post("/login", {"username": who.username, "password": who.password, "next": "/home"})
    assert r.status_code == 200 and r.url.path == "/home", r.text[:300]
    return v


def test_pages_need_a_patient_sign_in(suite: EmbeddedSuite, episode: EpisodeInfo) -> None:
    who = of_world(suite.world).patients[0]
    v = Visitor(episode.start_urls["patient_portal"])
    assert v.last.url.path == "/login"
    assert v.get("/labs").url.path == "/login"
    r = v.post("/login", {"username": who.username, "password": "wrong"})
    assert r.status_code == 401 and "incorrect" in r.text
    r = v.post("/login", {"username": who.username, "password": who.password, "next": "/labs"})
    assert r.url.path == "/labs" and "Lab Results" in r.text
    v.close()
    state = suite.state(episode.id)["patient_portal"]
    assert [x["success"] for x in state["logins"]] == [False, True]
    assert state["patients_signed_in"] == [who.id] and state["logged_in_ever"]


def test_a_patient_sees_and_changes_only_their_own_records(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    people = of_world(suite.world)
    me, other = people.patients[0], people.patients[1]
    theirs = next(a for a in people.appointments if a.patient_id == other.id)
    their_message = next(m for m in people.messages if m.patient_id == other.id)
    v = _signed_in(episode, me)
    assert v.get(f"/appointments/{theirs.id}/cancel").status_code == 404
    assert v.get(f"/messages/{their_message.id}").status_code == 404
    v.close()
    state = suite.state(episode.id)
    assert state["summary"]["not_found"] == 2 and "pp_appointments" not in state["delta"]


def test_writes_need_the_page_nonce_and_valid_fields(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    people = of_world(suite.world)
    who = people.patients[0]
    v = _signed_in(episode, who)
    v.get("/messages/new")
    body = {"provider_id": who.pcp_id, "subject": "Hi", "body": "Hello", "in_reply_to": ""}
    assert v.post("/messages/new", body, nonce=None).status_code == 400
    v.get("/messages/new")
    r = v.post(
        "/messages/new", {"provider_id": "PRV-9999", "subject": "", "body": "", "in_reply_to": ""}
    )
    assert r.status_code == 422
    assert "Choose who the message is to." in r.text and "Enter a subject." in r.text
    v.get("/appointments/new")
    r = v.post(
        "/appointments/new", {"provider_id": who.pcp_id, "date": "02/30/2026", "reason": "x"}
    )
    assert r.status_code == 422 and "real calendar date" in r.text and "Choose a reason" in r.text
    v.get("/appointments/new")
    r = v.post(
        "/appointments/new",
        {"provider_id": who.pcp_id, "date": "01/05/2026", "reason": "Consultation"},
    )
    assert r.status_code == 422 and "after today" in r.text
    v.get("/records-request")
    r = v.post("/records-request", {"practice": "", "fax_number": "123", "scope": "", "note": ""})
    assert r.status_code == 422 and "10-digit fax number" in r.text
    v.get("/pharmacy")
    r = v.post("/pharmacy", {"pharmacy_id": who.pharmacy_id})
    assert r.status_code == 422 and "already your preferred pharmacy" in r.text
    r = v.get("/billing?from=13/45/2020&to=")
    assert r.status_code == 422 and "Ledger" not in r.text.split("</form>")[-1]
    v.close()
    state = suite.state(episode.id)
    assert state["summary"]["rejected_requests"] == 1
    assert state["summary"]["invalid_submissions"] == 6
    assert set(state["delta"]) == {"logins"}


def test_records_request_and_pharmacy_change_are_recorded(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    people = of_world(suite.world)
    who = people.patients[3]
    new = next(p for p in people.pharmacies if p.id != who.pharmacy_id)
    v = _signed_in(episode, who)
    v.get("/records-request")
    r = v.post(
        "/records-request",
        {
            "practice": "Harbor Family Care",
            "fax_number": "(415) 555-0142",
            "scope": "complete",
            "note": "",
        },
    )
    assert r.status_code == 200 and "submitted" in r.text
    v.get("/pharmacy")
    r = v.post("/pharmacy", {"pharmacy_id": new.id})
    assert r.status_code == 200 and new.name in r.text
    v.close()
    state = suite.state(episode.id)
    portal = state["patient_portal"]
    [request] = portal["records_requests"]
    assert request["fax_number"] == "4155550142" and request["patient_id"] == who.id
    [change] = portal["pharmacy_changes"]
    assert (change["from_pharmacy_id"], change["to_pharmacy_id"]) == (who.pharmacy_id, new.id)
    assert change["to_pharmacy"] == new.name and change["from_pharmacy"] not in ("", new.name)
    assert state["delta"]["pp_patients"]["updated"] == [
        {
            "key": {"id": who.id},
            "changes": {"pharmacy_id": {"before": who.pharmacy_id, "after": new.id}},
        }
    ]


def test_billing_shows_the_insurance_on_file_and_imaging_lists_studies(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    """The plan a Medi-Cal member is on is on the billing page, as a real portal shows it, with
    no copay; a patient's imaging studies are on the Imaging page with their impressions."""
    people = of_world(suite.world)
    plan = next(c for c in people.insurance if c.kind == "medicaid_mco" and not c.termination)
    v = _signed_in(episode, people.patient(plan.patient_id))
    page = v.get("/billing").text
    assert "Insurance on file" in page and plan.plan in page and plan.member_id in page
    assert "Office visit copay</dt><dd>$0.00" in page and "Group number" not in page
    v.close()
    study = people.imaging[0]
    v = _signed_in(episode, people.patient(study.patient_id))
    page = v.get("/imaging").text
    assert study.study in page and study.impression in page and study.reason in page
    v.close()
