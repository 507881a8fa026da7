"""A message from the practice speaks only of what had happened by the day it was sent: the
visit it asks about, the lab draw whose results it announces, the drug it asks whether the
patient still takes; a reminder comes days before an appointment the patient has; flu shots
are announced in the autumn."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date, timedelta

from endstate.envs.systems.patient_portal.model import Message, Population

_DATE = re.compile(r"\b(\d{2})/(\d{2})/(\d{4})\b")
_DRUG = re.compile(r"Are you still taking (.+?)\? ")
REMINDER_DAYS = 14
FLU_MONTHS = range(8, 13)


def _label(m: Message) -> str:
    return f"{m.patient_id} message {m.id} ({m.subject!r}) sent {m.sent_at[:10]}"


def problems(pop: Population, today: date) -> list[str]:
    visits, drawn, booked = defaultdict(set), defaultdict(set), defaultdict(set)
    for v in pop.encounters:
        visits[v.patient_id].add(v.date)
    for r in pop.labs:
        drawn[r.patient_id].add(r.collected[:10])
    for a in pop.appointments:
        booked[a.patient_id].add(a.starts_at[:10])
    out: list[str] = []
    for m in pop.messages:
        sent = date.fromisoformat(m.sent_at[:10])
        if sent >= today:
            out.append(f"{_label(m)}: field sent_at is not in the past")
        for month, day, year in _DATE.findall(m.body):
            named = date(int(year), int(month), int(day))
            iso = named.isoformat()
            if m.subject.startswith("Upcoming"):
                if not sent < named <= sent + timedelta(days=REMINDER_DAYS):
                    out.append(f"{_label(m)}: a reminder of {iso} is not sent days before it")
                if iso not in booked[m.patient_id]:
                    out.append(f"{_label(m)}: a reminder of {iso}, when no appointment is booked")
                continue
            if named > sent:
                out.append(f"{_label(m)}: field body speaks of {iso}, after it was sent")
            if m.subject.startswith("Your lab") and iso not in drawn[m.patient_id]:
                out.append(f"{_label(m)}: announces labs of {iso}, when none were drawn")
            if (
                m.subject.startswith(("Checking in", "Insurance"))
                and iso not in visits[m.patient_id]
            ):
                out.append(f"{_label(m)}: asks about a visit on {iso}, when there was none")
        drug = _DRUG.search(m.body)
        if drug:
            day = sent.isoformat()
            taking = {
                x.drug
                for x in pop.medications
                if x.patient_id == m.patient_id
                and x.start <= day
                and (x.stop is None or x.stop > day)
            }
            if drug.group(1) not in taking:
                out.append(f"{_label(m)}: asks about {drug.group(1)}, not taken on that day")
        if m.subject.startswith("Flu shots") and sent.month not in FLU_MONTHS:
            out.append(f"{_label(m)}: flu shots announced in {sent:%B}")
    return out
