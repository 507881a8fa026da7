"""Server errors driven through HTTP: logged as events, answered with a friendly page, and
never leaving a half-applied write in the episode database.

The failure is real: the suite is started with its private fault-injection flag and one
write is made to fail inside its transaction, after its rows were written.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from endstate.envs import EmbeddedSuite, EpisodeInfo

from .conftest import WORLD_SEED
from .envs_support import Visitor

RECORDS = ("ehr", "payer_a", "payer_b", "fax", "delta")


@pytest.fixture(scope="module")
def faulty(template_cache: Path) -> Iterator[EmbeddedSuite]:
    running = EmbeddedSuite.start(
        world_seed=WORLD_SEED, cache_dir=template_cache, _fault_injection=True
    )
    yield running
    running.stop()


@pytest.fixture
def faulty_episode(faulty: EmbeddedSuite) -> Iterator[EpisodeInfo]:
    info = faulty.open_episode()
    yield info
    faulty.close_episode(info.id)


def _records(state: dict[str, Any]) -> dict[str, Any]:
    return {k: state[k] for k in RECORDS}


def _integrity(suite: EmbeddedSuite, episode_id: str) -> str:
    db = suite.runtime.episodes[episode_id].db
    assert not db.conn.in_transaction, "a failed write left its transaction open"
    conn = sqlite3.connect(f"file:{db.path}?mode=ro", uri=True)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def _friendly_500(text: str) -> None:
    assert "Something went wrong" in text and "Nothing was saved." in text
    assert "Traceback" not in text and "InjectedFault" not in text


def test_fault_injection_is_off_unless_the_suite_is_started_for_it(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    with pytest.raises(RuntimeError, match="fault injection is off"):
        suite.runtime.arm_fault(episode.id, "note.add")
    assert suite.runtime.episodes[episode.id].db.fault is None


def test_a_failed_write_is_logged_and_leaves_the_database_as_it_was(
    faulty: EmbeddedSuite, faulty_episode: EpisodeInfo
) -> None:
    claim = faulty.world.denials[0].claim_id
    v = Visitor(faulty_episode.start_urls["ehr"])
    v.get(f"/denials/{claim}")
    before = faulty.state(faulty_episode.id)
    faulty.runtime.arm_fault(faulty_episode.id, "denial.triage")  # an UPDATE and an INSERT
    data = {"disposition": "appeal", "triage_note": "Auth was on file; appeal with the letter."}
    r = v.post(f"/denials/{claim}/triage", data)
    assert r.status_code == 500
    _friendly_500(r.text)

    after = faulty.state(faulty_episode.id)
    assert _records(after) == _records(before), "the failed write left a trace"
    new = after["events"][len(before["events"]) :]
    assert [(e["kind"], e["accepted"], e["page"]) for e in new] == [
        ("server.error", False, f"/denials/{claim}/triage")
    ]
    assert new[0]["detail"] == {"error": "InjectedFault", "method": "POST"}
    assert after["summary"]["server_errors"] == 1
    assert _integrity(faulty, faulty_episode.id) == "ok"

    # the episode goes on: the same write, tried again from a fresh page, is accepted whole
    v.get(f"/denials/{claim}")
    assert v.post(f"/denials/{claim}/triage", data).status_code == 200
    done = faulty.state(faulty_episode.id)
    assert done["ehr"]["denial_dispositions"] == [
        {"claim_id": claim, "disposition": "appeal", "triage_notes": [data["triage_note"]]}
    ]
    assert sorted(done["delta"]) == ["denials", "notes"]
    assert len(done["delta"]["notes"]["added"]) == 1
    accepted = [e for e in done["events"] if e["kind"] == "denial.triage"]
    assert len(accepted) == 1 and accepted[0]["accepted"]
    v.close()


def test_a_failed_fax_with_an_upload_stores_no_file(
    faulty: EmbeddedSuite, faulty_episode: EpisodeInfo
) -> None:
    order = faulty.world.dme_orders[0]
    v = Visitor(faulty_episode.start_urls["fax"])
    v.get(f"/compose?mrn={order.mrn}")
    faulty.runtime.arm_fault(faulty_episode.id, "fax.send")
    r = v.client.post(
        v.base + "/compose",
        data={
            "_nonce": v.nonce(),
            "patient_mrn": order.mrn,
            "recipient": order.supplier,
            "fax_number": order.supplier_fax,
            "cover_note": "",
        },
        files={"attachments": ("order.txt", b"Signed order for the supplier.", "text/plain")},
    )
    assert r.status_code == 500
    _friendly_500(r.text)
    state = faulty.state(faulty_episode.id)
    assert state["fax"]["transmissions"] == [] and state["delta"] == {}
    assert state["summary"]["server_errors"] == 1
    assert _integrity(faulty, faulty_episode.id) == "ok"
    v.close()


def test_a_failure_outside_a_page_handler_gets_the_same_treatment(
    faulty: EmbeddedSuite, faulty_episode: EpisodeInfo
) -> None:
    start = faulty_episode.start_urls["ehr"]
    v = Visitor(start)  # bound: the failure can be recorded against this episode
    token = start.split("t=", 1)[1]
    faulty.runtime.arm_fault(faulty_episode.id, "session.start")
    r = v.client.get(start)
    assert r.status_code == 500
    _friendly_500(r.text)
    state = faulty.state(faulty_episode.id)
    [error] = [e for e in state["events"] if e["kind"] == "server.error"]
    assert error["page"] == "/start" and not error["accepted"]
    assert token not in str(state["events"]), "a start token was recorded"
    assert state["delta"] == {}
    assert _integrity(faulty, faulty_episode.id) == "ok"
    assert v.get("/worklist").status_code == 200  # the session still works
    v.close()
