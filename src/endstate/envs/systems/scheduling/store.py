"""What every request of the scheduling service shares: the episode's connection, who is
asking, the episode clock, the audit log and the lookups that refuse with a reason."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from endstate.envs.systems.scheduling.connector import Behaviour


def body_sha256(body: str) -> str:
    """The hash a communication approval keeps of the exact body it approved."""
    return hashlib.sha256(body.encode()).hexdigest()


class Refused(Exception):
    """A request the service will not carry out: `code` says which rule, `message` why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Store:
    """One episode's scheduling tables, as one actor (`agent` or `user`) sees them."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        actor: str = "agent",
        fault: Callable[[str], None] | None = None,
    ) -> None:
        self.conn = conn
        self.actor = actor
        # A test hook called between a request's local writes: raising there is a crash.
        self.fault = fault

    # -- settings and the clock -------------------------------------------------------------
    def setting(self, key: str, default: str = "") -> str:
        row = self.conn.execute("SELECT value FROM sc_settings WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else default

    def now(self) -> str:
        return self.setting("now")

    @property
    def behaviour(self) -> Behaviour:
        return Behaviour(self.setting("connector", Behaviour.OK.value))

    def _tick(self) -> str:
        """Every request moves the episode clock on by `step_seconds`: leases can lapse."""
        step = int(self.setting("step_seconds", "60"))
        later = datetime.fromisoformat(self.now()) + timedelta(seconds=step)
        stamp = later.isoformat(timespec="seconds")
        self.conn.execute("UPDATE sc_settings SET value = ? WHERE key = 'now'", (stamp,))
        return stamp

    @contextmanager
    def transaction(self, tick: bool = True) -> Iterator[str]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self._tick() if tick else self.now()
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def step(self, name: str) -> None:
        """A point between two local writes, where a fault can be injected."""
        if self.fault is not None:
            self.fault(name)

    def request_id(self) -> int:
        """The id the current request's record will take (it is written last)."""
        row = self.conn.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM sc_requests").fetchone()
        return int(row[0])

    def audit(self, action: str, at: str, **ids: int | None) -> None:
        self.conn.execute(
            "INSERT INTO sc_audit (request_id, actor, action, proposal_id, revision, "
            "approval_id, appointment_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.request_id(),
                self.actor,
                action,
                ids.get("proposal_id"),
                ids.get("revision"),
                ids.get("approval_id"),
                ids.get("appointment_id"),
                at,
            ),
        )

    # -- lookups that refuse ----------------------------------------------------------------
    def proposal(self, proposal_id: int) -> dict[str, Any]:
        row = self.conn.execute(
            "SELECT id, patient_id, action, appointment_id, status FROM sc_proposals WHERE id = ?",
            (proposal_id,),
        ).fetchone()
        if row is None:
            raise Refused("no_such_proposal", f"no proposal {proposal_id}")
        keys = ("proposal_id", "patient_id", "action", "appointment_id", "status")
        return dict(zip(keys, row, strict=True))

    def latest(self, proposal_id: int) -> dict[str, Any]:
        row = self.conn.execute(
            "SELECT revision, slot_id FROM sc_revisions WHERE proposal_id = ? "
            "ORDER BY revision DESC LIMIT 1",
            (proposal_id,),
        ).fetchone()
        return {"revision": row[0], "slot_id": row[1]}

    def require_latest(self, proposal_id: int, revision: int) -> dict[str, Any]:
        latest = self.latest(proposal_id)
        if revision != latest["revision"]:
            raise Refused(
                "stale_revision",
                f"proposal {proposal_id} is at revision {latest['revision']}, not {revision}",
            )
        return latest

    def approval(
        self, proposal_id: int, revision: int, kind: str, channel: str = "", digest: str = ""
    ) -> int | None:
        """The approval of a revision; a communication one for one channel and body hash."""
        row = self.conn.execute(
            "SELECT id FROM sc_approvals WHERE proposal_id = ? AND revision = ? AND kind = ? "
            "AND channel = ? AND body_sha256 = ?",
            (proposal_id, revision, kind, channel, digest),
        ).fetchone()
        return int(row[0]) if row else None

    def patient(self, patient_id: str) -> None:
        found = self.conn.execute("SELECT 1 FROM sc_patients WHERE id = ?", (patient_id,))
        if found.fetchone() is None:
            raise Refused("no_such_patient", f"no patient {patient_id!r}")

    def slot(self, slot_id: str) -> None:
        if self.conn.execute("SELECT 1 FROM sc_slots WHERE id = ?", (slot_id,)).fetchone() is None:
            raise Refused("no_such_slot", f"no slot {slot_id!r}")

    def booked_appointment(self, appointment_id: int, patient_id: str) -> dict[str, Any]:
        row = self.conn.execute(
            "SELECT id, slot_id, status, external_id FROM sc_appointments "
            "WHERE id = ? AND patient_id = ?",
            (appointment_id, patient_id),
        ).fetchone()
        if row is None or row[2] != "booked":
            raise Refused(
                "no_such_appointment",
                f"patient {patient_id} has no booked appointment {appointment_id}",
            )
        return {"appointment_id": row[0], "slot_id": row[1], "external_id": row[3]}

    def slot_booked(self, slot_id: str) -> bool:
        row = self.conn.execute(
            "SELECT 1 FROM sc_appointments WHERE slot_id = ? AND status = 'booked'", (slot_id,)
        ).fetchone()
        return row is not None
