"""The connector to the external scheduling system, and that system's own records.

Each case declares how the external system behaves (`Behaviour`). Its records live in the
episode database under `sc_external_*` but are written in their own transactions: what the
external system did stays done when the service's own write fails afterwards, exactly the
split that makes an unknown outcome dangerous.
"""

from __future__ import annotations

import sqlite3
from enum import StrEnum


class Behaviour(StrEnum):
    """How the external system answers (a case's `connector`)."""

    OK = "ok"
    TIMEOUT_APPLIED = "timeout_applied"  # the first booking is made, the answer is lost
    TIMEOUT_LOST = "timeout_lost"  # the first booking is not made, the answer is lost
    DUPLICATE_CONFIRMATION = "duplicate_confirmation"  # every confirmation arrives twice
    OUT_OF_ORDER = "out_of_order"  # a change's callbacks arrive newest first
    LEASE_EXPIRY = "lease_expiry"  # holds lapse after a few requests


class ConnectorTimeout(Exception):
    """The external system did not answer: the write may or may not have happened."""


class Connector:
    """Books and cancels on the external system, deduplicating by connector key there."""

    def __init__(self, conn: sqlite3.Connection, behaviour: Behaviour, at: str) -> None:
        self.conn = conn
        self.behaviour = behaviour
        self.at = at

    def _timeouts_left(self) -> int:
        row = self.conn.execute(
            "SELECT value FROM sc_settings WHERE key = 'connector_timeouts'"
        ).fetchone()
        return int(row[0]) if row else 0

    def _spend_timeout(self) -> None:
        self.conn.execute(
            "UPDATE sc_settings SET value = CAST(value AS INTEGER) - 1 "
            "WHERE key = 'connector_timeouts'"
        )

    def book(self, patient_id: str, slot_id: str, key: str) -> str:
        """The external booking id for `key`: made now, or found if `key` already booked."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            external_id = self._book(patient_id, slot_id, key)
        except ConnectorTimeout:
            self.conn.execute("COMMIT")
            raise
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")
        return external_id

    def _book(self, patient_id: str, slot_id: str, key: str) -> str:
        found = self.conn.execute(
            "SELECT external_id FROM sc_external_bookings WHERE connector_key = ?", (key,)
        ).fetchone()
        if found is not None:
            return str(found[0])
        timing_out = self.behaviour in (Behaviour.TIMEOUT_APPLIED, Behaviour.TIMEOUT_LOST) and (
            self._timeouts_left() > 0
        )
        if timing_out:
            self._spend_timeout()
            if self.behaviour is Behaviour.TIMEOUT_LOST:
                raise ConnectorTimeout("the external scheduling system did not answer")
        count = self.conn.execute("SELECT COUNT(*) FROM sc_external_bookings").fetchone()[0]
        external_id = f"EXT-{count + 1:05d}"
        self.conn.execute(
            "INSERT INTO sc_external_bookings "
            "(external_id, patient_id, slot_id, status, connector_key, at) "
            "VALUES (?, ?, ?, 'booked', ?, ?)",
            (external_id, patient_id, slot_id, key, self.at),
        )
        self._callbacks(external_id, ["booked"])
        if timing_out:
            raise ConnectorTimeout("the external scheduling system did not answer")
        return external_id

    def cancel(self, external_id: str) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self.conn.execute(
                "UPDATE sc_external_bookings SET status = 'cancelled' WHERE external_id = ?",
                (external_id,),
            )
            # Out of order: the booking's confirmation is redelivered after the cancellation.
            events = ["cancelled", "booked"] if self.behaviour is Behaviour.OUT_OF_ORDER else []
            self._callbacks(external_id, events or ["cancelled"], resend_stale=bool(events))
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def _callbacks(self, external_id: str, events: list[str], resend_stale: bool = False) -> None:
        """Queue the callbacks the external system sends about `external_id`."""
        last = self.conn.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM sc_external_callbacks WHERE external_id = ?",
            (external_id,),
        ).fetchone()[0]
        queued: list[tuple[int, str]] = []
        for event in events:
            if resend_stale and event == "booked":
                queued.append((1, event))  # the original confirmation, arriving late
            else:
                last += 1
                queued.append((last, event))
        if self.behaviour is Behaviour.DUPLICATE_CONFIRMATION:
            queued = [q for q in queued for _ in (0, 1)]
        self.conn.executemany(
            "INSERT INTO sc_external_callbacks (external_id, seq, event) VALUES (?, ?, ?)",
            [(external_id, seq, event) for seq, event in queued],
        )
