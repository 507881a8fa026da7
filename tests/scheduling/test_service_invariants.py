"""The scheduling service's invariants, deterministic, on a real SQLite file: whoever calls and
whatever the external system does, the rules hold (issue 14's failure-injection suite)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from endstate.envs.systems.scheduling.directory import seed_directory
from endstate.envs.systems.scheduling.schema import DDL
from endstate.envs.systems.scheduling.service import SchedulingService

CLOCK = "2026-08-25T18:00:00"


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(tmp_path / "episode.sqlite", isolation_level=None)
    db.execute("PRAGMA synchronous=OFF")
    db.executescript(DDL)
    db.execute("BEGIN")
    seed_directory(db, 7, CLOCK)
    db.execute("COMMIT")
    yield db
    db.close()


def setting(conn: sqlite3.Connection, **values: Any) -> None:
    for key, value in values.items():
        conn.execute("UPDATE sc_settings SET value = ? WHERE key = ?", (str(value), key))


def count(conn: sqlite3.Connection, sql: str, *params: Any) -> int:
    return int(conn.execute(sql, params).fetchone()[0])


class Desk:
    """The agent and the user, each a service over the same episode."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.agent = SchedulingService(conn)
        self.user = SchedulingService(conn, actor="user")
        self.conn = conn
        self.patient = conn.execute("SELECT id FROM sc_patients ORDER BY id").fetchone()[0]
        self.slots = [r[0] for r in conn.execute("SELECT id FROM sc_slots ORDER BY id LIMIT 3")]
        self.keys = 0

    def key(self) -> str:
        self.keys += 1
        return f"k{self.keys}"

    def ok(self, tool: str, key: str | None = None, **arguments: Any) -> dict[str, Any]:
        answer = self.agent.call(tool, arguments, key)
        assert answer["status"] == "ok", answer
        return answer

    def approve(
        self, proposal_id: int, revision: int, kind: str = "booking", **message: str
    ) -> None:
        """The user's approval; a communication one names its channel and body."""
        answer = self.user.call(
            "approve",
            {"proposal_id": proposal_id, "revision": revision, "kind": kind} | message,
            "u" + str(proposal_id) + str(revision) + kind,
        )
        assert answer["status"] == "ok", answer

    def proposal(self, slot: int = 0) -> int:
        self.ok("hold_slot", self.key(), patient_id=self.patient, slot_id=self.slots[slot])
        made = self.ok(
            "propose", self.key(), patient_id=self.patient, action="book", slot_id=self.slots[slot]
        )
        return int(made["proposal_id"])

    def confirm(self, proposal_id: int, revision: int, key: str | None = None) -> dict[str, Any]:
        arguments = {"proposal_id": proposal_id, "revision": revision}
        return self.agent.call("confirm", arguments, key or self.key())


@pytest.fixture
def desk(conn: sqlite3.Connection) -> Desk:
    return Desk(conn)


def test_a_stale_confirmation_names_a_revision_that_is_no_longer_the_approved_one(
    desk: Desk,
) -> None:
    pid = desk.proposal(0)
    desk.approve(pid, 1)
    desk.ok("hold_slot", desk.key(), patient_id=desk.patient, slot_id=desk.slots[1])
    desk.ok("revise", desk.key(), proposal_id=pid, slot_id=desk.slots[1], note="second slot")
    desk.approve(pid, 2)
    stale = desk.confirm(pid, 1)
    assert stale["status"] == "refused" and stale["code"] == "stale_revision"
    booked = desk.confirm(pid, 2)
    assert booked["status"] == "ok"
    row = desk.conn.execute("SELECT slot_id, revision FROM sc_appointments").fetchall()
    assert row == [(desk.slots[1], 2)]


def test_a_revision_without_a_note_records_none_rather_than_a_blank(desk: Desk) -> None:
    pid = desk.proposal(0)
    desk.ok("revise", desk.key(), proposal_id=pid, slot_id=desk.slots[1], note="  ")
    desk.ok("revise", desk.key(), proposal_id=pid, slot_id=desk.slots[2], note="after lunch")
    revisions = desk.ok("get_proposal", proposal_id=pid)["revisions"]
    assert [r["note"] for r in revisions] == [None, None, "after lunch"]


def test_no_booking_without_approval_and_the_agent_cannot_approve(desk: Desk) -> None:
    pid = desk.proposal()
    answer = desk.confirm(pid, 1)
    assert answer["code"] == "not_approved"
    self_approval = desk.agent.call(
        "approve", {"proposal_id": pid, "revision": 1, "kind": "booking"}, "x"
    )
    assert self_approval["code"] == "not_authorized"
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_appointments") == 0
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_external_bookings") == 0
    # Every refusal is evidence: recorded with who asked.
    refused = desk.conn.execute(
        "SELECT tool, actor FROM sc_requests WHERE status = 'refused' ORDER BY id"
    ).fetchall()
    assert refused == [("confirm", "agent"), ("approve", "agent")]


def test_an_unrevised_approval_does_not_cover_a_newer_revision(desk: Desk) -> None:
    pid = desk.proposal(0)
    desk.approve(pid, 1)
    desk.ok("hold_slot", desk.key(), patient_id=desk.patient, slot_id=desk.slots[1])
    desk.ok("revise", desk.key(), proposal_id=pid, slot_id=desk.slots[1])
    assert desk.confirm(pid, 2)["code"] == "not_approved"
    assert desk.confirm(pid, 1)["code"] == "stale_revision"


def test_no_communication_without_communication_approval(desk: Desk) -> None:
    pid = desk.proposal()
    desk.approve(pid, 1)  # booking approval only
    send = {"proposal_id": pid, "revision": 1, "channel": "sms", "body": "Booked for Tue."}
    assert desk.agent.call("send_communication", send, "s1")["code"] == (
        "communication_not_approved"
    )
    desk.approve(pid, 1, "communication", channel="sms", body="Booked for Tue.")
    assert desk.agent.call("send_communication", send, "s2")["status"] == "ok"
    body, approval = desk.conn.execute(
        "SELECT c.body, a.kind FROM sc_communications c JOIN sc_approvals a ON a.id = c.approval_id"
    ).fetchone()
    assert (body, approval) == ("Booked for Tue.", "communication")
    # The trace keeps the message body only as a hash.
    traced = desk.conn.execute(
        "SELECT arguments FROM sc_requests WHERE tool = 'send_communication' AND status = 'ok'"
    ).fetchone()[0]
    assert "Booked for Tue." not in traced and "sha256:" in traced


def test_a_retried_write_with_its_key_happens_once(desk: Desk) -> None:
    hold = {"patient_id": desk.patient, "slot_id": desk.slots[0]}
    first = desk.agent.call("hold_slot", hold, "same")
    again = desk.agent.call("hold_slot", hold, "same")
    assert first == again
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_holds") == 1
    other = desk.agent.call("hold_slot", hold | {"slot_id": desk.slots[1]}, "same")
    assert other["code"] == "idempotency_key_reused"
    pid = int(
        desk.ok("propose", "p", patient_id=desk.patient, action="book", slot_id=desk.slots[0])[
            "proposal_id"
        ]
    )
    desk.approve(pid, 1)
    assert desk.confirm(pid, 1, "c") == desk.confirm(pid, 1, "c")
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_appointments") == 1
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_external_bookings") == 1


def test_a_write_without_a_key_or_with_bad_arguments_is_refused_by_name(desk: Desk) -> None:
    assert (
        desk.agent.call("hold_slot", {"patient_id": desk.patient, "slot_id": "x"})["code"]
        == "idempotency_key_missing"
    )
    assert desk.agent.call("drop_tables", {})["code"] == "unknown_tool"
    bad = desk.agent.call("hold_slot", {"patient": desk.patient}, "k")
    assert bad["code"] == "bad_arguments" and "patient" in bad["message"]
    missing = desk.agent.call("hold_slot", {"patient_id": desk.patient, "slot_id": "nope"}, "k2")
    assert missing["code"] == "no_such_slot" and "nope" in missing["message"]


def test_an_expired_lease_cannot_be_booked(desk: Desk) -> None:
    setting(desk.conn, connector="lease_expiry", lease_minutes=2)
    pid = desk.proposal()
    for _ in range(3):  # the clock moves a minute a request
        desk.ok("list_slots")
    desk.approve(pid, 1)
    answer = desk.confirm(pid, 1)
    assert answer["code"] == "lease_expired"
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_appointments") == 0
    desk.ok("hold_slot", desk.key(), patient_id=desk.patient, slot_id=desk.slots[0])
    assert desk.confirm(pid, 1)["status"] == "ok"


def test_an_unknown_outcome_reconciled_by_its_key_books_once_and_a_blind_retry_twice(
    desk: Desk,
) -> None:
    setting(desk.conn, connector="timeout_applied", connector_timeouts=1)
    pid = desk.proposal()
    desk.approve(pid, 1)
    lost = desk.confirm(pid, 1, "c1")
    assert lost["status"] == "unknown"
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_appointments") == 0
    seen = desk.ok("lookup_external", proposal_id=pid)["external_bookings"]
    assert [b["status"] for b in seen] == ["booked"]  # it happened there
    assert desk.confirm(pid, 1, "c1")["status"] == "ok"  # the same key: reconciled
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_external_bookings") == 1
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_appointments") == 1
    # The unknown answer stays in the trace.
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_requests WHERE status = 'unknown'") == 1


def test_a_blind_retry_after_an_unknown_outcome_books_twice_externally(desk: Desk) -> None:
    setting(desk.conn, connector="timeout_applied", connector_timeouts=1)
    pid = desk.proposal()
    desk.approve(pid, 1)
    assert desk.confirm(pid, 1, "c1")["status"] == "unknown"
    assert desk.confirm(pid, 1, "c2")["status"] == "ok"  # a new key: a new external write
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_external_bookings") == 2


def test_a_lost_write_is_made_by_the_retry(desk: Desk) -> None:
    setting(desk.conn, connector="timeout_lost", connector_timeouts=1)
    pid = desk.proposal()
    desk.approve(pid, 1)
    assert desk.confirm(pid, 1, "c1")["status"] == "unknown"
    assert desk.ok("lookup_external", proposal_id=pid)["external_bookings"] == []
    assert desk.confirm(pid, 1, "c1")["status"] == "ok"
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_external_bookings") == 1


def test_duplicate_confirmations_make_one_appointment(desk: Desk) -> None:
    setting(desk.conn, connector="duplicate_confirmation")
    pid = desk.proposal()
    desk.approve(pid, 1)
    assert desk.confirm(pid, 1)["status"] == "ok"
    desk.ok("list_slots")  # callbacks arrive with the next request
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_external_callbacks") == 2
    rows = desk.conn.execute("SELECT status, external_seq FROM sc_appointments").fetchall()
    assert rows == [("booked", 1)]


def test_out_of_order_callbacks_leave_a_cancellation_cancelled(desk: Desk) -> None:
    setting(desk.conn, connector="out_of_order")
    pid = desk.proposal()
    desk.approve(pid, 1)
    appointment = desk.confirm(pid, 1)["appointment_id"]
    cancel = desk.ok(
        "propose", desk.key(), patient_id=desk.patient, action="cancel", appointment_id=appointment
    )
    desk.approve(cancel["proposal_id"], 1)
    assert desk.confirm(cancel["proposal_id"], 1)["status"] == "ok"
    desk.ok("list_slots")
    events = [
        r[0] for r in desk.conn.execute("SELECT event FROM sc_external_callbacks ORDER BY id")
    ]
    assert events == ["booked", "cancelled", "booked"]  # the old confirmation arrived last
    status = desk.conn.execute("SELECT status FROM sc_appointments").fetchone()[0]
    assert status == "cancelled"


class Crash(Exception):
    pass


def test_a_crash_between_two_local_writes_leaves_neither_and_the_retry_books_once(
    desk: Desk,
) -> None:
    pid = desk.proposal()
    desk.approve(pid, 1)

    def crash(step: str) -> None:
        if step == "confirm:after-appointment":
            raise Crash(step)

    desk.agent.fault = crash
    with pytest.raises(Crash):
        desk.confirm(pid, 1, "c1")
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_appointments") == 0
    assert desk.conn.execute("SELECT status FROM sc_proposals").fetchone()[0] == "open"
    assert desk.conn.execute("SELECT status FROM sc_holds").fetchone()[0] == "active"
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_external_bookings") == 1
    desk.agent.fault = None
    assert desk.confirm(pid, 1, "c1")["status"] == "ok"
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_appointments") == 1
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_external_bookings") == 1


def test_a_reschedule_moves_the_appointment_and_cancels_the_old_booking_there(
    desk: Desk,
) -> None:
    pid = desk.proposal(0)
    desk.approve(pid, 1)
    old = desk.confirm(pid, 1)["appointment_id"]
    desk.ok("hold_slot", desk.key(), patient_id=desk.patient, slot_id=desk.slots[2])
    move = desk.ok(
        "propose",
        desk.key(),
        patient_id=desk.patient,
        action="reschedule",
        appointment_id=old,
        slot_id=desk.slots[2],
    )
    desk.approve(move["proposal_id"], 1)
    assert desk.confirm(move["proposal_id"], 1)["status"] == "ok"
    desk.ok("list_slots")
    rows = desk.conn.execute("SELECT slot_id, status FROM sc_appointments ORDER BY id").fetchall()
    assert rows == [(desk.slots[0], "cancelled"), (desk.slots[2], "booked")]
    external = desk.conn.execute(
        "SELECT slot_id, status FROM sc_external_bookings ORDER BY id"
    ).fetchall()
    assert external == [(desk.slots[0], "cancelled"), (desk.slots[2], "booked")]
    audit = [r[0] for r in desk.conn.execute("SELECT action FROM sc_audit ORDER BY id")]
    assert audit.count("confirm") == 2 and audit.count("approve") == 2


def test_callbacks_about_a_setup_booking_number_on_and_a_late_old_one_is_ignored(
    desk: Desk,
) -> None:
    from endstate.envs.systems.scheduling.prepare import prepare

    desk.conn.execute("BEGIN")
    prepare(
        desk.conn,
        {
            "connector": "out_of_order",
            "appointments": [{"patient_id": desk.patient, "slot_id": desk.slots[0]}],
        },
    )
    desk.conn.execute("COMMIT")
    cancel = desk.ok(
        "propose", desk.key(), patient_id=desk.patient, action="cancel", appointment_id=1
    )
    desk.approve(cancel["proposal_id"], 1)
    assert desk.confirm(cancel["proposal_id"], 1)["status"] == "ok"
    desk.ok("list_slots")
    # The cancellation is seq 2 and applies; the redelivered confirmation (seq 1) does not.
    row = desk.conn.execute("SELECT status, external_seq FROM sc_appointments").fetchone()
    assert row == ("cancelled", 2)


def test_a_callback_about_an_unknown_outcome_waits_for_its_appointment(desk: Desk) -> None:
    setting(desk.conn, connector="timeout_applied", connector_timeouts=1)
    pid = desk.proposal()
    desk.approve(pid, 1)
    assert desk.confirm(pid, 1, "c1")["status"] == "unknown"
    desk.ok("list_slots")  # the confirmation arrives before the service knows the booking
    assert desk.confirm(pid, 1, "c1")["status"] == "ok"
    desk.ok("list_slots")
    row = desk.conn.execute("SELECT status, external_seq FROM sc_appointments").fetchone()
    assert row == ("booked", 1)


def test_a_repeated_confirmation_shows_as_two_confirmations_of_one_appointment(
    desk: Desk,
) -> None:
    setting(desk.conn, connector="duplicate_confirmation")
    pid = desk.proposal()
    desk.approve(pid, 1)
    desk.confirm(pid, 1)
    listed = desk.ok("list_appointments", patient_id=desk.patient)["appointments"]
    assert [(a["status"], a["confirmations"]) for a in listed] == [("booked", 2)]


def test_a_message_about_a_confirmed_booking_can_still_be_approved(desk: Desk) -> None:
    pid = desk.proposal()
    desk.approve(pid, 1)
    assert desk.confirm(pid, 1)["status"] == "ok"
    desk.approve(pid, 1, "communication", channel="email", body="See you then.")
    sent = desk.agent.call(
        "send_communication",
        {"proposal_id": pid, "revision": 1, "channel": "email", "body": "See you then."},
        "s",
    )
    assert sent["status"] == "ok"
    late_booking_approval = desk.user.call(
        "approve", {"proposal_id": pid, "revision": 1, "kind": "booking"}, "again"
    )
    assert late_booking_approval["code"] == "proposal_closed"


def test_the_scripted_user_never_approves_against_its_goal_and_never_invents(desk: Desk) -> None:
    from endstate.envs.systems.scheduling.prepare import prepare
    from endstate.envs.systems.scheduling.user import NOT_MINE, UNKNOWN_FACT, ScriptedUser

    desk.conn.execute("BEGIN")
    prepare(
        desk.conn,
        {
            "user": {
                "patient_id": desk.patient,
                "goal": {"action": "book", "slot_id": desk.slots[1]},
                "facts": {"date of birth": "1956-03-08"},
            }
        },
    )
    desk.conn.execute("COMMIT")
    user = ScriptedUser(desk.conn)
    wrong = desk.proposal(0)  # a slot it did not ask for
    review = user.exchange(
        "request_approval", {"proposal_id": wrong, "revision": 1, "kind": "booking"}
    )
    assert review == {"status": "ok", "approved": False, "reply": NOT_MINE}
    assert user.exchange("message_user", {"text": "What is your date of birth?"})["reply"] == (
        "My date of birth is 1956-03-08."
    )
    assert (
        user.exchange("message_user", {"text": "What is your insurance member ID?"})["reply"]
        == UNKNOWN_FACT
    )
    assert count(desk.conn, "SELECT COUNT(*) FROM sc_approvals") == 0
    spoken = [r[0] for r in desk.conn.execute("SELECT speaker FROM sc_conversation ORDER BY id")]
    assert spoken == ["agent", "user"] * 3
