"""Episodes over the grading channel: isolation, determinism, the nonce gate, hidden routes."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.server import GradingRefused
from endstate.envs.world import mdy

from .envs_support import Visitor, referral_with_portal

GRADING_PATHS = ["/episodes", "/episodes/x/state", "/fingerprint", "/health"]


def _note(v: Visitor, rid: str, subject: str, category: str = "general") -> httpx.Response:
    v.get(f"/referrals/{rid}?tab=communications")
    return v.post(
        f"/referrals/{rid}/notes", {"subject": subject, "category": category, "body": "b"}
    )


def test_grading_routes_do_not_exist_on_agent_ports(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    for system, start in episode.start_urls.items():
        v = Visitor(start)
        for path in GRADING_PATHS:
            assert v.get(path).status_code == 404, (system, path)
            assert v.client.post(v.base + path, json={}).status_code in (404, 405), (system, path)
        assert v.get(f"/episodes/{episode.id}/state").status_code == 404
        v.close()
    kinds = [e["kind"] for e in suite.state(episode.id)["events"]]
    assert "page.not_found" in kinds, "probing for hidden routes is recorded"


def test_grading_channel_requires_the_token(suite: EmbeddedSuite, episode: EpisodeInfo) -> None:
    url = f"{suite.grading_url}/episodes/{episode.id}/state"
    assert httpx.get(url).status_code == 401
    assert httpx.get(url, headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert httpx.post(f"{suite.grading_url}/episodes").status_code == 401
    ok = httpx.get(url, headers={"Authorization": f"Bearer {suite.token}"})
    assert ok.status_code == 200 and ok.json()["episode"]["id"] == episode.id


def test_state_document_names_world_and_episode(suite: EmbeddedSuite, episode: EpisodeInfo) -> None:
    state = suite.state(episode.id)
    assert state["world"]["id"] == suite.world.id
    assert state["world"]["sha256"] == suite.world.sha256
    assert state["world"]["clock"] == "2026-03-02T09:00:00"
    assert state["episode"] == {"id": episode.id, "seed": episode.seed}
    assert state["delta"] == {} and state["ehr"]["notes"] == []
    assert set(state) >= {"ehr", "payer_a", "fax", "delta", "events", "schema_version"}


def test_unbound_browser_gets_no_pages(suite: EmbeddedSuite) -> None:
    for base in suite.urls.values():
        r = httpx.get(base + "/worklist")
        assert r.status_code in (401, 404)
    assert httpx.get(suite.urls["ehr"] + "/start?t=forged").status_code == 404


def test_post_without_nonce_is_rejected_and_changes_nothing(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    rid = suite.world.referrals[0].id
    v = Visitor(episode.start_urls["ehr"])
    v.get(f"/referrals/{rid}?tab=communications")
    data = {"subject": "s", "category": "auth-determination", "body": "b"}
    r = v.post(f"/referrals/{rid}/notes", data, nonce=None)
    assert r.status_code == 400 and "Request rejected" in r.text
    r = v.post(f"/referrals/{rid}/notes", data, nonce="made-up")
    assert r.status_code == 400
    r = v.post(f"/referrals/{rid}/clear", {}, nonce=None)
    assert r.status_code == 400
    state = suite.state(episode.id)
    assert state["delta"] == {}
    assert state["ehr"]["notes"] == [] and state["ehr"]["cleared_referrals"] == []
    rejected = [e for e in state["events"] if e["kind"] == "request.rejected"]
    assert len(rejected) == 3 and not any(e["accepted"] for e in rejected)
    assert rejected[0]["page"] == f"/referrals/{rid}/notes"
    v.close()


def test_a_nonce_is_single_use_and_bound_to_its_session(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    other = suite.open_episode()
    try:
        rid = suite.world.referrals[0].id
        a, b = Visitor(episode.start_urls["ehr"]), Visitor(other.start_urls["ehr"])
        a.get(f"/referrals/{rid}?tab=communications")
        stolen = a.nonce()
        data = {"subject": "s", "category": "general", "body": "b"}
        assert b.post(f"/referrals/{rid}/notes", data, nonce=stolen).status_code == 400
        assert a.post(f"/referrals/{rid}/notes", data, nonce=stolen).status_code == 200
        assert a.post(f"/referrals/{rid}/notes", data, nonce=stolen).status_code == 400
        assert len(suite.state(episode.id)["ehr"]["notes"]) == 1
        assert suite.state(other.id)["delta"] == {}
    finally:
        suite.close_episode(other.id)


def test_concurrent_episodes_never_see_each_others_writes(suite: EmbeddedSuite) -> None:
    episodes = [suite.open_episode() for _ in range(4)]
    refs = [r.id for r in suite.world.referrals[:3]]
    errors: list[BaseException] = []

    def work(i: int, info: EpisodeInfo) -> None:
        try:
            v = Visitor(info.start_urls["ehr"])
            for rid in refs:
                assert _note(v, rid, f"episode {i} on {rid}").status_code == 200
            v.close()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i, e)) for i, e in enumerate(episodes)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    try:
        for i, info in enumerate(episodes):
            notes = suite.state(info.id)["ehr"]["notes"]
            assert sorted(n["subject"] for n in notes) == sorted(
                f"episode {i} on {r}" for r in refs
            )
            v = Visitor(info.start_urls["ehr"])
            page = v.get(f"/referrals/{refs[0]}?tab=communications").text
            assert f"episode {i} on" in page
            assert all(f"episode {j} on" not in page for j in range(4) if j != i)
            v.close()
    finally:
        for info in episodes:
            suite.close_episode(info.id)


def _submit_pa(suite: EmbeddedSuite, info: EpisodeInfo) -> dict[str, Any]:
    world = suite.world
    ref = referral_with_portal(world)
    cov = next(c for c in world.coverages if c.id == ref.coverage_id)
    plan = world.plan(cov.plan_id)
    v = Visitor(info.start_urls["payer_a"])
    v.post(
        "/login", {"username": plan.portal_username or "", "password": plan.portal_password or ""}
    )
    v.get("/prior-auth/new")
    r = v.post(
        "/prior-auth/new",
        {
            "request_type": "outpatient",
            "member_id": cov.member_id,
            "member_dob": mdy(world.patient(ref.mrn).dob),
            "provider_npi": ref.provider_npi,
            "diagnosis_codes": ", ".join(d.code for d in ref.diagnoses),
            "cpt_1": ref.services[0].cpt,
            "units_1": str(ref.services[0].quantity),
            "cpt_2": "",
            "units_2": "",
            "cpt_3": "",
            "units_3": "",
            "service_date": mdy(ref.appointment),
            "clinical_notes": "Conservative therapy failed; see attached letter.",
        },
    )
    assert r.status_code == 200 and "Request received" in r.text, r.text
    v.close()
    return suite.state(info.id)


def _without_episode_id(state: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in state.items() if k != "episode"}


def test_same_actions_same_seed_same_state_document(suite: EmbeddedSuite) -> None:
    one, two, three = (suite.open_episode(seed=s) for s in (42, 42, 43))
    try:
        a, b, c = (_submit_pa(suite, e) for e in (one, two, three))
        assert _without_episode_id(a) == _without_episode_id(b)
        number_a = a["payer_a"]["pa_submissions"][0]["confirmation_number"]
        number_c = c["payer_a"]["pa_submissions"][0]["confirmation_number"]
        assert number_a.startswith("PA-") and number_a != number_c
    finally:
        for e in (one, two, three):
            suite.close_episode(e.id)


def test_episode_ids_are_validated_and_unique(suite: EmbeddedSuite) -> None:
    info = suite.open_episode(episode_id="task-1.attempt-1")
    try:
        assert info.id == "task-1.attempt-1"
        with pytest.raises(GradingRefused):
            suite.open_episode(episode_id="task-1.attempt-1")
        with pytest.raises(GradingRefused):
            suite.open_episode(episode_id="../escape")
    finally:
        suite.close_episode(info.id)
    with pytest.raises(GradingRefused):
        suite.state(info.id)


def test_bad_input_gets_a_visible_message_never_a_500(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    v = Visitor(episode.start_urls["ehr"])
    assert v.get("/referrals/REF-9999-0000").status_code == 404
    assert v.get("/worklist?page=abc").status_code == 200
    assert v.get("/referrals/%3Cscript%3E?tab=%00").status_code == 404
    rid = suite.world.referrals[0].id
    v.get(f"/referrals/{rid}?tab=communications")
    r = v.post(f"/referrals/{rid}/notes", {"subject": "", "category": "bogus", "body": ""})
    assert r.status_code == 422
    assert "Enter a subject." in r.text and "Choose a category." in r.text
    v.close()
    state = suite.state(episode.id)
    assert state["summary"]["server_errors"] == 0 and state["delta"] == {}


def test_fingerprint_is_stable_and_structural(suite: EmbeddedSuite, template_cache: Any) -> None:
    first, second = suite.fingerprint(), suite.fingerprint()
    assert first["sha256"] == second["sha256"]
    ehr = first["systems"]["ehr"]
    assert "POST /referrals/{rid}/notes" in ehr["routes"]
    note_form = next(
        f
        for f in ehr["pages"]["/referrals/{referral}?tab=communications"]["forms"]
        if f["action"].endswith("/notes")
    )
    assert {"input:hidden:_nonce", "input:hidden:category", "textarea:textarea:body"} <= set(
        note_form["fields"]
    )
    assert not any("/episodes" in r for s in first["systems"].values() for r in s["routes"])
    other_world = EmbeddedSuite.start(world_seed=99, cache_dir=template_cache)
    bare = EmbeddedSuite.start(world_seed=99, cache_dir=template_cache, testids=False)
    try:
        assert other_world.fingerprint()["sha256"] == first["sha256"], "data is not structure"
        assert bare.fingerprint()["sha256"] != first["sha256"], "removing test ids is a change"
        v = Visitor(bare.open_episode().start_urls["ehr"])
        assert "data-testid" not in v.last.text and "worklist" in v.last.text.lower()
        v.close()
    finally:
        other_world.stop()
        bare.stop()


def test_every_probed_page_renders(suite: EmbeddedSuite) -> None:
    """The fingerprint's probe visits each main page of every system: none may fail."""
    found = suite.fingerprint()["systems"]
    assert set(found) == {"ehr", "payer_a", "payer_b", "fax", "patient_portal", "scheduling"}
    statuses = {
        (system, path): page["status"]
        for system, body in found.items()
        for path, page in body["pages"].items()
    }
    assert all(code == 200 for code in statuses.values()), statuses
    assert ("payer_b", "/requests/new/review") in statuses  # the wizard was walked to its end
    assert ("ehr", "/dme/{dme_order}?tab=documents") in statuses
