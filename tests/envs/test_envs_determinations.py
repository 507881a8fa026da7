"""Payer A decides requests as they arrive, and takes answers to its requests for information."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.world import World, mdy
from endstate.envs.world.chart_files import file_of


def _sign_in(page: Page, world: World, episode: EpisodeInfo) -> None:
    plan = next(p for p in world.plans if p.portal == "payer_a")
    page.goto(episode.start_urls["payer_a"])
    page.get_by_label("Username").fill(plan.portal_username or "")
    page.get_by_label("Password").fill(plan.portal_password or "")
    page.get_by_role("button", name="Sign in").click()


def _chart_file(tmp_path: Path, world: World, doc_id: str) -> Path:
    """The document as the EHR's download gives it (a scan as its PDF)."""
    d = next(d for d in world.documents if d.id == doc_id)
    file = file_of(d)
    path = tmp_path / file.filename
    path.write_bytes(file.data)
    return path


def test_a_request_for_information_is_answered_with_the_signed_document(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page, tmp_path: Path
) -> None:
    world = suite.world
    pended = next(r for r in world.prior_requests if r.status == "info_requested")
    draft = next(
        d
        for d in world.documents
        if d.related_id == pended.referral_id and d.status == "draft" and not d.signed
        and d.kind == next(x.kind for x in world.documents if x.id == pended.requested_document)
    )  # fmt: skip
    _sign_in(page, world, episode)
    page.goto(page.url.replace("/dashboard", "/prior-auth"))
    row = page.get_by_role("row").filter(has_text=pended.number)
    expect(row).to_contain_text("Additional information requested")
    row.get_by_role("link", name=pended.number).click()
    expect(page.get_by_role("region", name="Determination")).to_contain_text(
        f"Respond by {mdy(pended.due or '')}"
    )
    # Sending nothing is refused, and nothing is recorded.
    page.get_by_role("button", name="Send response").click()
    expect(page.get_by_role("alert")).to_have_text("Attach the document the reviewer asked for.")
    assert suite.state(episode.id)["payer_a"]["pa_responses"] == []

    page.get_by_label("Documents").set_input_files(
        [_chart_file(tmp_path, world, pended.requested_document or "")]
    )
    page.get_by_label("Message to the reviewer (optional)").fill("Signed note attached.")
    page.get_by_role("button", name="Send response").click()
    expect(page.get_by_role("status")).to_have_text("Status: Pending clinical review.")
    expect(page.get_by_role("button", name="Send response")).to_have_count(0)
    state = suite.state(episode.id)["payer_a"]
    [response] = state["pa_responses"]
    assert response["request_number"] == pended.number
    assert [a["document_id"] for a in response["attachments"]] == [pended.requested_document]
    assert response["attachments"][0]["document_id"] != draft.id
    moved = next(r for r in state["prior_requests"] if r["number"] == pended.number)
    assert moved["status"] == "pending_review"
    # An approved request on file cannot be "answered".
    approved = next(r for r in world.prior_requests if r.status == "approved")
    page.goto(page.url.replace(pended.number, approved.number))
    expect(page.get_by_role("status")).to_have_text("Status: Approved.")
    expect(page.get_by_role("region", name="Determination")).to_contain_text(
        approved.auth_number or "?"
    )


def test_a_request_without_documents_is_pended_for_information(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    requested = {r.referral_id for r in world.prior_requests}
    plans = {p.id: p for p in world.plans}
    coverages = {c.id: c for c in world.coverages}
    ref = next(
        r
        for r in world.referrals
        if r.id not in requested
        and coverages[r.coverage_id].status == "active"
        and plans[coverages[r.coverage_id].plan_id].portal == "payer_a"
        and any(
            x.requires_auth and x.plan_id == coverages[r.coverage_id].plan_id and x.cpt == s.cpt
            for s in r.services
            for x in world.payer_rules
        )
    )
    patient = world.patient(ref.mrn)
    _sign_in(page, world, episode)
    page.goto(page.url.replace("/dashboard", "/prior-auth/new"))
    page.get_by_role("button", name="Request type").click()
    page.get_by_role("option", name="Outpatient procedure", exact=True).click()
    page.get_by_label("Member ID").fill(coverages[ref.coverage_id].member_id)
    page.get_by_label("Member date of birth").fill(mdy(patient.dob))
    page.get_by_label("Provider NPI").fill(ref.provider_npi)
    page.get_by_label("Diagnosis codes (ICD-10)").fill(", ".join(d.code for d in ref.diagnoses))
    for n, s in enumerate(ref.services, start=1):
        page.get_by_label(f"CPT code, line {n}").fill(s.cpt)
        page.get_by_label(f"Units, line {n}").fill(str(s.quantity))
    page.get_by_label("Date of service").fill(mdy(ref.appointment))
    page.get_by_label("Clinical notes").fill("Conservative care has failed; see the chart.")
    page.get_by_role("button", name="Submit request").click()
    expect(page.get_by_role("status")).to_contain_text("Status: Additional information requested.")
    [sub] = suite.state(episode.id)["payer_a"]["pa_submissions"]
    assert sub["status"] == "info_requested"
    assert "attach clinical documentation" in sub["determination"]
    assert sub["auth_number"] is None


def test_a_portal_refuses_an_appeal_for_a_plan_that_takes_them_by_fax(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page, tmp_path: Path
) -> None:
    world = suite.world
    plans = {p.id: p for p in world.plans}
    denial = next(
        d
        for d in world.denials
        if plans[d.plan_id].portal == "payer_a" and plans[d.plan_id].appeal_channel == "fax"
    )
    plan = plans[denial.plan_id]
    member = next(c for c in world.coverages if c.id == denial.coverage_id)
    letter = tmp_path / "letter.txt"
    letter.write_text("The service was medically necessary.")
    _sign_in(page, world, episode)
    page.goto(page.url.replace("/dashboard", "/appeals/new"))
    page.get_by_label("Claim number").fill(denial.claim_id)
    page.get_by_label("Member ID").fill(member.member_id)
    page.get_by_label("Member date of birth").fill(mdy(world.patient(denial.mrn).dob))
    page.get_by_role("button", name="Appeal type").click()
    page.get_by_role("option", name="Level 1 provider appeal", exact=True).click()
    page.get_by_label("Reason for appeal").fill("Medically necessary; see the attached letter.")
    page.get_by_label("Contact name").fill("J. Rivera")
    page.get_by_label("Contact phone").fill("(415) 555-0100")
    page.get_by_label("Attachments").set_input_files([letter])
    page.get_by_role("button", name="Submit appeal").click()
    form = plan.appeal_form.split(":")[0]
    expect(page.get_by_role("alert")).to_contain_text(
        f"does not accept appeals through this portal. Fax the appeal to {plan.appeals_fax} "
        f"with form {form}."
    )
    assert suite.state(episode.id)["payer_a"]["appeals"] == []
    assert plan.appeals_fax != plan.fax  # the appeals department is not utilization management


def test_eligibility_on_a_secondary_coverage_names_the_primary(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    plans = {p.id: p for p in world.plans}
    secondary = next(
        c
        for r in world.referrals
        for c in world.coverages
        if c.id == r.coverage_id and c.rank == 2 and plans[c.plan_id].portal == "payer_a"
    )
    primary = next(
        c
        for c in world.coverages
        if c.mrn == secondary.mrn and c.rank == 1 and c.status == "active"
    )
    patient = next(p for p in world.patients if p.mrn == secondary.mrn)
    _sign_in(page, world, episode)
    page.goto(page.url.replace("/dashboard", "/eligibility"))
    page.get_by_label("Member ID").fill(secondary.member_id)
    page.get_by_label("Member date of birth").fill(mdy(patient.dob))
    page.get_by_label("Date of service").fill(mdy(world.today.isoformat()))
    page.get_by_role("button", name="Check eligibility").click()
    expect(page.get_by_role("status")).to_contain_text("Coverage is active")
    result = page.get_by_role("region", name="Result")
    expect(result).to_contain_text("this plan is secondary for this member")
    expect(result).to_contain_text(plans[primary.plan_id].name)
    # The primary itself carries no such line.
    page.get_by_label("Member ID").fill(primary.member_id)
    page.get_by_role("button", name="Check eligibility").click()
    if plans[primary.plan_id].portal == "payer_a":
        expect(result).not_to_contain_text("Coordination of benefits")
