"""EHR appeal letters, DME orders and auth records; Payer A eligibility, claims and appeals."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, expect

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.world import mdy

from .envs_support import referral_with_portal


def _choose(page: Page, listbox: str, option: str) -> None:
    page.get_by_role("button", name=listbox).click()
    page.get_by_role("option", name=option, exact=True).click()


def _sign_in_a(page: Page, username: str, password: str) -> None:
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Sign in").click()


def test_appeal_letter_is_faxed_and_uploaded_to_payer_a(
    suite: EmbeddedSuite, episode: EpisodeInfo, context: BrowserContext, page: Page, tmp_path: Path
) -> None:
    world = suite.world
    today = world.today.isoformat()
    denial = next(
        d
        for d in world.denials
        if world.plan(d.plan_id).portal == "payer_a"
        and world.plan(d.plan_id).appeal_channel == "portal"
        and d.appeal_deadline >= today
    )
    plan = world.plan(denial.plan_id)
    cov = next(c for c in world.coverages if c.id == denial.coverage_id)
    patient = world.patient(denial.mrn)

    # EHR: build the letter, with one refusal on the way
    page.goto(episode.start_urls["ehr"])
    page.goto(page.url.replace("/worklist", f"/denials/{denial.claim_id}"))
    page.get_by_role("tab", name="Appeal letter").click()
    expect(page.get_by_label("Addressed to")).to_have_value(f"{plan.payer} Appeals Department")
    page.get_by_label("Argument").fill("Too short.")
    page.get_by_role("button", name="Save letter to chart").click()
    summary = page.get_by_role("alert")
    expect(summary).to_contain_text("Choose the basis for the appeal.")
    expect(summary).to_contain_text("Choose at least one claim line to appeal.")
    assert suite.state(episode.id)["ehr"]["documents_created"] == []
    _choose(page, "Basis for appeal", "Service was medically necessary")
    page.get_by_label(re.compile(r"^Line 1:")).check()
    argument = "The records show failed conservative care; the service met the plan's criteria."
    page.get_by_label("Argument").fill(argument)
    page.get_by_role("button", name="Save letter to chart").click()
    expect(page.get_by_role("status")).to_have_text("Appeal letter saved to the chart")
    title = f"Appeal letter — claim {denial.claim_id}"
    expect(page.get_by_role("heading", name=title)).to_be_visible()
    expect(page.get_by_label("Document text")).to_contain_text(argument)
    with page.expect_download() as download:
        page.get_by_role("link", name="Download").click()
    letter = tmp_path / download.value.suggested_filename
    download.value.save_as(letter)

    state = suite.state(episode.id)
    [doc] = state["ehr"]["documents_created"]
    assert doc["kind"] == "appeal_letter" and doc["related_id"] == denial.claim_id
    assert doc["mrn"] == denial.mrn and doc["status"] == "final" and doc["signed"] is True
    assert argument in doc["text"] and cov.member_id in doc["text"]
    assert "Basis for appeal: Service was medically necessary." in doc["text"]

    # Fax portal: the new letter is in the chart's documents
    with context.expect_page() as opened:
        page.get_by_role("link", name="Send by fax").click()
    fax = opened.value
    fax.get_by_label("Recipient").fill(f"{plan.payer} Appeals")
    fax.get_by_label("Fax number").fill(plan.fax)
    fax.get_by_label(f"{title} — {mdy(doc['date'])}").check()
    fax.get_by_role("button", name="Send fax").click()
    fax_id = fax.get_by_test_id("transmission-id").inner_text()

    # Payer A: find the claim, appeal it, upload the letter
    portal = context.new_page()
    portal.goto(episode.start_urls["payer_a"])
    _sign_in_a(portal, plan.portal_username or "", plan.portal_password or "")
    portal.get_by_role("link", name="Claims", exact=True).click()
    portal.get_by_label("Claim number or member ID").fill(cov.member_id)
    portal.get_by_role("button", name="Search claims").click()
    portal.get_by_role("link", name=denial.claim_id).click()
    expect(portal.get_by_test_id("claim-appeal-deadline")).to_have_text(mdy(denial.appeal_deadline))
    portal.get_by_role("link", name="Appeal this claim").click()
    expect(portal.get_by_label("Claim number")).to_have_value(denial.claim_id)
    portal.get_by_label("Member ID").fill(cov.member_id)
    portal.get_by_label("Member date of birth").fill(mdy(patient.dob))
    _choose(portal, "Appeal type", "Level 1 provider appeal")
    portal.get_by_label("Reason for appeal").fill("Medically necessary; see the attached letter.")
    portal.get_by_label("Contact name").fill("J. Rivera")
    portal.get_by_label("Contact phone").fill("(831) 555-0100")
    portal.get_by_role("button", name="Submit appeal").click()
    expect(portal.get_by_role("alert")).to_contain_text("Attach the supporting documents")
    portal.get_by_label("Attachments").set_input_files(letter)
    portal.get_by_role("button", name="Submit appeal").click()
    number = portal.get_by_test_id("appeal-number").inner_text()
    assert re.fullmatch(r"AP-[A-Z2-9]{10}", number)

    state = suite.state(episode.id)
    [sent] = state["fax"]["transmissions"]
    assert sent["id"] == fax_id and sent["document_ids"] == [doc["id"]]
    assert sent["attachments"][0]["kind"] == "appeal_letter"
    [appeal] = state["payer_a"]["appeals"]
    assert appeal["confirmation_number"] == number and appeal["claim_id"] == denial.claim_id
    assert appeal["appeal_type"] == "level-1" and appeal["contact_phone"] == "8315550100"
    assert appeal["filed_by_deadline"] is True and appeal["member_mrn"] == denial.mrn
    [att] = appeal["attachments"]
    assert att["document_id"] == doc["id"] and att["filename"] == letter.name
    assert state["payer_a"]["claims_viewed"] == [denial.claim_id]
    assert denial.claim_id in state["payer_a"]["claim_searches"][0]["results"]
    assert {"claim_id": denial.claim_id, "tab": "appeal"} in state["ehr"]["denial_tabs_opened"]
    kinds = [e["kind"] for e in state["events"] if not e["accepted"]]
    assert kinds.count("appeal_letter.invalid") == 1 and kinds.count("appeal.invalid") == 1


def test_dme_order_reviewed_noted_and_faxed_to_the_supplier(
    suite: EmbeddedSuite, episode: EpisodeInfo, context: BrowserContext, page: Page
) -> None:
    world = suite.world
    order = world.dme_orders[0]
    docs = [d for d in world.documents if d.related_id == order.id]
    current = {d.kind: d for d in sorted(docs, key=lambda d: d.date)}  # newest of each kind
    page.goto(episode.start_urls["ehr"])
    page.get_by_role("link", name="DME orders").click()
    page.get_by_role("table", name="DME orders").get_by_role("link", name=order.id).click()
    expect(page.get_by_role("heading", name=f"DME order {order.id}")).to_be_visible()
    expect(page.get_by_test_id("supplier-fax")).to_have_text(order.supplier_fax)

    page.get_by_role("tab", name="Notes").click()
    page.get_by_label("Subject").fill("Paperwork to supplier")
    _choose(page, "Category", "General")
    page.get_by_label("Note", exact=True).fill("Faxing the order's documents to the supplier.")
    page.get_by_role("button", name="Save note").click()
    expect(page.get_by_role("status")).to_have_text("Note saved")

    page.get_by_role("tab", name="Chart documents").click()
    with context.expect_page() as opened:
        page.get_by_role("link", name=f"Fax documents to {order.supplier}").click()
    fax = opened.value
    expect(fax.get_by_label("Recipient")).to_have_value(order.supplier)
    expect(fax.get_by_label("Fax number")).to_have_value(order.supplier_fax)
    for d in current.values():
        fax.locator(f"#doc-{d.id}").check()
    fax.get_by_role("button", name="Send fax").click()
    expect(fax.get_by_test_id("transmission-id")).to_have_text(re.compile(r"FX-[A-Z2-9]{8}"))

    state = suite.state(episode.id)
    assert state["ehr"]["dme_orders_viewed"] == [order.id]
    assert {"order_id": order.id, "tab": "documents"} in state["ehr"]["dme_tabs_opened"]
    [note] = state["ehr"]["notes"]
    assert note["subject_type"] == "dme_order" and note["subject_id"] == order.id
    [sent] = state["fax"]["transmissions"]
    assert sent["recipient"] == order.supplier and sent["patient_mrn"] == order.mrn
    assert sent["fax_number"] == re.sub(r"\D", "", order.supplier_fax)
    assert sorted(sent["document_ids"]) == sorted(d.id for d in current.values())


def test_auth_number_recorded_on_a_referral(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    ref = suite.world.referrals[1]
    page.goto(episode.start_urls["ehr"])
    page.goto(page.url.replace("/worklist", f"/referrals/{ref.id}"))
    page.get_by_role("tab", name="Authorizations").click()
    _choose(page, "Authorization status", "Approved")
    page.get_by_label("Authorization / reference number").fill("bvh-4410927")
    page.get_by_label("Valid from").fill("03/02/2026")
    page.get_by_label("Valid through").fill("2026-06-30")
    page.get_by_role("button", name="Save authorization").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "Valid through: Enter the date as MM/DD/YYYY."
    )
    expect(page.get_by_label("Valid through")).to_have_attribute("aria-invalid", "true")
    assert suite.state(episode.id)["ehr"]["auth_records"] == []

    page.get_by_label("Valid through").fill("06/30/2026")
    page.get_by_role("button", name="Save authorization").click()
    expect(page.get_by_role("status")).to_have_text("Authorization recorded")
    expect(page.get_by_test_id("auth-status")).to_have_text("Approved · BVH-4410927")

    state = suite.state(episode.id)
    assert state["ehr"]["auth_records"] == [
        {
            "referral_id": ref.id,
            "auth_status": "approved",
            "auth_number": "BVH-4410927",
            "valid_from": "2026-03-02",
            "valid_through": "2026-06-30",
            "author": "J. Rivera",
            "created_at": suite.world.clock,
        }
    ]
    assert state["delta"]["referrals"]["updated"] == [
        {
            "key": {"id": ref.id},
            "changes": {
                "auth_number": {"before": None, "after": "BVH-4410927"},
                "auth_status": {"before": None, "after": "approved"},
            },
        }
    ]


def test_eligibility_check_on_payer_a(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    ref = referral_with_portal(world, "payer_a")
    cov = next(c for c in world.coverages if c.id == ref.coverage_id)
    plan = world.plan(cov.plan_id)
    dob = mdy(world.patient(cov.mrn).dob)
    page.goto(episode.start_urls["payer_a"])
    _sign_in_a(page, plan.portal_username or "", plan.portal_password or "")
    page.get_by_role("link", name="Eligibility", exact=True).click()
    page.get_by_label("Member ID").fill(cov.member_id)
    page.get_by_label("Member date of birth").fill(dob)
    page.get_by_label("Date of service").fill("13/01/2026")
    page.get_by_role("button", name="Check eligibility").click()
    expect(page.get_by_role("alert")).to_contain_text("Enter a real calendar date")
    page.get_by_label("Date of service").fill(mdy(ref.appointment))
    page.get_by_role("button", name="Check eligibility").click()
    expect(page.get_by_test_id("coverage-status")).to_have_text("Active")
    page.get_by_label("Date of service").fill(mdy(cov.effective).replace(cov.effective[:4], "1990"))
    page.get_by_role("button", name="Check eligibility").click()
    expect(page.get_by_test_id("coverage-status")).to_have_text("Not yet effective")

    checks = suite.state(episode.id)["payer_a"]["eligibility_checks"]
    assert [c["status"] for c in checks] == ["active", "not_effective"]
    assert checks[0] == {
        "member_id": cov.member_id,
        "dob": world.patient(cov.mrn).dob,
        "service_date": ref.appointment,
        "found": True,
        "coverage_id": cov.id,
        "plan_id": plan.id,
        "status": "active",
    }
