"""Payer B in real Chromium: the prior-auth wizard end to end, appeals, and its security."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, expect

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.world import World, mdy

from .envs_support import Visitor, referral_with_portal


def _plan_b(world: World) -> tuple[str, str]:
    plan = next(p for p in world.plans if p.portal == "payer_b")
    return plan.portal_username or "", plan.portal_password or ""


def _choose(page: Page, listbox: str, option: str) -> None:
    page.get_by_role("button", name=listbox).click()
    page.get_by_role("option", name=option, exact=True).click()


def _log_in(page: Page, username: str, password: str) -> None:
    page.get_by_label("User ID").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def test_prior_auth_through_the_wizard(
    suite: EmbeddedSuite, episode: EpisodeInfo, context: BrowserContext, page: Page, tmp_path: Path
) -> None:
    world = suite.world
    ref = referral_with_portal(world, "payer_b")
    cov = next(c for c in world.coverages if c.id == ref.coverage_id)
    plan = world.plan(cov.plan_id)
    patient = world.patient(ref.mrn)
    note = next(d for d in world.documents if d.related_id == ref.id and d.kind == "clinical_note")
    service = ref.services[0]

    page.goto(episode.start_urls["ehr"])
    page.goto(page.url.replace("/worklist", f"/referrals/{ref.id}?tab=documents"))
    with page.expect_download() as download:
        page.get_by_test_id(f"document-row-{note.id}").get_by_role(
            "link", name=re.compile("^Download")
        ).click()
    notes_file = tmp_path / download.value.suggested_filename
    download.value.save_as(notes_file)
    page.get_by_role("tab", name="Coverages").click()
    contact = page.get_by_role("region", name=plan.name, exact=True)
    expect(contact.get_by_text(plan.portal_username or "")).to_have_count(0)  # in the vault
    contact.get_by_role("link", name="credential vault").click()
    entry = page.get_by_role("row").filter(has_text=plan.payer)
    expect(entry.get_by_text(plan.portal_username or "")).to_be_visible()
    with context.expect_page() as opened:
        page.get_by_role("link", name=f"Open {plan.payer} provider portal").click()
    portal = opened.value
    expect(portal.get_by_role("heading", name="Provider log in")).to_be_visible()
    _log_in(portal, plan.portal_username or "", "wrong")
    expect(portal.get_by_role("alert")).to_contain_text("could not log you in")
    _log_in(portal, plan.portal_username or "", plan.portal_password or "")
    portal.get_by_role("navigation", name="Portal menu").get_by_role(
        "link", name="Request authorization"
    ).click()

    # 1. member
    expect(portal.get_by_role("heading", name="Member", exact=True)).to_be_visible()
    _choose(portal, "Health plan", plan.name)
    portal.get_by_label("Member ID").fill(cov.member_id)
    portal.get_by_label("Date of birth").fill(mdy(patient.dob))
    portal.get_by_role("button", name="Save and continue").click()
    # 2. provider: the look-alike NPI fields take different people
    banner = portal.get_by_role("status", name="Member on this request")
    expect(banner).to_contain_text(f"{patient.last}, {patient.first}")
    portal.get_by_label("Requesting provider NPI").fill(ref.referring_npi)
    portal.get_by_label("Servicing provider NPI").fill(ref.provider_npi)
    portal.get_by_role("button", name="Save and continue").click()
    # 3. services, first without the line's laterality: refused with a visible message
    expect(portal.get_by_role("heading", name="Services")).to_be_visible()
    _choose(portal, "Type of request", "Outpatient procedure")
    portal.get_by_label("ICD-10 diagnosis codes").fill(", ".join(d.code for d in ref.diagnoses))
    portal.get_by_label("CPT / HCPCS code, line 1").fill(service.cpt)
    portal.get_by_label("Units, line 1").fill(str(service.quantity))
    portal.get_by_label("Start date").fill(mdy(ref.appointment))
    portal.get_by_label("End date").fill(mdy(ref.appointment))
    portal.get_by_role("button", name="Save and continue").click()
    expect(portal.get_by_role("alert")).to_contain_text("Choose the laterality for line 1")
    expect(portal.get_by_label("CPT / HCPCS code, line 1")).to_have_value(service.cpt)
    assert suite.state(episode.id)["payer_b"]["wizard_steps"] == ["member", "provider"]
    side = {"RT": "Right (RT)", "LT": "Left (LT)", "50": "Bilateral (50)"}
    _choose(portal, "Laterality, line 1", side.get(service.laterality or "", "Not applicable"))
    portal.get_by_role("button", name="Save and continue").click()
    # 4. clinical + attachment
    expect(portal.get_by_role("heading", name="Clinical information")).to_be_visible()
    portal.get_by_label("Clinical summary").fill("Symptoms persist after conservative care.")
    portal.get_by_label("Add clinical documentation").set_input_files(notes_file)
    portal.get_by_role("button", name="Save and continue").click()
    # 5. review: the attestation gate, then submit
    review = portal.get_by_role("table", name="Request review")
    expect(review).to_contain_text(notes_file.name)
    expect(review).to_contain_text(ref.referring_npi)
    portal.get_by_role("button", name="Submit request").click()
    expect(portal.get_by_role("alert")).to_contain_text("Confirm that the information")
    assert suite.state(episode.id)["payer_b"]["pa_submissions"] == []
    portal.get_by_label(re.compile("^I attest")).check()
    portal.get_by_role("button", name="Submit request").click()
    number = portal.get_by_test_id("reference-number").inner_text()
    assert re.fullmatch(r"RQ-[A-Z2-9]{10}", number)

    state = suite.state(episode.id)
    [sub] = state["payer_b"]["pa_submissions"]
    assert sub["confirmation_number"] == number
    assert sub["member_id"] == cov.member_id and sub["member_mrn"] == ref.mrn
    assert sub["plan_id"] == plan.id and sub["coverage_status"] == "active"
    assert sub["provider_npi"] == ref.referring_npi
    assert sub["servicing_npi"] == ref.provider_npi
    assert sub["service_date"] == sub["service_end_date"] == ref.appointment
    assert sub["procedures"] == [
        {"code": service.cpt, "units": service.quantity, "laterality": service.laterality}
    ]
    assert sub["diagnosis_codes"] == [d.code for d in ref.diagnoses]
    [att] = sub["attachments"]
    assert att["document_id"] == note.id and att["filename"] == notes_file.name
    assert state["payer_b"]["wizard_steps"] == ["member", "provider", "services", "clinical"]
    assert [x["success"] for x in state["payer_b"]["logins"]] == [False, True]
    invalid = [e["detail"] for e in state["events"] if e["kind"] == "pa.invalid"]
    assert invalid == [
        {"step": "services", "errors": ["laterality_1"]},
        {"step": "review", "errors": ["attest"]},
    ]
    assert state["payer_a"]["pa_submissions"] == []

    portal.get_by_role("link", name="Authorization inquiry").click()
    _choose(portal, "Search by", "Reference number")
    portal.get_by_label("Member ID or reference number").fill(number)
    portal.get_by_role("button", name="Find authorizations").click()
    expect(portal.get_by_role("table", name="Authorizations found")).to_contain_text(number)
    inquiries = suite.state(episode.id)["payer_b"]["inquiries"]
    assert inquiries == [{"by": "number", "q": number, "results": [number]}]


def test_appeal_with_late_filing_gate(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page, tmp_path: Path
) -> None:
    world = suite.world
    today = world.today.isoformat()
    denial = next(
        d
        for d in world.denials
        if world.plan(d.plan_id).portal == "payer_b" and d.appeal_deadline < today
    )
    proof = tmp_path / "good-cause.txt"
    proof.write_text("The remittance was delivered to the wrong address; see envelope scan.")
    page.goto(episode.start_urls["payer_b"])
    _log_in(page, *_plan_b(world))
    page.get_by_role("link", name="Appeals").click()
    page.get_by_role("link", name="Start an appeal").click()
    page.get_by_label("Claim number").fill(denial.claim_id)
    page.get_by_role("button", name="Find claim").click()
    expect(page.get_by_label("Claim found")).to_contain_text(mdy(denial.appeal_deadline))
    _choose(page, "Reason for appeal", "Medical necessity")
    page.get_by_label("Explanation").fill("The service was necessary; records attached.")
    page.get_by_label("Supporting documents").set_input_files(proof)
    page.get_by_role("button", name="Submit appeal").click()
    expect(page.get_by_role("alert")).to_contain_text("filing limit for this claim ended")
    assert suite.state(episode.id)["payer_b"]["appeals"] == []

    _choose(page, "Reason for appeal", "Late filing with good cause")
    page.get_by_label("Supporting documents").set_input_files(proof)
    page.get_by_role("button", name="Submit appeal").click()
    case = page.get_by_test_id("case-number").inner_text()
    assert re.fullmatch(r"GA-[A-Z2-9]{10}", case)

    [appeal] = suite.state(episode.id)["payer_b"]["appeals"]
    assert appeal["confirmation_number"] == case and appeal["claim_id"] == denial.claim_id
    assert appeal["reason"] == "late-good-cause" and appeal["member_mrn"] == denial.mrn
    assert appeal["filed_by_deadline"] is False
    assert appeal["explanation"] == "The service was necessary; records attached."
    [att] = appeal["attachments"]
    assert att["filename"] == "good-cause.txt" and att["document_id"] is None
    assert att["size"] == proof.stat().st_size


def test_wizard_cannot_be_skipped_or_forged(suite: EmbeddedSuite, episode: EpisodeInfo) -> None:
    v = Visitor(episode.start_urls["payer_b"])
    v.get("/login")
    r = v.post("/login", {"username": _plan_b(suite.world)[0], "password": _plan_b(suite.world)[1]})
    assert r.status_code == 200 and "Provider home" in r.text
    r = v.get("/requests/new/review")  # later steps send you back to the first open one
    assert r.url.path == "/requests/new/member"
    r = v.post("/requests/new/review", {"attest": "yes"})
    assert r.status_code == 400  # the member page's nonce is not for the review form
    v.get("/requests/new/member")
    r = v.post("/requests/new/member", {"plan_id": "SUM-MA"}, nonce=None)
    assert r.status_code == 400
    state = suite.state(episode.id)
    assert state["payer_b"]["pa_submissions"] == [] and state["payer_b"]["wizard_steps"] == []
    assert "pa_submissions" not in state["delta"]
    assert any(e["kind"] == "request.rejected" for e in state["events"])
    v.close()


def test_payer_b_login_and_draft_do_not_carry_into_another_episode(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    cov = next(
        c
        for c in world.coverages
        if world.plan(c.plan_id).portal == "payer_b" and c.status == "active"
    )
    page.goto(episode.start_urls["payer_b"])
    _log_in(page, *_plan_b(world))
    page.get_by_role("link", name="Request authorization").click()
    _choose(page, "Health plan", world.plan(cov.plan_id).name)
    page.get_by_label("Member ID").fill(cov.member_id)
    page.get_by_label("Date of birth").fill(mdy(world.patient(cov.mrn).dob))
    page.get_by_role("button", name="Save and continue").click()
    expect(page.get_by_label("Requesting provider NPI")).to_be_visible()

    other = suite.open_episode()
    try:
        page.goto(other.start_urls["payer_b"])
        expect(page.get_by_role("heading", name="Provider log in")).to_be_visible()
        page.goto(page.url.replace("/login", "/requests/new/provider"))
        expect(page.get_by_role("heading", name="Provider log in")).to_be_visible()
        _log_in(page, *_plan_b(world))
        page.goto(page.url.replace("/home", "/requests/new/provider"))
        expect(page.get_by_label("Member ID")).to_have_value("")  # no draft from the other one
        assert suite.state(other.id)["payer_b"]["wizard_steps"] == []
        assert suite.state(episode.id)["payer_b"]["wizard_steps"] == ["member"]
    finally:
        suite.close_episode(other.id)


def test_education_page_shows_each_plans_rules(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    plans = sorted((p for p in world.plans if p.portal == "payer_b"), key=lambda p: p.name)
    rule = next(r for r in world.payer_rules if r.plan_id == plans[-1].id and r.requires_auth)
    page.goto(episode.start_urls["payer_b"])
    _log_in(page, *_plan_b(world))
    page.get_by_role("link", name="Policies & education").click()
    page.get_by_role("tab", name=plans[-1].name).click()
    table = page.get_by_role("table", name=f"{plans[-1].name} prior authorization list")
    row = table.get_by_role("row").filter(has_text=rule.cpt)
    expect(row).to_contain_text("Required")
    row.get_by_text(rule.policy_id, exact=True).click()
    expect(row.get_by_text(rule.policy_text)).to_be_visible()
    assert suite.state(episode.id)["payer_b"]["policies_viewed"] == [plans[0].id, plans[-1].id]
