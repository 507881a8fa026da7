"""The patient portal's hard pages in real Chromium, and its writes asserted on the state
document and the delta read over the grading channel."""

from __future__ import annotations

import re
from collections import Counter
from datetime import timedelta
from urllib.parse import urlsplit

from playwright.sync_api import Page, expect

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.systems.patient_portal import controls as pp
from endstate.envs.systems.patient_portal.clinic import SLOTS
from endstate.envs.systems.patient_portal.model import Patient, Population
from endstate.envs.systems.patient_portal.population import of_world
from endstate.envs.world import mdy

from .test_envs_controls import _missing

LAB_DATE = re.compile(r"^\d\d/\d\d \d\d:\d\d:\d\d/\d{4}$")


def _sign_in(page: Page, episode: EpisodeInfo, who: Patient) -> str:
    """Sign in as a patient; the portal's origin."""
    page.goto(episode.start_urls["patient_portal"])
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(page.url))
    page.get_by_label(pp.USERNAME, exact=True).fill(who.username)
    page.get_by_label(pp.PASSWORD, exact=True).fill(who.password)
    page.get_by_role("button", name=pp.SIGN_IN).click()
    expect(page).to_have_url(origin + "/home")
    return origin


def _by_labs(people: Population, rows: int) -> Patient:
    counts = Counter(r.patient_id for r in people.labs)
    return people.patient(next(pid for pid, n in counts.items() if n == rows))


def _column(page: Page, table: str, index: int) -> list[str]:
    cells: list[str] = page.eval_on_selector_all(
        f"table[aria-label='{table}'] tbody tr td:nth-child({index})",
        "cells => cells.map(c => c.textContent)",
    )
    return cells


def test_lab_results_print_odd_dates_and_no_range(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    people = of_world(suite.world)
    _sign_in(page, episode, _by_labs(people, 4105))
    page.get_by_role("link", name=pp.LAB_RESULTS).first.click()
    page.wait_for_load_state()  # a long page: read it once it has all arrived
    table = page.get_by_role("table", name="Lab results")
    expect(table.locator("tbody tr")).to_have_count(4105)
    headers = table.get_by_role("columnheader").all_inner_texts()
    assert headers == ["Date", "Test", "Result", "Units", "Range"]
    dates = _column(page, "Lab results", 1)
    assert len(dates) == 4105
    assert all(LAB_DATE.match(d) for d in dates), dates[:3]
    assert any(" 00:00:00/" in d for d in dates)
    assert set(_column(page, "Lab results", 5)) == {""}  # Range: empty on every row
    state = suite.state(episode.id)
    assert "/labs" in state["patient_portal"]["pages_viewed"]


def test_billing_shows_nothing_until_a_range_and_hides_payments_by_default(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    people = of_world(world)
    who = people.patients[0]
    origin = _sign_in(page, episode, who)
    page.goto(origin + "/billing")
    expect(page.get_by_role("table")).to_have_count(0)
    expect(page.get_by_label(pp.LEDGER_SHOW)).to_have_value("charges")
    start = world.today - timedelta(days=3 * 365)
    page.get_by_label(pp.LEDGER_FROM, exact=True).fill(mdy(start.isoformat()))
    page.get_by_label(pp.LEDGER_TO, exact=True).fill(mdy(world.today.isoformat()))
    page.get_by_role("button", name=pp.VIEW_LEDGER).click()
    expect(page).to_have_url(re.compile(r"show=charges"))
    page.wait_for_load_state()
    expect(page.get_by_role("table", name="Ledger")).to_be_visible()
    kinds = set(_column(page, "Ledger", 4))
    assert kinds and "Payment" not in kinds
    page.get_by_label(pp.LEDGER_SHOW).select_option(label="All transactions")
    page.get_by_role("button", name=pp.VIEW_LEDGER).click()
    expect(page).to_have_url(re.compile(r"show=all"))
    page.wait_for_load_state()
    assert "Payment" in set(_column(page, "Ledger", 4))
    mine = [e for e in people.ledger if e.patient_id == who.id and e.posted >= start.isoformat()]
    assert len(_column(page, "Ledger", 1)) == len(mine)
    searches = suite.state(episode.id)["patient_portal"]["ledger_searches"]
    assert [s["show"] for s in searches] == ["charges", "all"]
    assert searches[1]["rows"] == len(mine)


def test_medications_and_prescriptions_share_their_headers(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    people = of_world(suite.world)
    taking = Counter(p.patient_id for p in people.prescriptions)
    who = people.patient(next(iter(taking)))
    origin = _sign_in(page, episode, who)
    page.goto(origin + "/medications")
    meds = page.get_by_role("table", name="Medications")
    med_headers = meds.get_by_role("columnheader").all_inner_texts()
    page.goto(origin + "/prescriptions")
    scripts = page.get_by_role("table", name="Prescriptions")
    assert scripts.get_by_role("columnheader").all_inner_texts() == med_headers
    assert len(_column(page, "Prescriptions", 1)) == taking[who.id]
    page.goto(origin + "/medications")
    lifetime = [m for m in people.medications if m.patient_id == who.id]
    assert len(_column(page, "Medications", 1)) == len(lifetime) > taking[who.id]
    text = page.inner_text("main").lower()
    assert "current" not in text and "lifetime" not in text and "active" not in text


def test_problems_mark_active_only_by_a_blank_end_date_and_allergies_can_be_empty(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    people = of_world(suite.world)
    allergic = {a.patient_id for a in people.allergies}
    problems = Counter(c.patient_id for c in people.conditions)
    who = people.patient(max(problems, key=lambda pid: problems[pid]))
    origin = _sign_in(page, episode, who)
    page.goto(origin + "/problems")
    headers = page.get_by_role("table", name="Problems").get_by_role("columnheader")
    assert headers.all_inner_texts() == ["Problem", "Code", "Onset Date", "End Date"]
    ends = _column(page, "Problems", 4)
    assert len(ends) == problems[who.id] >= 180
    active = [c for c in people.conditions if c.patient_id == who.id and c.end_date is None]
    assert ends.count("") == len(active) > 0
    page.goto(origin + "/allergies")
    rows = page.get_by_role("table", name="Allergies").locator("tbody tr")
    expect(rows).to_have_count(len([a for a in people.allergies if a.patient_id == who.id]))
    if who.id not in allergic:
        assert "none" not in page.inner_text("main").lower()


def test_sending_a_message_lands_in_the_state_and_the_delta(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    people = of_world(suite.world)
    who = people.patients[1]
    pcp = people.provider(who.pcp_id)
    label = f"{pcp.last}, {pcp.first}, {pcp.credential} ({pcp.specialty})"
    origin = _sign_in(page, episode, who)
    page.goto(origin + "/messages")
    page.get_by_role("link", name=pp.NEW_MESSAGE).click()
    assert len(page.get_by_label(pp.RECIPIENT, exact=True).locator("option").all()) == 161
    page.get_by_label(pp.RECIPIENT, exact=True).select_option(label=label)
    page.get_by_label(pp.SUBJECT, exact=True).fill("Refill request")
    page.get_by_label(pp.MESSAGE, exact=True).fill("Please refill my prescription.")
    page.get_by_role("button", name=pp.SEND).click()
    expect(page.get_by_role("status")).to_have_text("Your message was sent.")
    state = suite.state(episode.id)
    sent = state["patient_portal"]["sent_messages"]
    assert len(sent) == 1
    assert sent[0]["patient_id"] == who.id and sent[0]["provider_id"] == pcp.id
    assert sent[0]["provider_name"] == label and sent[0]["subject"] == "Refill request"
    added = state["delta"]["pp_sent_messages"]["added"]
    assert [r["id"] for r in added] == [sent[0]["id"]]
    assert any(e["kind"] == "message.send" and e["accepted"] for e in state["events"])


def test_cancelling_and_booking_land_in_the_state_and_the_delta(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    people = of_world(world)
    who = people.patients[2]
    appt = next(
        a
        for a in people.appointments
        if a.patient_id == who.id and a.status == "scheduled" and a.starts_at >= world.clock
    )
    origin = _sign_in(page, episode, who)
    page.goto(origin + "/appointments")
    page.locator(f"a[href='/appointments/{appt.id}/cancel']").click()
    page.get_by_role("button", name=pp.CANCEL).click()  # no reason yet: refused
    expect(page.get_by_role("alert")).to_contain_text("Choose a reason for cancelling.")
    page.get_by_label(pp.CANCEL_REASON).select_option(label="Schedule conflict")
    page.get_by_role("button", name=pp.CANCEL).click()
    expect(page.get_by_role("status")).to_have_text("Your appointment was cancelled.")

    provider = next(p for p in people.providers if p.specialty == "Dermatology")
    day = world.today + timedelta(days=10)
    while day.weekday() >= 5:
        day += timedelta(days=1)
    page.get_by_role("link", name=pp.BOOK_LINK).click()
    page.get_by_label(pp.PROVIDER, exact=True).select_option(provider.id)
    page.get_by_label(pp.DATE, exact=True).fill(mdy(day.isoformat()))
    page.get_by_label(pp.REASON, exact=True).select_option("New problem")
    page.get_by_role("button", name=pp.BOOK).click()
    expect(page.get_by_role("status")).to_have_text("Your appointment is booked.")

    state = suite.state(episode.id)
    changes = state["patient_portal"]["appointment_changes"]
    assert [(c["action"], c["patient_id"]) for c in changes] == [
        ("cancel", who.id),
        ("book", who.id),
    ]
    assert changes[0]["appointment_id"] == appt.id and changes[0]["cancel_reason"] == "conflict"
    assert changes[1]["provider_id"] == provider.id
    assert changes[1]["provider_name"].startswith(f"{provider.last}, {provider.first}, ")
    taken = {
        a.starts_at
        for a in people.appointments
        if a.provider_id == provider.id and a.status == "scheduled"
    }
    first_free = next(
        f"{day.isoformat()}T{s}" for s in SLOTS if f"{day.isoformat()}T{s}" not in taken
    )
    assert changes[1]["starts_at"] == first_free  # the first free slot of the clinic's day
    delta = state["delta"]["pp_appointments"]
    assert delta["updated"] == [
        {
            "key": {"id": appt.id},
            "changes": {"status": {"before": "scheduled", "after": "cancelled"}},
        }
    ]
    assert [r["id"] for r in delta["added"]] == [changes[1]["appointment_id"]]
    assert len(state["delta"]["pp_appointment_changes"]["added"]) == 2
    assert state["summary"]["invalid_submissions"] == 1


def test_one_record_pages_offer_their_controls(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    people = of_world(suite.world)
    who = people.patients[0]
    appt = next(
        a for a in people.appointments if a.patient_id == who.id and a.status == "scheduled"
    )
    message = next(m for m in people.messages if m.patient_id == who.id)
    origin = _sign_in(page, episode, who)
    names = {"appointment": appt.id, "message": message.id}
    for path, wanted in pp.RECORD_PAGES.items():
        page.goto(origin + path.format(**names))
        assert not _missing(page, wanted, names), (path, _missing(page, wanted, names))
