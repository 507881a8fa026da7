"""A nonce vouches only for the forms of the page that rendered it: the paths they post to."""

from __future__ import annotations

from typing import Any

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.shared.web import post_targets
from endstate.envs.suite.runtime import NONCES_PER_SESSION, Session

from .envs_support import Visitor

NOTE = {"subject": "Called payer", "category": "general", "body": "Spoke to the payer."}
FOREIGN = "nonce was issued for another form"


def _rejections(suite: EmbeddedSuite, episode_id: str) -> list[dict[str, Any]]:
    events = suite.state(episode_id)["events"]
    return [e for e in events if e["kind"] == "request.rejected"]


def _notes_on(suite: EmbeddedSuite, episode_id: str, subject_id: str) -> list[dict[str, Any]]:
    return [n for n in suite.state(episode_id)["ehr"]["notes"] if n["subject_id"] == subject_id]


def test_a_nonce_from_one_referral_cannot_write_a_note_on_another(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    ref_a, ref_b = suite.world.referrals[0].id, suite.world.referrals[1].id
    v = Visitor(episode.start_urls["ehr"])
    v.get(f"/referrals/{ref_a}?tab=communications")
    nonce_a = v.nonce()

    r = v.post(f"/referrals/{ref_b}/notes", NOTE, nonce=nonce_a)
    assert r.status_code == 400 and "Request rejected" in r.text
    assert _notes_on(suite, episode.id, ref_b) == []
    state = suite.state(episode.id)
    assert state["ehr"]["notes"] == [] and "notes" not in state["delta"]
    [rejected] = _rejections(suite, episode.id)
    assert rejected["accepted"] is False and rejected["page"] == f"/referrals/{ref_b}/notes"
    assert rejected["detail"]["reason"] == FOREIGN
    assert rejected["detail"]["issued_by"] == f"/referrals/{ref_a}?tab=communications"

    # Refused for B, the nonce is spent: it is no good for A's own form either.
    r = v.post(f"/referrals/{ref_a}/notes", NOTE, nonce=nonce_a)
    assert r.status_code == 400
    assert _rejections(suite, episode.id)[-1]["detail"]["reason"] == "missing or invalid nonce"
    assert suite.state(episode.id)["ehr"]["notes"] == []

    # A fresh nonce from A's page is accepted for A.
    v.get(f"/referrals/{ref_a}?tab=communications")
    r = v.post(f"/referrals/{ref_a}/notes", NOTE)
    assert r.status_code == 200
    [note] = suite.state(episode.id)["ehr"]["notes"]
    assert note["subject_id"] == ref_a and note["subject"] == NOTE["subject"]
    assert _notes_on(suite, episode.id, ref_b) == []
    v.close()


def test_every_form_of_a_page_accepts_its_nonce(suite: EmbeddedSuite, episode: EpisodeInfo) -> None:
    """One nonce per page covers all of that page's forms (here: the clear form and the note)."""
    ref = suite.world.referrals[0].id
    v = Visitor(episode.start_urls["ehr"])
    v.get(f"/referrals/{ref}?tab=communications")
    html = v.last.text
    assert f'action="/referrals/{ref}/clear"' in html and f'action="/referrals/{ref}/notes"' in html
    r = v.post(f"/referrals/{ref}/notes", NOTE)
    assert r.status_code == 200
    assert not _rejections(suite, episode.id)
    v.close()


def test_a_nonce_from_a_dme_order_cannot_write_a_referral_note(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    ref, order = suite.world.referrals[0].id, suite.world.dme_orders[0].id
    v = Visitor(episode.start_urls["ehr"])
    v.get(f"/dme/{order}?tab=notes")
    assert f'action="/dme/{order}/notes"' in v.last.text
    r = v.post(f"/referrals/{ref}/notes", NOTE)
    assert r.status_code == 400
    state = suite.state(episode.id)
    assert state["ehr"]["notes"] == [] and state["delta"] == {}
    assert _rejections(suite, episode.id)[-1]["detail"]["reason"] == FOREIGN
    v.get(f"/dme/{order}?tab=notes")  # the DME page's own form still works
    assert v.post(f"/dme/{order}/notes", NOTE).status_code == 200
    [note] = suite.state(episode.id)["ehr"]["notes"]
    assert note["subject_id"] == order
    v.close()


def _sign_in(v: Visitor, suite: EmbeddedSuite, portal: str) -> None:
    plan = next(p for p in suite.world.plans if p.portal == portal)
    v.get("/login")
    r = v.post(
        "/login", {"username": plan.portal_username or "", "password": plan.portal_password or ""}
    )
    assert r.status_code == 200, r.text


def test_the_logout_forms_nonce_works_only_for_logout(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    v = Visitor(episode.start_urls["payer_a"])
    _sign_in(v, suite, "payer_a")
    v.get("/policies")  # a page whose only POST form is the sign-out button
    assert post_targets(v.last.text, "/policies") == {"/logout"}
    for target in ("/prior-auth/new", "/appeals/new", "/login"):
        v.get("/policies")
        r = v.post(target, {"member_id": "X"})
        assert r.status_code == 400, target
        assert _rejections(suite, episode.id)[-1]["detail"]["reason"] == FOREIGN
    state = suite.state(episode.id)
    assert state["payer_a"]["pa_submissions"] == [] and state["payer_a"]["appeals"] == []
    assert [x["success"] for x in state["payer_a"]["logins"]] == [True]  # no second login

    v.get("/policies")
    r = v.post("/logout", {})
    assert r.status_code == 200 and r.url.path == "/login"
    kinds = [e["kind"] for e in suite.state(episode.id)["events"] if e["accepted"]]
    assert "logout" in kinds
    v.close()


def test_a_wizard_step_cannot_be_posted_with_another_steps_nonce(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    v = Visitor(episode.start_urls["payer_b"])
    _sign_in(v, suite, "payer_b")
    v.get("/requests/new/member")
    r = v.post("/requests/new/review", {"attest": "yes"})
    assert r.status_code == 400
    assert _rejections(suite, episode.id)[-1]["detail"]["reason"] == FOREIGN
    state = suite.state(episode.id)
    assert state["payer_b"]["pa_submissions"] == [] and state["payer_b"]["wizard_steps"] == []
    v.close()


# -- the parts, without a server ---------------------------------------------------------------


def test_post_targets_follow_the_forms_that_post() -> None:
    html = """
    <form method="get" action="/search"><button type="submit">Find</button></form>
    <form method="POST" action="/referrals/REF-1/notes"><button>Save</button></form>
    <form method='post'><input type="submit" value="Here"></form>
    <form method="post" action="/a?x=1&amp;y=2" data-note="a > b">
      <button type="submit" formmethod="get" formaction="/lookup">Look up</button>
      <button type="submit" formaction="/b">Other</button>
      <input type="image" formaction="relative" src="x.png">
      <button type="button" formaction="/not-a-submit">No</button>
    </form>
    <form action="/get-by-default"><button formmethod="post" formaction="/c">C</button></form>
    <form method="post" action="https://elsewhere.example/steal"></form>
    <form method="dialog" action="/dialog"></form>
    """
    assert post_targets(html, "/pages/here?tab=x") == {
        "/referrals/REF-1/notes",
        "/pages/here",
        "/a",
        "/b",
        "/pages/relative",
        "/c",
    }
    assert post_targets("<p>no forms</p>", "/x") == frozenset()


def test_session_nonces_stay_single_use_and_capped() -> None:
    session = Session("sid", "ep", "ehr")
    first = session.issue_nonce("/p")
    session.bind_nonce(first, {"/p/notes"})
    for _ in range(NONCES_PER_SESSION - 1):
        session.issue_nonce("/other")
    session.bind_nonce(first, {"/p/notes", "/logout"})  # rebinding keeps its expiry place
    assert first in session.nonces
    session.issue_nonce("/newest")
    assert first not in session.nonces and len(session.nonces) == NONCES_PER_SESSION

    unbound = session.issue_nonce("/q")
    issued = session.take_nonce(unbound)
    assert issued is not None and issued.targets == frozenset()  # vouches for nothing
    assert session.take_nonce(unbound) is None
    bound = session.issue_nonce("/r")
    session.bind_nonce(bound, ["/r/notes"])
    issued = session.take_nonce(bound)
    assert issued is not None and issued.page == "/r" and issued.targets == {"/r/notes"}
    assert session.take_nonce(bound) is None and session.take_nonce("") is None
