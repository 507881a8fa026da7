"""The main flows with data-testid switched off: every control is found by its role, label or
visible text, as an agent reading the page (or a screen reader) would find it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, FilePayload, Page, expect

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.world import mdy

from .conftest import WORLD_SEED
from .envs_support import referral_with_portal


@pytest.fixture(scope="module")
def bare(template_cache: Path) -> Iterator[EmbeddedSuite]:
    running = EmbeddedSuite.start(world_seed=WORLD_SEED, cache_dir=template_cache, testids=False)
    yield running
    running.stop()


@pytest.fixture
def bare_episode(bare: EmbeddedSuite) -> Iterator[EpisodeInfo]:
    info = bare.open_episode()
    yield info
    bare.close_episode(info.id)


def _no_testids(page: Page) -> None:
    assert "data-testid" not in page.content()


def _choose(page: Page, listbox: str, option: str) -> None:
    page.get_by_role("button", name=listbox).click()
    page.get_by_role("option", name=option, exact=True).click()


def test_ehr_referral_and_denial_without_test_ids(
    bare: EmbeddedSuite, bare_episode: EpisodeInfo, page: Page
) -> None:
    rid = bare.world.referrals[-1].id
    page.goto(bare_episode.start_urls["ehr"])
    _no_testids(page)
    pager = page.get_by_role("navigation", name="Worklist pages")
    for n in range(1, 10):
        row = page.get_by_role("row").filter(has_text=rid)
        if row.count():
            break
        pager.get_by_role("link", name=f"Page {n + 1}", exact=True).click()
        # Wait for the next page itself: counting rows before it loads reads the old page.
        expect(page).to_have_title(re.compile(rf"page {n + 1} of \d+"))
    row.get_by_role("link").click()
    expect(page.get_by_role("heading", name=f"Referral {rid}")).to_be_visible()
    _no_testids(page)
    page.get_by_role("tab", name="Communications").click()
    page.get_by_label("Subject").fill("Determination")
    _choose(page, "Category", "Authorization determination")
    page.get_by_label("Note", exact=True).fill("Not required under the plan's policy.")
    page.get_by_role("button", name="Save note").click()
    expect(page.get_by_role("status")).to_have_text("Note saved")
    page.get_by_role("button", name="Clear from worklist").click()
    expect(page.get_by_role("status")).to_contain_text(f"{rid} cleared")

    page.get_by_role("link", name="Denials worklist").click()
    first = page.get_by_role("table", name="Denials worklist").get_by_role("row").nth(1)
    claim = first.get_by_role("link").inner_text()
    first.get_by_role("link").click()
    page.get_by_role("link", name="Patient inquiry").click()
    expect(page.get_by_role("table", name="Claims on this account")).to_contain_text(claim)
    _no_testids(page)
    page.get_by_role("link", name=f"Back to claim {claim}").click()
    _choose(page, "Disposition", "Write off")
    page.get_by_label("Triage note").fill("Below the small-balance threshold; write off.")
    page.get_by_role("button", name="Submit triage").click()
    expect(page.get_by_role("status")).to_contain_text(f"{claim} triaged")

    state = bare.state(bare_episode.id)
    assert state["ehr"]["cleared_referrals"] == [rid]
    [triaged] = state["ehr"]["denial_dispositions"]
    assert triaged["claim_id"] == claim and triaged["disposition"] == "write-off"
    assert state["ehr"]["patient_inquiries"][0]["claim_id"] == claim


def test_payer_portals_without_test_ids(
    bare: EmbeddedSuite,
    bare_episode: EpisodeInfo,
    context: BrowserContext,
    page: Page,
    tmp_path: Path,
) -> None:
    world = bare.world
    ref = referral_with_portal(world, "payer_a")
    cov = next(c for c in world.coverages if c.id == ref.coverage_id)
    plan = world.plan(cov.plan_id)
    doc = next(d for d in world.documents if d.related_id == ref.id and d.status == "final")
    page.goto(bare_episode.start_urls["ehr"])
    page.goto(page.url.replace("/worklist", f"/referrals/{ref.id}?tab=documents"))
    with page.expect_download() as download:
        page.get_by_role("link", name=f"Download {doc.title} {mdy(doc.date)}", exact=True).click()
    letter = tmp_path / download.value.suggested_filename
    download.value.save_as(letter)
    page.get_by_role("tab", name="Coverages").click()
    region = page.get_by_role("region", name=plan.name, exact=True)
    with context.expect_page() as opened:
        region.get_by_role("link", name=f"Open {plan.payer} provider portal").click()
    a = opened.value
    a.get_by_label("Username").fill(plan.portal_username or "")
    a.get_by_label("Password").fill(plan.portal_password or "")
    a.get_by_role("button", name="Sign in").click()
    a.get_by_role("link", name="New prior authorization").click()
    _no_testids(a)
    _choose(a, "Request type", "Outpatient procedure")
    a.get_by_label("Member ID").fill(cov.member_id)
    a.get_by_label("Member date of birth").fill(mdy(world.patient(ref.mrn).dob))
    a.get_by_label("Provider NPI").fill(ref.provider_npi)
    a.get_by_label("Diagnosis codes (ICD-10)").fill(", ".join(d.code for d in ref.diagnoses))
    a.get_by_label("CPT code, line 1").fill(ref.services[0].cpt)
    a.get_by_label("Units, line 1").fill(str(ref.services[0].quantity))
    a.get_by_label("Date of service").fill(mdy(ref.appointment))
    a.get_by_label("Clinical notes").fill("Failed conservative management; letter attached.")
    a.get_by_label("Attachments").set_input_files(letter)
    a.get_by_role("button", name="Submit request").click()
    expect(a.get_by_role("heading", name="Request received")).to_be_visible()
    found = re.search(r"PA-[A-Z2-9]{10}", a.get_by_role("status").first.inner_text())
    assert found, "the confirmation number is readable from the status message"

    # Payer B: the wizard, end to end
    ref_b = referral_with_portal(world, "payer_b")
    cov_b = next(c for c in world.coverages if c.id == ref_b.coverage_id)
    plan_b = world.plan(cov_b.plan_id)
    service = ref_b.services[0]
    day = mdy(max(date.fromisoformat(ref_b.appointment), world.today + timedelta(7)).isoformat())
    b = context.new_page()
    b.goto(bare_episode.start_urls["payer_b"])
    b.get_by_label("User ID").fill(plan_b.portal_username or "")
    b.get_by_label("Password").fill(plan_b.portal_password or "")
    b.get_by_role("button", name="Log in").click()
    b.get_by_role("link", name="Request authorization").first.click()
    _choose(b, "Health plan", plan_b.name)
    b.get_by_label("Member ID").fill(cov_b.member_id)
    b.get_by_label("Date of birth").fill(mdy(world.patient(ref_b.mrn).dob))
    b.get_by_role("button", name="Save and continue").click()
    b.get_by_label("Requesting provider NPI").fill(ref_b.referring_npi)
    b.get_by_label("Servicing provider NPI").fill(ref_b.provider_npi)
    b.get_by_role("button", name="Save and continue").click()
    _choose(b, "Type of request", "Outpatient procedure")
    b.get_by_label("ICD-10 diagnosis codes").fill(", ".join(d.code for d in ref_b.diagnoses))
    b.get_by_label("CPT / HCPCS code, line 1").fill(service.cpt)
    b.get_by_label("Units, line 1").fill(str(service.quantity))
    side = {"RT": "Right (RT)", "LT": "Left (LT)", "50": "Bilateral (50)"}
    _choose(b, "Laterality, line 1", side.get(service.laterality or "", "Not applicable"))
    b.get_by_label("Start date").fill(day)
    b.get_by_label("End date").fill(day)
    b.get_by_role("button", name="Save and continue").click()
    b.get_by_label("Clinical summary").fill("Symptoms persist after conservative care.")
    b.get_by_label("Add clinical documentation").set_input_files(letter)
    b.get_by_role("button", name="Save and continue").click()
    _no_testids(b)
    b.get_by_label(re.compile("^I attest")).check()
    b.get_by_role("button", name="Submit request").click()
    found_b = re.search(r"RQ-[A-Z2-9]{10}", b.get_by_role("status").first.inner_text())
    assert found_b

    state = bare.state(bare_episode.id)
    [sub_a] = state["payer_a"]["pa_submissions"]
    [sub_b] = state["payer_b"]["pa_submissions"]
    assert sub_a["confirmation_number"] == found.group(0)
    assert sub_a["attachments"][0]["document_id"] == doc.id
    assert sub_b["confirmation_number"] == found_b.group(0)
    assert sub_b["member_mrn"] == ref_b.mrn and sub_b["servicing_npi"] == ref_b.provider_npi


def test_fax_from_a_dme_order_without_test_ids(
    bare: EmbeddedSuite, bare_episode: EpisodeInfo, context: BrowserContext, page: Page
) -> None:
    order = bare.world.dme_orders[0]
    doc = next(d for d in bare.world.documents if d.related_id == order.id)
    page.goto(bare_episode.start_urls["ehr"])
    page.get_by_role("link", name="DME orders").click()
    page.get_by_role("row").filter(has_text=order.id).get_by_role("link").click()
    page.get_by_role("tab", name="Chart documents").click()
    with context.expect_page() as opened:
        page.get_by_role("link", name=f"Fax documents to {order.supplier}").click()
    fax = opened.value
    expect(fax.get_by_label("Recipient")).to_have_value(order.supplier)
    fax.get_by_label(f"{doc.title} — {mdy(doc.date)}").first.check()
    fax.get_by_label("Upload files from your computer").set_input_files(
        FilePayload(name="cover.txt", mimeType="text/plain", buffer=b"Order attached.")
    )
    fax.get_by_role("button", name="Send fax").click()
    expect(fax.get_by_role("heading", name="Fax sent")).to_be_visible()
    _no_testids(fax)
    fax_id = re.search(r"FX-[A-Z2-9]{8}", fax.get_by_role("status").inner_text())
    assert fax_id
    [sent] = bare.state(bare_episode.id)["fax"]["transmissions"]
    assert sent["id"] == fax_id.group(0) and sent["document_ids"] == [doc.id]
    assert [u["filename"] for u in sent["uploads"]] == ["cover.txt"]
