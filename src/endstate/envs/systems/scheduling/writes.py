"""The scheduling service's writes and the rules each one keeps.

A write that reaches the external system (`confirm`) runs in two local transactions around
the connector call: the checks first, then the local record of what the external system
did. The record names the request, proposal, revision and approval that caused it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from endstate.envs.systems.scheduling.connector import Connector
from endstate.envs.systems.scheduling.store import Refused, Store, body_sha256

ACTIONS = ("book", "reschedule", "cancel")
APPROVAL_KINDS = ("booking", "communication")
CHANNELS = ("sms", "email", "portal")


@dataclass(frozen=True)
class External:
    """A write's second half: call the connector, then apply its answer locally."""

    call: Callable[[], str]  # the connector call; returns the external booking id
    apply: Callable[[str, str], dict[str, Any]]  # (external id, clock) -> the answer


class Writes(Store):
    def hold_slot(self, *, at: str, patient_id: str, slot_id: str) -> dict[str, Any]:
        self.patient(patient_id)
        self.slot(slot_id)
        if self.slot_booked(slot_id):
            raise Refused("slot_taken", f"slot {slot_id} is booked")
        other = self.conn.execute(
            "SELECT 1 FROM sc_holds WHERE slot_id = ? AND patient_id != ? "
            "AND status = 'active' AND lease_expires_at > ?",
            (slot_id, patient_id, at),
        ).fetchone()
        if other is not None:
            raise Refused("slot_taken", f"slot {slot_id} is held for another patient")
        minutes = int(self.setting("lease_minutes", "15"))
        expires = (datetime.fromisoformat(at) + timedelta(minutes=minutes)).isoformat()
        cur = self.conn.execute(
            "INSERT INTO sc_holds (slot_id, patient_id, lease_expires_at, status, request_id) "
            "VALUES (?, ?, ?, 'active', ?)",
            (slot_id, patient_id, expires, self.request_id()),
        )
        self.audit("hold_slot", at)
        return {"hold_id": cur.lastrowid, "lease_expires_at": expires}

    def propose(
        self,
        *,
        at: str,
        patient_id: str,
        action: str,
        slot_id: str = "",
        appointment_id: int | None = None,
        note: str = "",
    ) -> dict[str, Any]:
        self.patient(patient_id)
        if action not in ACTIONS:
            raise Refused("bad_arguments", f"action must be one of {', '.join(ACTIONS)}")
        if action != "cancel":
            self.slot(slot_id)
        if action != "book":
            if appointment_id is None:
                raise Refused("bad_arguments", f"a {action} names the appointment_id")
            self.booked_appointment(appointment_id, patient_id)
        cur = self.conn.execute(
            "INSERT INTO sc_proposals (patient_id, action, appointment_id, status, request_id) "
            "VALUES (?, ?, ?, 'open', ?)",
            (patient_id, action, appointment_id, self.request_id()),
        )
        proposal_id = int(cur.lastrowid or 0)
        self._revision(proposal_id, 1, slot_id or None, note)
        self.audit("propose", at, proposal_id=proposal_id, revision=1)
        return {"proposal_id": proposal_id, "revision": 1}

    def revise(self, *, at: str, proposal_id: int, slot_id: str, note: str = "") -> dict[str, Any]:
        proposal = self._open(proposal_id)
        if proposal["action"] == "cancel":
            raise Refused("bad_arguments", "a cancellation has no slot to revise")
        self.slot(slot_id)
        latest = self.latest(proposal_id)
        if latest["slot_id"] == slot_id:
            raise Refused(
                "revision_unchanged",
                f"revision {latest['revision']} of proposal {proposal_id} already has slot "
                f"{slot_id}: a revision must change the slot",
            )
        revision = int(latest["revision"]) + 1
        self._revision(proposal_id, revision, slot_id, note)
        self.audit("revise", at, proposal_id=proposal_id, revision=revision)
        return {"proposal_id": proposal_id, "revision": revision}

    def approve(
        self,
        *,
        at: str,
        proposal_id: int,
        revision: int,
        kind: str,
        channel: str = "",
        body: str = "",
    ) -> dict[str, Any]:
        """The user's approval; a communication one binds the channel and the body's hash."""
        if self.actor != "user":
            raise Refused("not_authorized", "only the user approves a proposal")
        if kind not in APPROVAL_KINDS:
            raise Refused("bad_arguments", f"kind must be one of {', '.join(APPROVAL_KINDS)}")
        if kind == "booking":
            self._open(proposal_id)
        else:  # a message about a booking is approved before or after it is confirmed
            self.proposal(proposal_id)
            if channel not in CHANNELS or not body.strip():
                raise Refused("bad_arguments", "a communication approval names channel and body")
        self.require_latest(proposal_id, revision)
        digest = body_sha256(body) if kind == "communication" else ""
        if self.approval(proposal_id, revision, kind, channel, digest) is not None:
            raise Refused("already_approved", f"revision {revision} already has this approval")
        cur = self.conn.execute(
            "INSERT INTO sc_approvals (proposal_id, revision, kind, channel, body_sha256, actor,"
            " request_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (proposal_id, revision, kind, channel, digest, self.actor, self.request_id(), at),
        )
        approval_id = int(cur.lastrowid or 0)
        self.audit(
            "approve", at, proposal_id=proposal_id, revision=revision, approval_id=approval_id
        )
        return {"approval_id": approval_id}

    def confirm(self, *, at: str, proposal_id: int, revision: int, key: str) -> External:
        proposal = self._open(proposal_id)
        latest = self.require_latest(proposal_id, revision)
        approval_id = self.approval(proposal_id, revision, "booking")
        if approval_id is None:
            raise Refused("not_approved", f"revision {revision} has no booking approval")
        if proposal["action"] == "cancel":
            old = self.booked_appointment(proposal["appointment_id"], proposal["patient_id"])
            return External(
                call=lambda: self._cancel_external(old["external_id"]),
                apply=lambda _ext, now: self._cancelled(proposal, revision, approval_id, now),
            )
        slot_id = str(latest["slot_id"])
        hold_id = self._live_hold(proposal["patient_id"], slot_id, at)
        if self.slot_booked(slot_id):
            raise Refused("slot_taken", f"slot {slot_id} is booked")
        connector = Connector(self.conn, self.behaviour, at)
        old_external = None
        if proposal["action"] == "reschedule":
            old = self.booked_appointment(proposal["appointment_id"], proposal["patient_id"])
            old_external = old["external_id"]

        def book() -> str:
            external_id = connector.book(proposal["patient_id"], slot_id, key)
            if old_external:
                connector.cancel(old_external)
            return external_id

        return External(
            call=book,
            apply=lambda ext, now: self._booked(
                proposal, revision, approval_id, hold_id, slot_id, ext, now
            ),
        )

    def send_communication(
        self, *, at: str, proposal_id: int, revision: int, channel: str, body: str
    ) -> dict[str, Any]:
        proposal = self.proposal(proposal_id)
        self.require_latest(proposal_id, revision)
        if channel not in CHANNELS:
            raise Refused("bad_arguments", f"channel must be one of {', '.join(CHANNELS)}")
        if not body.strip():
            raise Refused("bad_arguments", "body is empty")
        approval_id = self.approval(
            proposal_id, revision, "communication", channel, body_sha256(body)
        )
        if approval_id is None:
            raise Refused(
                "communication_not_approved",
                f"revision {revision} of proposal {proposal_id} has no communication approval "
                f"for this {channel} message (the user approves one exact channel and body)",
            )
        cur = self.conn.execute(
            "INSERT INTO sc_communications (patient_id, proposal_id, revision, channel, body, "
            "approval_id, request_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                proposal["patient_id"],
                proposal_id,
                revision,
                channel,
                body,
                approval_id,
                self.request_id(),
                at,
            ),
        )
        self.audit(
            "send_communication",
            at,
            proposal_id=proposal_id,
            revision=revision,
            approval_id=approval_id,
        )
        return {"communication_id": cur.lastrowid}

    # -- parts ------------------------------------------------------------------------------
    def _open(self, proposal_id: int) -> dict[str, Any]:
        proposal = self.proposal(proposal_id)
        if proposal["status"] != "open":
            raise Refused("proposal_closed", f"proposal {proposal_id} is {proposal['status']}")
        return proposal

    def _revision(self, proposal_id: int, revision: int, slot_id: str | None, note: str) -> None:
        """A revision without a note records none (null), not a blank one."""
        self.conn.execute(
            "INSERT INTO sc_revisions (proposal_id, revision, slot_id, note, request_id) "
            "VALUES (?, ?, ?, ?, ?)",
            (proposal_id, revision, slot_id, note if note.strip() else None, self.request_id()),
        )

    def _live_hold(self, patient_id: str, slot_id: str, at: str) -> int:
        holds = self.conn.execute(
            "SELECT id, lease_expires_at FROM sc_holds WHERE patient_id = ? AND slot_id = ? "
            "AND status = 'active' ORDER BY id DESC",
            (patient_id, slot_id),
        ).fetchall()
        for hold_id, expires in holds:
            if expires > at:
                return int(hold_id)
        if holds:
            raise Refused("lease_expired", f"the hold on slot {slot_id} has expired")
        raise Refused("no_hold", f"slot {slot_id} is not held for patient {patient_id}")

    def _cancel_external(self, external_id: str | None) -> str:
        if external_id:
            Connector(self.conn, self.behaviour, self.now()).cancel(external_id)
        return external_id or ""

    def _booked(
        self,
        proposal: dict[str, Any],
        revision: int,
        approval_id: int,
        hold_id: int,
        slot_id: str,
        external_id: str,
        at: str,
    ) -> dict[str, Any]:
        proposal_id = proposal["proposal_id"]
        cur = self.conn.execute(
            "INSERT INTO sc_appointments (patient_id, slot_id, status, external_id, proposal_id,"
            " revision, request_id) VALUES (?, ?, 'booked', ?, ?, ?, ?)",
            (
                proposal["patient_id"],
                slot_id,
                external_id,
                proposal_id,
                revision,
                self.request_id(),
            ),
        )
        appointment_id = int(cur.lastrowid or 0)
        self.step("confirm:after-appointment")
        self.conn.execute("UPDATE sc_holds SET status = 'used' WHERE id = ?", (hold_id,))
        if proposal["action"] == "reschedule":
            old = self.booked_appointment(proposal["appointment_id"], proposal["patient_id"])
            self.conn.execute(
                "UPDATE sc_appointments SET status = 'cancelled' WHERE id = ?",
                (old["appointment_id"],),
            )
        self.conn.execute(
            "UPDATE sc_proposals SET status = 'confirmed' WHERE id = ?", (proposal_id,)
        )
        self.audit(
            "confirm",
            at,
            proposal_id=proposal_id,
            revision=revision,
            approval_id=approval_id,
            appointment_id=appointment_id,
        )
        return {"appointment_id": appointment_id, "external_id": external_id}

    def _cancelled(
        self, proposal: dict[str, Any], revision: int, approval_id: int, at: str
    ) -> dict[str, Any]:
        appointment_id = proposal["appointment_id"]
        self.conn.execute(
            "UPDATE sc_appointments SET status = 'cancelled' WHERE id = ?", (appointment_id,)
        )
        self.step("cancel:after-appointment")
        self.conn.execute(
            "UPDATE sc_proposals SET status = 'confirmed' WHERE id = ?",
            (proposal["proposal_id"],),
        )
        self.audit(
            "confirm",
            at,
            proposal_id=proposal["proposal_id"],
            revision=revision,
            approval_id=approval_id,
            appointment_id=appointment_id,
        )
        return {"appointment_id": appointment_id, "cancelled": True}
