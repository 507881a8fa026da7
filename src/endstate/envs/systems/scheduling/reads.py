"""The scheduling service's reads: what an agent can look up (none of them writes)."""

from __future__ import annotations

from typing import Any

from endstate.envs.systems.scheduling.store import Refused, Store


class Reads(Store):
    def find_patient(self, *, at: str, name: str) -> dict[str, Any]:
        words = [w.lower() for w in name.split() if w]
        if not words:
            raise Refused("bad_arguments", "name is empty")
        rows = self.conn.execute(
            "SELECT id, first, last, dob, mrn FROM sc_patients ORDER BY last, first, dob"
        ).fetchall()
        found = [
            {"patient_id": r[0], "name": f"{r[1]} {r[2]}", "dob": r[3], "mrn": r[4]}
            for r in rows
            if all(w in f"{r[1]} {r[2]}".lower() for w in words)
        ]
        return {"patients": found}

    def list_slots(self, *, at: str, provider_id: str = "", date: str = "") -> dict[str, Any]:
        rows = self.conn.execute(
            "SELECT s.id, s.provider_id, p.name, s.location_id, s.starts_at, s.minutes "
            "FROM sc_slots s JOIN sc_providers p ON p.id = s.provider_id "
            "WHERE (? = '' OR s.provider_id = ?) AND (? = '' OR substr(s.starts_at, 1, 10) = ?) "
            "AND s.id NOT IN (SELECT slot_id FROM sc_appointments WHERE status = 'booked') "
            "AND s.id NOT IN (SELECT slot_id FROM sc_holds "
            "                 WHERE status = 'active' AND lease_expires_at > ?) "
            "ORDER BY s.starts_at, s.id",
            (provider_id, provider_id, date, date, at),
        ).fetchall()
        keys = ("slot_id", "provider_id", "provider", "location_id", "starts_at", "minutes")
        return {"slots": [dict(zip(keys, r, strict=True)) for r in rows]}

    def list_appointments(self, *, at: str, patient_id: str) -> dict[str, Any]:
        """With the confirmations the external system sent for each: one, or more when it
        repeats itself (a second confirmation is not a second booking)."""
        rows = self.conn.execute(
            "SELECT a.id, a.slot_id, s.starts_at, s.provider_id, a.status, "
            "(SELECT COUNT(*) FROM sc_external_callbacks c WHERE c.external_id = a.external_id "
            " AND c.event = 'booked' AND c.delivered = 1) "
            "FROM sc_appointments a JOIN sc_slots s ON s.id = a.slot_id "
            "WHERE a.patient_id = ? ORDER BY a.id",
            (patient_id,),
        ).fetchall()
        keys = ("appointment_id", "slot_id", "starts_at", "provider_id", "status", "confirmations")
        return {"appointments": [dict(zip(keys, r, strict=True)) for r in rows]}

    def get_proposal(self, *, at: str, proposal_id: int) -> dict[str, Any]:
        proposal = self.proposal(proposal_id)
        revisions = self.conn.execute(
            "SELECT revision, slot_id, note FROM sc_revisions WHERE proposal_id = ? "
            "ORDER BY revision",
            (proposal_id,),
        ).fetchall()
        approvals = self.conn.execute(
            "SELECT revision, kind FROM sc_approvals WHERE proposal_id = ? ORDER BY id",
            (proposal_id,),
        ).fetchall()
        return {
            "proposal": proposal,
            "revisions": [{"revision": r[0], "slot_id": r[1], "note": r[2]} for r in revisions],
            "approvals": [{"revision": a[0], "kind": a[1]} for a in approvals],
        }

    def lookup_external(self, *, at: str, proposal_id: int) -> dict[str, Any]:
        """What the external system holds for this proposal's patient and latest slot."""
        proposal = self.proposal(proposal_id)
        slot = self.latest(proposal_id)["slot_id"]
        rows = self.conn.execute(
            "SELECT external_id, status FROM sc_external_bookings "
            "WHERE patient_id = ? AND slot_id = ? ORDER BY id",
            (proposal["patient_id"], slot),
        ).fetchall()
        return {"external_bookings": [{"external_id": r[0], "status": r[1]} for r in rows]}
