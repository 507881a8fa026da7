"""Every request to the scheduling service is in its trace, the ones refused before they ran
included: an unknown tool, arguments the tool's schema does not allow, a missing or malformed
idempotency key, a key replayed with other arguments, a revision that changes nothing. Each is
recorded with its actor, its (minimised, bounded) arguments and its refusal code."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from endstate.envs.systems.scheduling.directory import seed_directory
from endstate.envs.systems.scheduling.schema import DDL
from endstate.envs.systems.scheduling.service import (
    ARGUMENT_BYTES,
    SchedulingService,
    minimised,
)
from endstate.envs.systems.scheduling.surface import admit, violations
from endstate.envs.systems.scheduling.tools import TOOLS


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(tmp_path / "episode.sqlite", isolation_level=None)
    db.executescript(DDL)
    db.execute("BEGIN")
    seed_directory(db, 7, "2026-08-25T18:00:00")
    db.execute("COMMIT")
    yield db
    db.close()


def rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    found = conn.execute(
        "SELECT tool, idempotency_key, arguments, status, result, actor FROM sc_requests "
        "ORDER BY id"
    ).fetchall()
    return [
        {
            "tool": t,
            "key": k,
            "arguments": json.loads(a),
            "status": s,
            "code": json.loads(r).get("code"),
            "actor": actor,
        }
        for t, k, a, s, r, actor in found
    ]


def ids(conn: sqlite3.Connection) -> tuple[str, list[str]]:
    patient = conn.execute("SELECT id FROM sc_patients ORDER BY id").fetchone()[0]
    slots = [r[0] for r in conn.execute("SELECT id FROM sc_slots ORDER BY id LIMIT 2")]
    return patient, slots


@pytest.mark.parametrize(
    ("tool", "arguments", "key", "code"),
    [
        ("nope", {"x": 1}, None, "unknown_tool"),
        ("approve", {"proposal_id": 1, "revision": 1, "kind": "booking"}, "k", "not_authorized"),
        ("find_patient", {}, None, "bad_arguments"),  # missing
        ("find_patient", {"name": "a", "dob": "1950-01-01"}, None, "bad_arguments"),  # extra
        ("get_proposal", {"proposal_id": "1"}, None, "bad_arguments"),  # a string for an integer
        ("get_proposal", {"proposal_id": True}, None, "bad_arguments"),  # a boolean is no integer
        ("propose", {"patient_id": "SP0001", "action": "move"}, "k", "bad_arguments"),  # enum
        ("hold_slot", {"patient_id": "SP0001", "slot_id": "S"}, None, "idempotency_key_missing"),
        (
            "hold_slot",
            {"patient_id": "SP0001", "slot_id": "S"},
            "k" * 201,
            "idempotency_key_invalid",
        ),
        ("hold_slot", {"patient_id": "SP0001", "slot_id": "S"}, 7, "idempotency_key_invalid"),
        (
            "request_approval",
            {"proposal_id": 1, "revision": 1, "kind": "communication"},
            None,
            "bad_arguments",
        ),  # a communication approval names its channel and body
        ("message_user", {"text": 3}, None, "bad_arguments"),
    ],
)
def test_a_request_refused_at_the_gate_is_recorded_with_its_code(
    conn: sqlite3.Connection, tool: str, arguments: dict[str, Any], key: Any, code: str
) -> None:
    agent = SchedulingService(conn)
    # The user's tools are answered by the user, not the service: the gate still applies.
    answer = agent.call(tool, arguments, key)
    assert (answer["status"], answer["code"]) == ("refused", code), answer
    (row,) = rows(conn)
    assert (row["tool"], row["actor"], row["status"], row["code"]) == (
        tool,
        "agent",
        "refused",
        code,
    )
    assert row["arguments"] == minimised(arguments)  # a date of birth only as a hash
    # A refused key is kept, marked, so it never replays as the request it names.
    assert row["key"] is None if key is None else str(row["key"]).startswith(f"{str(key)[:200]}#")


def test_a_replayed_key_with_other_arguments_is_refused_and_recorded(
    conn: sqlite3.Connection,
) -> None:
    agent = SchedulingService(conn)
    patient, (first, second) = ids(conn)
    assert agent.call("hold_slot", {"patient_id": patient, "slot_id": first}, "h")["status"] == "ok"
    reused = agent.call("hold_slot", {"patient_id": patient, "slot_id": second}, "h")
    assert reused["code"] == "idempotency_key_reused"
    again = agent.call("hold_slot", {"patient_id": patient, "slot_id": first}, "h")
    assert again["status"] == "ok" and again["hold_id"] == 1  # the true replay still replays
    got = [(r["tool"], r["code"], r["arguments"].get("slot_id")) for r in rows(conn)]
    assert got == [("hold_slot", None, first), ("hold_slot", "idempotency_key_reused", second)]


def test_arguments_are_kept_bounded_and_minimised(conn: sqlite3.Connection) -> None:
    agent = SchedulingService(conn)
    agent.call("message_user", {"text": "x" * 5000, "phone": "555-0100"}, None)
    agent.call("find_patient", {"name": "Chen", "dob": "1956-03-08"}, None)
    big, small = rows(conn)
    assert big["arguments"]["_truncated"] is True and big["arguments"]["_bytes"] > 5000
    stored = conn.execute("SELECT arguments FROM sc_requests WHERE id = 1").fetchone()[0]
    assert len(stored.encode()) <= ARGUMENT_BYTES and "555-0100" not in stored
    assert small["arguments"]["name"] == "Chen"
    assert str(small["arguments"]["dob"]).startswith("sha256:")


def test_a_revision_must_change_the_slot(conn: sqlite3.Connection) -> None:
    agent = SchedulingService(conn)
    patient, (first, second) = ids(conn)
    made = agent.call("propose", {"patient_id": patient, "action": "book", "slot_id": first}, "p")
    pid = made["proposal_id"]
    same = agent.call("revise", {"proposal_id": pid, "slot_id": first}, "r1")
    assert same["code"] == "revision_unchanged"
    moved = agent.call("revise", {"proposal_id": pid, "slot_id": second}, "r2")
    assert moved["revision"] == 2
    back = agent.call("revise", {"proposal_id": pid, "slot_id": second}, "r3")
    assert back["code"] == "revision_unchanged"
    assert [r["code"] for r in rows(conn)] == [
        None,
        "revision_unchanged",
        None,
        "revision_unchanged",
    ]


def test_the_validator_names_the_field_and_the_value() -> None:
    schema = {t.name: t.parameters for t in TOOLS}["send_communication"]
    said = violations(schema, {"proposal_id": 1.5, "revision": 1, "channel": "fax", "x": 1})
    assert said == [
        "arguments.body: missing (required)",
        "arguments.channel: 'fax' is not one of sms, email, portal",
        "arguments.proposal_id: expected integer, got number 1.5",
        "arguments.x: not an argument of this tool",
    ]
    assert violations(schema, [1]) == ["arguments: expected object, got array [1]"]
    ok = {"proposal_id": 1, "revision": 1, "channel": "sms", "body": "Hi"}
    assert violations(schema, ok) == [] and admit("send_communication", ok, "k") is None
