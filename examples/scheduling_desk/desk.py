"""The desk's workflows over the tools: identify the patient (asking for a date of birth when
two records fit), then book, reschedule, cancel or look up — every change proposed, approved
by the user and confirmed once; a correction in the user's reply becomes a new revision that
is approved again; an unknown outcome is reconciled under the same key; a lapsed hold is held
again; a message goes out only with its own approval, on the channel and body approved."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from typing import Any

from scheduling_desk.client import Tools
from scheduling_desk.wording import (
    RELATIVE,
    Moment,
    Request,
    dob_in,
    moments_in,
    read_request,
)

Answer = tuple[str, str]  # (claim, message)
# A reply that approves and asks for something else in the same breath.
CHANGE_OF_MIND = re.compile(
    r"\binstead\b|\bactually\b|\brather\b|\bcould (?:we|you)\b|\bwait\b", re.IGNORECASE
)


class Stop(Exception):
    """The desk cannot go on honestly; the message says why."""


def spoken(starts_at: str) -> str:
    """`2026-03-04T13:15` as a person says it: `Wednesday, March 4, 2026, at 1:15 pm`."""
    at = datetime.fromisoformat(starts_at)
    hour = at.strftime("%I:%M").lstrip("0")
    return f"{at:%A}, {at:%B} {at.day}, {at.year}, at {hour} {'am' if at.hour < 12 else 'pm'}"


class Desk:
    def __init__(self, tools: Tools, task: dict[str, Any], blind_retry: bool = False) -> None:
        self.tools = tools
        projection = task.get("projection") or {}
        self.instruction = str(projection.get("instruction") or "")
        self.fields = [f for f in projection.get("answer_fields") or [] if isinstance(f, dict)]
        self.blind_retry = blind_retry
        self.providers: dict[str, str] = {}
        self.slot_index: dict[str, dict[str, Any]] = {}
        self.today = date.today()
        self.surveyed = False

    # -- looking around ----------------------------------------------------------------------
    def survey(self) -> None:
        """Who the providers are and what today is: the open slots start the business day
        after the clock, so today is the day before the first of them."""
        if self.surveyed:
            return
        self.surveyed = True
        slots = self.tools.call("list_slots").get("slots") or []
        for s in slots:
            self.providers[s["provider_id"]] = s["provider"]
            self.slot_index[s["slot_id"]] = s
        if slots:
            first = min(date.fromisoformat(s["starts_at"][:10]) for s in slots)
            self.today = first - timedelta(days=1)

    def provider(self, doctor: str | None) -> str | None:
        if not doctor:
            return None
        words = doctor.lower().split()
        found = [
            pid
            for pid, name in self.providers.items()
            if all(w in name.lower().replace("dr.", "").split() for w in words)
        ]
        return found[0] if len(found) == 1 else None

    def slots(self, provider_id: str | None, day: date) -> list[dict[str, Any]]:
        found = self.tools.call("list_slots", provider_id=provider_id or "", date=day.isoformat())
        slots: list[dict[str, Any]] = found.get("slots") or []
        for s in slots:
            self.slot_index[s["slot_id"]] = s
        return slots

    def slot_at(self, provider_id: str | None, day: date, time: str) -> dict[str, Any] | None:
        return next(
            (s for s in self.slots(provider_id, day) if s["starts_at"][11:16] == time),
            None,
        )

    def patient(self, req: Request) -> str:
        """The patient's record: by name and date of birth; when the request gives no date of
        birth and more than one record fits the name, the caller is asked for it."""
        query = " ".join(req.name_words)
        if not query:
            raise Stop("I could not tell who the patient is from the request.")
        found = self.tools.call("find_patient", name=query).get("patients") or []
        dob = req.dob
        if dob is None and len(found) > 1:
            reply = self.tools.call(
                "message_user",
                text="I see more than one patient with that name. What is your date of birth?",
            ).get("reply", "")
            dob = dob_in(str(reply))
            if dob is None:
                raise Stop(f"Several patients match {query!r} and the caller did not say which.")
        if dob is not None:
            found = [p for p in found if p["dob"] == dob]
            if not found and len(req.name_words) > 1:
                wider = self.tools.call("find_patient", name=req.name_words[-1])
                found = [p for p in wider.get("patients") or [] if p["dob"] == dob]
        if len(found) != 1:
            raise Stop(f"I found {len(found)} patients for {query!r}; I changed nothing.")
        return str(found[0]["patient_id"])

    def booked(self, patient_id: str) -> list[dict[str, Any]]:
        appts = self.tools.call("list_appointments", patient_id=patient_id).get("appointments")
        return [a for a in appts or [] if a.get("status") == "booked"]

    def pick(
        self, appts: list[dict[str, Any]], provider_id: str | None, near: Moment | None
    ) -> dict[str, Any]:
        """The appointment the request means: the doctor's, on the day (and time) said."""
        if provider_id:
            appts = [a for a in appts if a["provider_id"] == provider_id] or appts
        if len(appts) > 1 and near is not None and near.day is not None:
            day = near.day.isoformat()
            on_day = [a for a in appts if a["starts_at"].startswith(day)]
            if near.time:
                on_day = [a for a in on_day if a["starts_at"][11:16] == near.time] or on_day
            appts = on_day or appts
        if not appts:
            raise Stop("The patient has no booked appointment that fits the request.")
        return sorted(appts, key=lambda a: a["starts_at"])[0]

    # -- the workflow parts -----------------------------------------------------------------
    def hold(self, patient_id: str, slot_id: str) -> None:
        held = self.tools.write("hold_slot", patient_id=patient_id, slot_id=slot_id)
        if held.get("status") != "ok":
            raise Stop(f"I could not hold {slot_id}: {held.get('message')}")

    def correction(
        self, reply: str, slot: dict[str, Any], provider_id: str
    ) -> dict[str, Any] | None:
        """The slot a reply asks for instead of `slot`, if it names another day or time."""
        said = [m for m in moments_in(reply, self.today) if m.time]
        if not said:
            return None
        last = said[-1]
        day = last.day or date.fromisoformat(slot["starts_at"][:10])
        if f"{day.isoformat()}T{last.time}" == slot["starts_at"][:16]:
            return None
        return self.slot_at(provider_id, day, str(last.time))

    def settle(self, pid: int, patient_id: str, slot: dict[str, Any] | None) -> tuple[int, Any]:
        """Ask for booking approval until the user approves a revision without asking for
        another slot; each correction is held, revised and asked about again."""
        revision = 1
        for _ in range(4):
            review = self.tools.call(
                "request_approval", proposal_id=pid, revision=revision, kind="booking"
            )
            reply = str(review.get("reply") or "")
            other = self.correction(reply, slot, slot["provider_id"]) if slot else None
            if other is not None and slot is not None:
                self.hold(patient_id, other["slot_id"])
                revised = self.tools.write("revise", proposal_id=pid, slot_id=other["slot_id"])
                if revised.get("status") != "ok":
                    raise Stop(f"I could not revise the proposal: {revised.get('message')}")
                revision, slot = int(revised["revision"]), other
                continue
            if review.get("approved") and not (slot and CHANGE_OF_MIND.search(reply)):
                return revision, slot
            if review.get("approved"):  # approved, then asked for a time that is not open
                raise Stop(f"The patient asked for another time I could not find: {reply}")
            raise Stop(f"The patient did not approve: {reply or review.get('message')}")
        raise Stop("The patient kept changing the time; nothing was confirmed.")

    def confirm(
        self, pid: int, revision: int, patient_id: str, slot_id: str | None
    ) -> dict[str, Any]:
        """Confirm once: after an unknown outcome look it up and retry under the same key (or,
        as a careless client with --blind-retry, under a new one); after a lapsed hold, hold
        again and confirm anew (the refused request did nothing, so a new key is no retry)."""
        key = self.tools.key("confirm")
        done = self.tools.call("confirm", key, proposal_id=pid, revision=revision)
        for _ in range(4):
            status, code = done.get("status"), done.get("code")
            if status == "ok":
                return done
            if status == "unknown":
                if self.blind_retry:
                    key = self.tools.key("confirm")
                else:
                    self.tools.call("lookup_external", proposal_id=pid)
            elif code in ("lease_expired", "no_hold") and slot_id:
                self.hold(patient_id, slot_id)
                key = self.tools.key("confirm")
            else:
                break
            done = self.tools.call("confirm", key, proposal_id=pid, revision=revision)
        if done.get("status") != "ok":
            raise Stop(f"The confirmation did not go through: {done.get('message')}")
        return done

    def message(
        self,
        req: Request,
        pid: int,
        revision: int,
        patient_id: str,
        slot: dict[str, Any],
    ) -> str:
        """A confirmation message with its own approval, on the channel and body approved."""
        appt = next(
            (a for a in self.booked(patient_id) if a["slot_id"] == slot["slot_id"]),
            None,
        )
        if appt is None:
            return " No message sent: the appointment is not on the patient's record."
        provider = self.providers.get(appt["provider_id"], slot.get("provider", ""))
        where = appt.get("location") or slot.get("location") or slot.get("location_id")
        body = (
            f"Your appointment with {provider} is booked for {spoken(appt['starts_at'])}"
            + (f", location {where}" if where else "")
            + ". Reply to this message if you need to change it."
        )
        asked = self.tools.call(
            "request_approval",
            proposal_id=pid,
            revision=revision,
            kind="communication",
            channel=req.channel,
            body=body,
        )
        if asked.get("status") == "refused" and asked.get("code") == "bad_arguments":
            asked = self.tools.call(
                "request_approval",
                proposal_id=pid,
                revision=revision,
                kind="communication",
            )
        if not asked.get("approved"):
            return f" No message sent: {asked.get('reply') or asked.get('message')}"
        sent = self.tools.write(
            "send_communication",
            proposal_id=pid,
            revision=revision,
            channel=req.channel,
            body=body,
        )
        if sent.get("status") != "ok":
            return f" The message was not sent: {sent.get('message')}"
        return f" Sent one {req.channel} message confirming it."

    # -- the requests --------------------------------------------------------------------------
    def book(self, req: Request, patient_id: str) -> Answer:
        provider_id = self.provider(req.doctor)
        timed = [m for m in req.moments if m.day and m.time]
        if req.first_opening:
            day = next((m.day for m in req.moments if m.day), None)
            if day is None:
                raise Stop("The request names no day to offer its first opening.")
            opening = self.slots(provider_id, day)
            slot = opening[0] if opening else None
        elif timed:
            want = timed[-1]
            slot = self.slot_at(provider_id, want.day, str(want.time))  # type: ignore[arg-type]
        else:
            raise Stop("The request names no day and time to book.")
        if slot is None:
            raise Stop("That time is not open with that doctor; I booked nothing.")
        return self.change(req, patient_id, "book", slot)

    def change(
        self,
        req: Request,
        patient_id: str,
        action: str,
        slot: dict[str, Any] | None,
        appt: int | None = None,
    ) -> Answer:
        """Hold (for a new slot), propose, settle with the user, confirm, and message."""
        extra: dict[str, Any] = {"appointment_id": appt} if appt is not None else {}
        if slot is not None:
            self.hold(patient_id, slot["slot_id"])
            extra["slot_id"] = slot["slot_id"]
        proposed = self.tools.write("propose", patient_id=patient_id, action=action, **extra)
        if proposed.get("status") != "ok":
            raise Stop(f"I could not propose it: {proposed.get('message')}")
        pid = int(proposed["proposal_id"])
        revision, slot = self.settle(pid, patient_id, slot)
        self.confirm(pid, revision, patient_id, slot["slot_id"] if slot else None)
        # Read the record back (late callbacks land first): the claim is what it says.
        appts = self.tools.call("list_appointments", patient_id=patient_id).get("appointments")
        status = {a["appointment_id"]: a["status"] for a in appts or []}
        if slot is None:
            if status.get(appt) != "cancelled":
                raise Stop(f"Confirmed, but appointment {appt} reads {status.get(appt)}.")
            return "done", f"Cancelled appointment {appt} with the patient's approval."
        if not any(
            a["slot_id"] == slot["slot_id"] and a["status"] == "booked" for a in appts or []
        ):
            raise Stop(f"Confirmed, but no appointment is booked in {slot['slot_id']}.")
        said = f"Booked: {spoken(slot['starts_at'])} with {slot['provider']} (revision {revision})."
        if action == "reschedule":
            said = f"Moved appointment {appt}. " + said
        if req.message and action != "cancel":
            said += self.message(req, pid, revision, patient_id, slot)
        return "done", said

    def reschedule(self, req: Request, patient_id: str) -> Answer:
        named = self.provider(req.doctor)
        timed = [m for m in req.moments if m.day and m.time]
        if not timed:
            raise Stop("The request names no new day and time.")
        want = timed[-1]
        before = req.moments[0] if req.moments and req.moments[0] is not want else None
        old = self.pick(self.booked(patient_id), named, before)
        slot = self.slot_at(named or old["provider_id"], want.day, str(want.time))  # type: ignore[arg-type]
        if slot is None:
            raise Stop("The new time is not open with that doctor; I changed nothing.")
        return self.change(req, patient_id, "reschedule", slot, int(old["appointment_id"]))

    def among(self, req: Request, appts: list[dict[str, Any]]) -> dict[str, Any]:
        """The one of several appointments the request means. Only then are the slots listed
        (to learn the doctors' ids and today): a cancellation or a lookup needs no slots."""
        if len(appts) > 1 and (req.doctor or RELATIVE.search(self.instruction)):
            self.survey()
            req = read_request(self.instruction, self.today, lookup=bool(self.fields))
        near = req.moments[0] if req.moments else None
        return self.pick(appts, self.provider(req.doctor), near)

    def cancel(self, req: Request, patient_id: str) -> Answer:
        old = self.among(req, self.booked(patient_id))
        return self.change(req, patient_id, "cancel", None, int(old["appointment_id"]))

    def lookup(self, req: Request, patient_id: str) -> Answer:
        appts = self.booked(patient_id)
        chosen = self.among(req, appts) if appts else None
        answer: dict[str, Any] = {}
        for f in self.fields:
            name = str(f.get("name", ""))
            said = (name + " " + str(f.get("description", ""))).lower()
            if "count" in said or "number" in said or "how many" in said:
                answer[name] = len(appts)
            elif chosen is None:
                answer[name] = None
            elif "date" in name and "time" not in name:
                answer[name] = chosen["starts_at"][:10]
            elif "time" in name and "date" not in name:
                answer[name] = chosen["starts_at"][11:16]
            else:
                answer[name] = chosen["starts_at"][:16]
        return "done", json.dumps(answer)

    def run(self) -> Answer:
        try:
            req = read_request(self.instruction, self.today, lookup=bool(self.fields))
            if req.action in ("book", "reschedule"):
                self.survey()  # the doctors' ids, the open days and today
                req = read_request(self.instruction, self.today, lookup=False)
            patient_id = self.patient(req)
            work = {
                "lookup": self.lookup,
                "cancel": self.cancel,
                "reschedule": self.reschedule,
                "book": self.book,
            }[req.action]
            return work(req, patient_id)
        except Stop as stop:
            return "gave_up", str(stop)
