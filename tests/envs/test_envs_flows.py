"""End-to-end flows in real Chromium, asserted on the state document read over the grading channel."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, expect

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.world import mdy

from .envs_support import referral_with_portal


def _open_referral(page: Page, rid: str) -> None:
    """From the worklist, page through until the referral's row shows, then open it.

    Each Next waits for the following page's indicator: counting rows is not auto-waited, so
    without it a slow machine counts the old page's rows and pages past the referral.
    """
    for shown in range(1, 11):
        expect(page.get_by_text(re.compile(rf"^Page {shown} of \d+$"))).to_be_visible()
        row = page.get_by_role("row").filter(has_text=rid)
        if row.count():
            row.get_by_role("link").click()
            expect(page.get_by_role("heading", name=f"Referral {rid}")).to_be_visible()
            return
        page.get_by_role("link", name="Next").click()
    raise AssertionError(f"{rid} not on the worklist")


def _add_note(page: Page, subject: str, category: str, body: str) -> None:
    page.get_by_role("tab", name="Communications").click()
    page.get_by_label("Subject").fill(subject)
    page.get_by_role("button", name="Category").click()
    page.get_by_role("option", name=category, exact=True).click()
    page.get_by_label("Note", exact=True).fill(body)
    page.get_by_role("button", name="Save note").click()
    expect(page.get_by_role("status")).to_have_text("Note saved")


def test_worklist_note_and_clear(suite: EmbeddedSuite, episode: EpisodeInfo, page: Page) -> None:
    rid = suite.world.referrals[-1].id  # late in the list: reached through pagination
    page.goto(episode.start_urls["ehr"])
    expect(
        page.get_by_role("heading", name="Prior authorization referral worklist")
    ).to_be_visible()
    _open_referral(page, rid)
    clear = page.get_by_role("button", name="Clear from worklist")
    expect(clear).to_be_disabled()

    _add_note(page, "Follow up with payer", "Authorization follow-up", "Called payer, pending.")
    expect(clear).to_be_disabled()  # a look-alike category does not unlock the gate
    _add_note(
        page,
        "Prior auth determination - not required",
        "Authorization determination",
        "Plan policy does not require prior authorization for these services.",
    )
    expect(clear).to_be_enabled()
    clear.click()
    expect(page).to_have_url(re.compile(r"/worklist\?cleared="))
    expect(page.get_by_role("status")).to_contain_text(f"{rid} cleared")
    expect(page.get_by_role("row").filter(has_text=rid)).to_have_count(0)

    state = suite.state(episode.id)
    notes = state["ehr"]["notes"]
    assert [n["category"] for n in notes] == ["auth-follow-up", "auth-determination"]
    assert notes[1]["subject"] == "Prior auth determination - not required"
    assert all(n["subject_id"] == rid for n in notes)
    assert state["ehr"]["cleared_referrals"] == [rid]
    assert state["delta"]["referrals"]["updated"] == [
        {"key": {"id": rid}, "changes": {"worklist_status": {"before": "open", "after": "cleared"}}}
    ]
    assert {"referral_id": rid, "tab": "communications"} in state["ehr"]["tabs_opened"]
    kinds = [e["kind"] for e in state["events"] if e["accepted"]]
    assert kinds.index("worklist.clear") > kinds.index("note.add")
    assert state["summary"]["rejected_requests"] == 0 and state["summary"]["not_found"] == 0


def test_custom_dropdown_ignores_scripted_events(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    rid = suite.world.referrals[0].id
    page.goto(episode.start_urls["ehr"])
    page.goto(page.url.replace("/worklist", f"/referrals/{rid}?tab=communications"))
    button = page.get_by_role("button", name="Category")
    button.evaluate("b => b.click()")
    expect(page.get_by_role("listbox")).to_be_hidden()
    page.evaluate(
        "document.getElementById('category-option-auth-determination')"
        ".dispatchEvent(new MouseEvent('click', {bubbles: true}))"
    )
    assert page.locator("input[name=category]").input_value() == ""
    # real keyboard input works: open with ArrowDown, move, choose with Enter
    button.focus()
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("listbox")).to_be_visible()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.get_by_role("listbox")).to_be_hidden()
    assert page.locator("input[name=category]").input_value() == "auth-determination"
    expect(button).to_contain_text("Authorization determination")


def test_payer_a_login_and_prior_auth_submission(
    suite: EmbeddedSuite, episode: EpisodeInfo, context: BrowserContext, page: Page, tmp_path: Path
) -> None:
    world = suite.world
    ref = referral_with_portal(world, "payer_a")
    cov = next(c for c in world.coverages if c.id == ref.coverage_id)
    plan = world.plan(cov.plan_id)
    patient = world.patient(ref.mrn)
    lmn = next(
        d
        for d in world.documents
        if d.related_id == ref.id and d.kind == "lmn" and d.status == "final" and d.signed
    )

    page.goto(episode.start_urls["ehr"])
    page.goto(page.url.replace("/worklist", f"/referrals/{ref.id}?tab=documents"))
    row = page.get_by_test_id(f"document-row-{lmn.id}")
    with page.expect_download() as download:
        row.get_by_role("link", name=re.compile("^Download")).click()
    letter = tmp_path / download.value.suggested_filename
    download.value.save_as(letter)

    page.get_by_role("tab", name="Coverages").click()
    contact = page.get_by_role("region", name=plan.name, exact=True)
    expect(contact.get_by_text(plan.portal_password or "")).to_have_count(0)  # not on the chart
    contact.get_by_role("link", name="credential vault").click()
    expect(page.get_by_text(plan.portal_password or "")).to_have_count(0)  # until revealed
    page.get_by_role("button", name=f"Reveal password for {plan.payer}").click()
    revealed = page.get_by_role("status", name=f"Password for {plan.payer}")
    expect(revealed).to_have_text(plan.portal_password or "")
    with context.expect_page() as opened:
        page.get_by_role("link", name=f"Open {plan.payer} provider portal").click()
    portal = opened.value
    expect(portal.get_by_role("heading", name="Provider sign in")).to_be_visible()

    portal.get_by_label("Username").fill(plan.portal_username or "")
    portal.get_by_label("Password").fill("not-the-password")
    portal.get_by_role("button", name="Sign in").click()
    expect(portal.get_by_role("alert")).to_have_text("The username or password is incorrect.")
    portal.get_by_label("Username").fill(plan.portal_username or "")
    portal.get_by_label("Password").fill(plan.portal_password or "")
    portal.get_by_role("button", name="Sign in").click()
    portal.get_by_role("link", name="New prior authorization").click()

    portal.get_by_role("button", name="Request type").click()
    portal.get_by_role("option", name="Outpatient procedure").click()
    portal.get_by_label("Member ID").fill(cov.member_id)
    portal.get_by_label("Member date of birth").fill(mdy(patient.dob))
    portal.get_by_label("Provider NPI").fill(ref.provider_npi)
    portal.get_by_role("button", name="Look up member and provider").click()
    expect(portal.get_by_role("status").first).to_contain_text(f"{patient.last}, {patient.first}")
    portal.get_by_label("Diagnosis codes (ICD-10)").fill(", ".join(d.code for d in ref.diagnoses))
    portal.get_by_label("CPT code, line 1").fill(ref.services[0].cpt)
    portal.get_by_label("Units, line 1").fill(str(ref.services[0].quantity))
    appointment = mdy(ref.appointment)
    m, d, y = appointment.split("/")
    portal.get_by_label("Date of service").fill(f"{int(m)}/{int(d)}/{y[2:]}")  # not MM/DD/YYYY
    portal.get_by_label("Clinical notes").fill("Failed conservative management; letter attached.")
    portal.get_by_label("Attachments").set_input_files(letter)
    portal.get_by_role("button", name="Submit request").click()

    expect(portal.get_by_role("alert")).to_contain_text("Enter the date as MM/DD/YYYY.")
    date_field = portal.get_by_label("Date of service")
    expect(date_field).to_have_attribute("aria-invalid", "true")
    expect(portal.get_by_label("Member ID")).to_have_value(cov.member_id)  # input kept
    before = suite.state(episode.id)
    assert before["payer_a"]["pa_submissions"] == []
    assert "pa_submissions" not in before["delta"]

    date_field.fill(appointment)
    portal.get_by_label("Attachments").set_input_files(letter)  # browsers drop files on re-render
    portal.get_by_role("button", name="Submit request").click()
    number = portal.get_by_test_id("confirmation-number").inner_text()
    assert re.fullmatch(r"PA-[A-Z2-9]{10}", number)

    state = suite.state(episode.id)
    [sub] = state["payer_a"]["pa_submissions"]
    assert sub["confirmation_number"] == number
    assert sub["member_id"] == cov.member_id and sub["member_mrn"] == ref.mrn
    assert sub["member_dob"] == patient.dob
    assert sub["service_date"] == ref.appointment
    assert sub["procedures"] == [{"code": ref.services[0].cpt, "units": ref.services[0].quantity}]
    assert sub["diagnosis_codes"] == [d.code for d in ref.diagnoses]
    assert sub["request_type"] == "outpatient" and sub["coverage_status"] == "active"
    [att] = sub["attachments"]
    assert att["document_id"] == lmn.id and att["filename"] == letter.name
    assert [x["success"] for x in state["payer_a"]["logins"]] == [False, True]
    assert state["payer_a"]["member_lookups"][0]["found"] is True
    assert lmn.id in state["ehr"]["documents_downloaded"]
    invalid = [e for e in state["events"] if e["kind"] == "pa.invalid"]
    assert invalid and invalid[0]["detail"]["errors"] == ["service_date"]


def test_fax_sent_with_the_right_attachment(
    suite: EmbeddedSuite, episode: EpisodeInfo, context: BrowserContext, page: Page
) -> None:
    order = suite.world.dme_orders[0]
    doc = next(d for d in suite.world.documents if d.related_id == order.id)
    # reach the patient's chart through any referral-less route: the fax portal's own lookup
    page.goto(episode.start_urls["fax"])
    page.get_by_label("Patient MRN").fill(order.mrn)
    page.get_by_role("button", name="Load chart documents").click()
    page.get_by_label("Recipient").fill(order.supplier)
    page.get_by_label("Fax number").fill("(415) 555-01")
    page.get_by_label(f"{doc.title} — {mdy(doc.date)}").first.check()
    page.get_by_role("button", name="Send fax").click()
    expect(page.get_by_role("alert")).to_contain_text("Enter a 10-digit fax number")
    assert suite.state(episode.id)["fax"]["transmissions"] == []

    page.get_by_label("Fax number").fill(order.supplier_fax)
    page.get_by_label("Cover note").fill(f"Documents for order {order.id}.")
    checkbox = page.locator(f"#doc-{doc.id}")
    expect(checkbox).to_be_checked()  # the choice survived the validation round trip
    page.get_by_role("button", name="Send fax").click()
    fax_id = page.get_by_test_id("transmission-id").inner_text()
    assert re.fullmatch(r"FX-[A-Z2-9]{8}", fax_id)

    [sent] = suite.state(episode.id)["fax"]["transmissions"]
    assert sent["id"] == fax_id
    assert sent["document_ids"] == [doc.id]
    assert sent["fax_number"] == re.sub(r"\D", "", order.supplier_fax)
    assert sent["recipient"] == order.supplier and sent["patient_mrn"] == order.mrn
    assert sent["attachments"][0]["mrn"] == order.mrn


def test_ehr_links_bind_the_fax_portal_to_the_same_episode(
    suite: EmbeddedSuite, episode: EpisodeInfo, context: BrowserContext, page: Page
) -> None:
    ref = suite.world.referrals[0]
    page.goto(episode.start_urls["ehr"])
    page.goto(page.url.replace("/worklist", f"/referrals/{ref.id}?tab=documents"))
    with context.expect_page() as opened:
        page.get_by_role("link", name="Send documents by fax").click()
    fax = opened.value
    expect(fax.get_by_label("Patient MRN")).to_have_value(ref.mrn)
    expect(fax.get_by_role("table", name="Chart documents")).to_be_visible()
    kinds = [(e["system"], e["kind"]) for e in suite.state(episode.id)["events"]]
    assert ("fax", "patient.lookup") in kinds


def test_script_writes_to_storage_and_cookies_change_nothing(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    rid = suite.world.referrals[0].id
    page.goto(episode.start_urls["ehr"])
    before = suite.state(episode.id)
    page.evaluate(
        """rid => {
            localStorage.setItem('worklist', JSON.stringify({cleared: [rid]}));
            localStorage.setItem('notes', JSON.stringify([{category: 'auth-determination'}]));
            sessionStorage.setItem('submitted', 'true');
            document.cookie = 'es_ehr=forged; path=/';
            document.cookie = 'cleared=' + rid + '; path=/';
        }""",
        rid,
    )
    after = suite.state(episode.id)
    for key in ("ehr", "payer_a", "fax", "delta"):
        assert after[key] == before[key], key
    assert after["events"] == before["events"], "no request, no event"
    page.reload()  # the HttpOnly session cookie survived the forged write
    expect(
        page.get_by_role("heading", name="Prior authorization referral worklist")
    ).to_be_visible()
    assert suite.state(episode.id)["delta"] == {}


def test_a_login_does_not_carry_into_another_episode(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page, context: BrowserContext
) -> None:
    plan = next(p for p in suite.world.plans if p.portal == "payer_a")
    page.goto(episode.start_urls["payer_a"])
    page.get_by_label("Username").fill(plan.portal_username or "")
    page.get_by_label("Password").fill(plan.portal_password or "")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Welcome")).to_be_visible()

    other = suite.open_episode()
    try:
        page.goto(other.start_urls["payer_a"])  # same browser, now bound to another episode
        expect(page.get_by_role("heading", name="Provider sign in")).to_be_visible()
        page.goto(page.url.replace("/login", "/prior-auth/new"))
        expect(page.get_by_role("heading", name="Provider sign in")).to_be_visible()
        assert suite.state(other.id)["payer_a"]["logins"] == []
        assert len(suite.state(episode.id)["payer_a"]["logins"]) == 1
    finally:
        suite.close_episode(other.id)


def test_denial_triage_with_disposition(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    page.goto(episode.start_urls["ehr"])
    page.get_by_role("link", name="Denials worklist").click()
    first_row = page.get_by_role("table", name="Denials worklist").get_by_role("row").nth(1)
    claim = first_row.get_by_role("link").inner_text()
    first_row.get_by_role("link").click()
    expect(page.get_by_role("heading", name=f"Claim {claim}")).to_be_visible()
    page.get_by_role("tab", name="Remittance").click()
    expect(page.get_by_label("Remittance advice")).to_contain_text("ADJUSTMENT REASONS")

    page.get_by_label("Triage note").fill("Too short")
    page.get_by_role("button", name="Submit triage").click()
    expect(page.get_by_role("alert")).to_contain_text("Choose a disposition.")
    assert suite.state(episode.id)["ehr"]["denial_dispositions"] == []

    page.get_by_role("button", name="Disposition").click()
    page.get_by_role("option", name="Appeal", exact=True).click()
    page.get_by_label("Triage note").fill("Auth was on file; appeal with the approval letter.")
    page.get_by_role("button", name="Submit triage").click()
    expect(page.get_by_role("status")).to_contain_text(f"{claim} triaged")
    expect(page.get_by_role("link", name=claim)).to_have_count(0)

    state = suite.state(episode.id)
    assert state["ehr"]["denial_dispositions"] == [
        {
            "claim_id": claim,
            "disposition": "appeal",
            "triage_notes": ["Auth was on file; appeal with the approval letter."],
        }
    ]
    assert {"claim_id": claim, "tab": "remittance"} in state["ehr"]["denial_tabs_opened"]
    changes = state["delta"]["denials"]["updated"][0]["changes"]
    assert changes["disposition"] == {"before": None, "after": "appeal"}
    invalid = [e for e in state["events"] if e["kind"] == "triage.invalid"]
    assert invalid[0]["detail"]["errors"] == ["disposition", "triage_note"]
