"""A case's initial snapshot, applied to a fresh episode (`System.prepare`).

connector: ok | timeout_applied | timeout_lost | duplicate_confirmation | out_of_order
           | lease_expiry
lease_minutes, step_seconds: integers (lease_expiry shortens the lease to 3 minutes)
appointments: [{patient_id, slot_id}]   booked here and on the external system
user: the scripted user (docs/scheduling-lab.md)
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from endstate.envs.suite.registry import EpisodeSetupError
from endstate.envs.systems.scheduling.connector import Behaviour

FIELDS = ("connector", "lease_minutes", "step_seconds", "appointments", "user")
USER_FIELDS = (
    "patient_id",
    "goal",
    "corrections",
    "facts",
    "approve_communication",
    "acknowledge",
    "approve_reply",
    "approve_then_correct",
)


def _where(field: str) -> str:
    return f"scheduling setup field {field!r}"


def _positive(part: dict[str, Any], field: str) -> int | None:
    value = part.get(field)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise EpisodeSetupError(f"{_where(field)}: a positive integer, got {value!r}")
    return value


def _exists(conn: sqlite3.Connection, table: str, value: Any, field: str) -> None:
    if conn.execute(f"SELECT 1 FROM {table} WHERE id = ?", (value,)).fetchone() is None:
        raise EpisodeSetupError(f"{_where(field)}: no such id {value!r}")


def prepare(conn: sqlite3.Connection, part: dict[str, Any]) -> None:
    unknown = sorted(set(part) - set(FIELDS))
    if unknown:
        raise EpisodeSetupError(f"{_where(unknown[0])}: unknown; known: {', '.join(FIELDS)}")
    try:
        behaviour = Behaviour(part.get("connector", "ok"))
    except ValueError:
        raise EpisodeSetupError(
            f"{_where('connector')}: {part['connector']!r} is not one of "
            f"{', '.join(b.value for b in Behaviour)}"
        ) from None
    settings: dict[str, str] = {"connector": behaviour.value}
    if behaviour in (Behaviour.TIMEOUT_APPLIED, Behaviour.TIMEOUT_LOST):
        settings["connector_timeouts"] = "1"
    lease = _positive(part, "lease_minutes")
    if lease is None and behaviour is Behaviour.LEASE_EXPIRY:
        lease = 3
    if lease is not None:
        settings["lease_minutes"] = str(lease)
    step = _positive(part, "step_seconds")
    if step is not None:
        settings["step_seconds"] = str(step)
    settings |= _user(conn, part.get("user"))
    conn.executemany(
        "INSERT OR REPLACE INTO sc_settings (key, value) VALUES (?, ?)", settings.items()
    )
    _appointments(conn, part.get("appointments", []))


def _user(conn: sqlite3.Connection, user: Any) -> dict[str, str]:
    if user is None:
        return {}
    if not isinstance(user, dict):
        raise EpisodeSetupError(f"{_where('user')}: an object")
    unknown = sorted(set(user) - set(USER_FIELDS))
    if unknown:
        raise EpisodeSetupError(f"{_where('user.' + unknown[0])}: unknown")
    _exists(conn, "sc_patients", user.get("patient_id"), "user.patient_id")
    goal = user.get("goal")
    if not isinstance(goal, dict) or goal.get("action") not in (
        "book",
        "reschedule",
        "cancel",
        "none",
    ):
        raise EpisodeSetupError(
            f"{_where('user.goal')}: an object with action book, reschedule, cancel or none"
        )
    if goal.get("slot_id") is not None:
        _exists(conn, "sc_slots", goal["slot_id"], "user.goal.slot_id")
    for field in ("corrections", "approve_then_correct"):
        for slot in user.get(field, {}):
            _exists(conn, "sc_slots", slot, f"user.{field}.{slot}")
    return {"user": json.dumps(user, sort_keys=True)}


def _appointments(conn: sqlite3.Connection, rows: Any) -> None:
    if not isinstance(rows, list):
        raise EpisodeSetupError(f"{_where('appointments')}: a list")
    for n, row in enumerate(rows, 1):
        if not isinstance(row, dict) or set(row) != {"patient_id", "slot_id"}:
            raise EpisodeSetupError(
                f"{_where('appointments')}[{n - 1}]: an object with patient_id and slot_id"
            )
        _exists(conn, "sc_patients", row["patient_id"], f"appointments[{n - 1}].patient_id")
        _exists(conn, "sc_slots", row["slot_id"], f"appointments[{n - 1}].slot_id")
        external_id = f"EXT-S{n:04d}"
        conn.execute(
            "INSERT INTO sc_external_bookings "
            "(external_id, patient_id, slot_id, status, connector_key, at) "
            "VALUES (?, ?, ?, 'booked', ?, (SELECT value FROM sc_settings WHERE key = 'now'))",
            (external_id, row["patient_id"], row["slot_id"], f"setup:{n}"),
        )
        conn.execute(
            "INSERT INTO sc_appointments (id, patient_id, slot_id, status, external_id, "
            "external_seq, request_id) VALUES (?, ?, ?, 'booked', ?, 1, 0)",
            (n, row["patient_id"], row["slot_id"], external_id),
        )
        # Its confirmation came in long ago: later callbacks about it number on from 2.
        conn.execute(
            "INSERT INTO sc_external_callbacks (external_id, seq, event, delivered) "
            "VALUES (?, 1, 'booked', 1)",
            (external_id,),
        )
