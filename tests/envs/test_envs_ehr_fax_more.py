"""In real Chromium: the EHR's patient inquiry, fax uploads from disk, vanishing toasts and
accessible pagination, each asserted on the state document where it writes or records."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

from playwright.sync_api import Page, expect

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.world import mdy


def _ehr(page: Page, episode: EpisodeInfo, path: str) -> None:
    page.goto(episode.start_urls["ehr"])
    page.goto(page.url.replace("/worklist", path))


def test_patient_inquiry_from_a_denial(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    twice = {m for m, n in Counter(d.mrn for d in world.denials).items() if n > 1}
    denial = next(d for d in world.denials if d.mrn in twice)
    other = next(d for d in world.denials if d.mrn == denial.mrn and d is not denial)
    patient = world.patient(denial.mrn)
    coverages = [c for c in world.coverages if c.mrn == denial.mrn]

    _ehr(page, episode, f"/denials/{denial.claim_id}")
    page.get_by_role("link", name="Patient inquiry").click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        f"Patient inquiry: {patient.last}, {patient.first}"
    )
    demographics = page.get_by_role("table", name="Demographics")
    expect(demographics).to_contain_text(mdy(patient.dob))
    expect(demographics).to_contain_text(patient.address)
    covered = page.get_by_role("table", name="Coverages on file")
    expect(covered.get_by_role("row")).to_have_count(1 + len(coverages))
    for c in coverages:
        expect(covered.get_by_role("row").filter(has_text=c.member_id)).to_contain_text(
            c.status.capitalize()
        )
    claims = page.get_by_role("table", name="Claims on this account")
    this_row = claims.get_by_role("row").filter(has_text=denial.claim_id)
    expect(this_row).to_contain_text("(this claim)")
    expect(this_row).to_have_attribute("aria-current", "true")
    expect(claims.get_by_role("row").filter(has_text=other.claim_id)).to_be_visible()
    balances = page.get_by_role("table", name="Account balances")
    charges = sum(d.billed for d in (denial, other))
    expect(balances.get_by_role("row").filter(has_text="Total charges")).to_contain_text(
        f"${charges:,.2f}"
    )
    patient_owes = sum(d.patient_responsibility for d in (denial, other))
    expect(balances.get_by_role("row").filter(has_text="Patient balance")).to_contain_text(
        f"${patient_owes:,.2f}"
    )
    claims.get_by_role("link", name=other.claim_id).click()  # on to the other claim
    expect(page.get_by_role("heading", name=f"Claim {other.claim_id}")).to_be_visible()
    page.get_by_role("link", name="Patient inquiry").click()
    page.get_by_role("link", name=f"Back to claim {other.claim_id}").click()
    expect(page.get_by_role("heading", name=f"Claim {other.claim_id}")).to_be_visible()

    state = suite.state(episode.id)
    assert state["ehr"]["patients_inquired"] == [denial.mrn]
    assert state["ehr"]["patient_inquiries"] == [
        {"mrn": denial.mrn, "claim_id": denial.claim_id},
        {"mrn": denial.mrn, "claim_id": other.claim_id},
    ]
    assert state["delta"] == {}, "an inquiry writes nothing"
    assert state["ehr"]["denials_viewed"] == [denial.claim_id, other.claim_id]
    page.goto(page.url.split("/denials")[0] + "/patients/MRN00000000")
    expect(page.get_by_role("heading", name="Patient not found")).to_be_visible()


def test_fax_with_uploads_from_disk(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page, tmp_path: Path
) -> None:
    world = suite.world
    order = world.dme_orders[0]
    chart = [d for d in world.documents if d.mrn == order.mrn]
    picked, downloaded = chart[0], chart[-1]
    _ehr(page, episode, f"/dme/{order.id}?tab=documents")
    with page.expect_download() as download:
        page.get_by_role(
            "link", name=f"Download {downloaded.title} {mdy(downloaded.date)}", exact=True
        ).click()
    from_chart = tmp_path / download.value.suggested_filename
    download.value.save_as(from_chart)
    scan = tmp_path / "signed-order-scan.pdf"
    scan.write_bytes(b"%PDF-1.4 signed order scan " + bytes(range(256)) * 300)
    bad = tmp_path / "tool.exe"
    bad.write_bytes(b"MZ")

    page.goto(episode.start_urls["fax"])
    page.get_by_label("Patient MRN").fill(order.mrn)
    page.get_by_role("button", name="Load chart documents").click()
    page.get_by_label("Recipient").fill(order.supplier)
    page.get_by_label("Fax number").fill(order.supplier_fax)
    page.get_by_label(f"{picked.title} — {mdy(picked.date)}").first.check()
    page.get_by_label("Upload files from your computer").set_input_files([scan, bad])
    page.get_by_role("button", name="Send fax").click()
    expect(page.get_by_role("alert")).to_contain_text("tool.exe: attach PDF, text, image or Word")
    expect(page.get_by_label("Upload files from your computer")).to_have_attribute(
        "aria-invalid", "true"
    )
    assert suite.state(episode.id)["fax"]["transmissions"] == []

    expect(page.locator(f"#doc-{picked.id}")).to_be_checked()
    page.get_by_label("Upload files from your computer").set_input_files([scan, from_chart])
    page.get_by_role("button", name="Send fax").click()
    expect(page.get_by_role("heading", name="Fax sent")).to_be_visible()
    record = page.get_by_role("table", name="Transmission record")
    expect(record).to_contain_text(scan.name)
    expect(record).to_contain_text(from_chart.name)

    [sent] = suite.state(episode.id)["fax"]["transmissions"]
    assert sent["document_ids"] == [picked.id]
    assert [(u["filename"], u["sha256"]) for u in sent["uploads"]] == [
        (p.name, hashlib.sha256(p.read_bytes()).hexdigest()) for p in (scan, from_chart)
    ]
    assert [u["document_id"] for u in sent["uploads"]] == [None, downloaded.id]
    assert sent["all_document_ids"] == [picked.id, downloaded.id]
    assert sent["uploads"][0]["size"] == scan.stat().st_size
    invalid = [e["detail"] for e in suite.state(episode.id)["events"] if e["kind"] == "fax.invalid"]
    assert invalid == [{"errors": ["attachments"]}]


def test_a_toast_vanishes_but_the_record_stays(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    rid = suite.world.referrals[1].id
    _ehr(page, episode, f"/referrals/{rid}?tab=communications")
    page.get_by_label("Subject").fill("Called the payer")
    page.get_by_role("button", name="Category").click()
    page.get_by_role("option", name="Payer communication", exact=True).click()
    page.get_by_label("Note", exact=True).fill("Reference 4471; decision in 3 days.")
    page.get_by_role("button", name="Save note").click()
    toast = page.get_by_role("status")
    expect(toast).to_have_text("Note saved")
    expect(toast).to_have_count(0, timeout=20_000)  # gone after a few seconds, by itself
    expect(page.get_by_text("Reference 4471; decision in 3 days.")).to_be_visible()
    [note] = suite.state(episode.id)["ehr"]["notes"]
    assert note["category"] == "payer-communication" and note["subject_id"] == rid


def test_long_worklists_are_paginated_accessibly(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    total = len(suite.world.referrals)
    assert total > 25
    page.goto(episode.start_urls["ehr"])
    pager = page.get_by_role("navigation", name="Worklist pages")
    pages = -(-total // 12)
    expect(pager.get_by_role("link", name=re.compile(r"^Page \d+$"))).to_have_count(pages)
    expect(pager.get_by_role("link", name="Page 1", exact=True)).to_have_attribute(
        "aria-current", "page"
    )
    expect(pager).to_contain_text(f"Rows 1–12 of {total}")
    expect(page.get_by_role("table", name="Referral worklist").get_by_role("row")).to_have_count(13)
    pager.get_by_role("link", name=f"Page {pages}", exact=True).click()
    expect(page).to_have_url(re.compile(rf"page={pages}$"))
    last = page.get_by_role("navigation", name="Worklist pages")
    expect(last.get_by_role("link", name=f"Page {pages}", exact=True)).to_have_attribute(
        "aria-current", "page"
    )
    expect(last.get_by_role("link", name="Page 1", exact=True)).not_to_have_attribute(
        "aria-current", "page"
    )
    expect(last).to_contain_text(f"Rows {(pages - 1) * 12 + 1}–{total} of {total}")
    latest = max(suite.world.referrals, key=lambda r: (r.appointment, r.id))
    expect(page.get_by_role("row").filter(has_text=latest.id)).to_have_count(1)
    page.get_by_role("link", name="Denials worklist").click()
    denials = page.get_by_role("navigation", name="Denials pages")
    expect(denials.get_by_role("link", name="Page 1", exact=True)).to_have_attribute(
        "aria-current", "page"
    )
    expect(denials).to_contain_text(f"of {len(suite.world.denials)}")
