"""A patient's visits and money: encounters, appointments past and upcoming (relative to the
pinned clock), and the billing ledger those visits left (charges, payments, adjustments)."""

from __future__ import annotations

from datetime import date, timedelta

from endstate.envs.systems.patient_portal import catalog
from endstate.envs.systems.patient_portal.clinical import Episode
from endstate.envs.systems.patient_portal.history import History
from endstate.envs.systems.patient_portal.model import Appointment, Encounter, LedgerEntry

PAST_APPOINTMENTS_DAYS = 540  # encounters this recent are also past appointments
LEDGER_DAYS = 3 * 365


def wellness_dates(h: History) -> list[date]:
    """Roughly yearly preventive visits from the first record to the last month."""
    out: list[date] = []
    day = h.start + timedelta(days=h.rng.randint(0, 300))
    while day < h.today - timedelta(days=20):
        out.append(day)
        day += timedelta(days=h.rng.randint(330, 430))
    return out


def encounters(h: History, chronic: list[catalog.Chronic], acute: list[Episode]) -> list[Encounter]:
    """Wellness visits with the PCP, a visit per acute problem, specialist follow-ups."""
    rows: list[tuple[date, str, str, str]] = [
        (d, "wellness", h.patient.pcp_id, "General examination of patient (procedure)")
        for d in h.wellness
    ]
    for a, onset in acute:
        kind = "urgent" if h.rng.random() < 0.3 else "ambulatory"
        rows.append((onset, kind, h.patient.pcp_id, a.description))
    recent = h.today - timedelta(days=LEDGER_DAYS)
    for c in chronic:
        day = h.day(max(h.start, recent), max(h.start, recent) + timedelta(days=200))
        while day < h.today:
            rows.append((day, "followup", h.provider_for(c.specialty), c.description))
            day += timedelta(days=h.rng.randint(120, 300))
    rows.sort(key=lambda r: (r[0], r[1]))
    return [
        Encounter(h.ids.next("encounters"), h.patient.id, d.isoformat(), kind, who, why)
        for d, kind, who, why in rows
    ]


def _weekday(day: date) -> date:
    while day.weekday() >= 5:
        day += timedelta(days=1)
    return day


def _slot(h: History) -> str:
    k = h.rng.randint(0, 17)  # 08:00 to 16:30, every half hour
    return f"{8 + k // 2:02d}:{30 * (k % 2):02d}:00"


def appointments(h: History, visits: list[Encounter]) -> list[Appointment]:
    """Recent visits as completed appointments, a few cancelled or missed, and 1-3 upcoming
    with the care team (every patient has something to cancel)."""
    rows: list[tuple[str, str, str, str]] = []
    recent = (h.today - timedelta(days=PAST_APPOINTMENTS_DAYS)).isoformat()
    for v in visits:
        if v.date >= recent:
            reason = "Annual physical" if v.kind == "wellness" else v.reason
            rows.append((f"{v.date}T{_slot(h)}", v.provider_id, reason, "completed"))
    team = sorted({h.patient.pcp_id, *h.team.values()})
    for _ in range(h.rng.randint(0, 2)):
        day = _weekday(h.today - timedelta(days=h.rng.randint(20, PAST_APPOINTMENTS_DAYS)))
        if day < h.today:
            status = h.rng.choice(("cancelled", "no-show"))
            reason = h.rng.choice(catalog.VISIT_REASONS)
            rows.append((f"{day.isoformat()}T{_slot(h)}", h.rng.choice(team), reason, status))
    for _ in range(h.rng.randint(1, 3)):
        day = _weekday(h.today + timedelta(days=h.rng.randint(2, 120)))
        reason = h.rng.choice(catalog.VISIT_REASONS)
        rows.append((f"{day.isoformat()}T{_slot(h)}", h.rng.choice(team), reason, "scheduled"))
    rows.sort()
    return [
        Appointment(f"APT-{h.ids.next('appointments'):06d}", h.patient.id, who, at, why, status)
        for at, who, why, status in rows
    ]


def _money(value: float) -> float:
    return round(value, 2)


def _visit_lines(h: History, v: Encounter, payer: str) -> list[tuple[str, str, str, float]]:
    """One visit's ledger lines: (posted, kind, description, signed amount)."""
    service = date.fromisoformat(v.date)
    text, price = catalog.VISIT_CHARGES[v.kind]
    charges = [(text, price)]
    if v.kind in ("wellness", "followup") and h.rng.random() < 0.6:
        charges.append(h.rng.choice(catalog.LAB_CHARGES))
    posted = service + timedelta(days=h.rng.randint(0, 2))
    out = [(posted.isoformat(), "charge", t, p) for t, p in charges]
    total = sum(p for _, p in charges)
    copay = h.rng.choice(catalog.COPAYS)
    if copay:
        out.append((v.date, "payment", "Patient payment — copay at check-in", -copay))
    paid_on = service + timedelta(days=h.rng.randint(14, 45))
    if paid_on > h.today:
        return out  # the claim is still with the insurer
    allowed = _money(total * h.rng.uniform(0.55, 0.8))
    insurance = _money(max(0.0, allowed - copay) * h.rng.uniform(0.7, 0.9))
    out.append((paid_on.isoformat(), "payment", f"Insurance payment — {payer}", -insurance))
    out.append(
        (paid_on.isoformat(), "adjustment", f"Contractual adjustment — {payer}", -(total - allowed))
    )
    owed = _money(allowed - copay - insurance)
    settled = paid_on + timedelta(days=h.rng.randint(20, 70))
    if owed > 0 and settled <= h.today and h.rng.random() < 0.65:
        out.append((settled.isoformat(), "payment", "Patient payment — online", -owed))
    return out


def ledger(h: History, visits: list[Encounter]) -> list[LedgerEntry]:
    """The last three years of visits, as the billing office posted them."""
    payer = h.rng.choice(catalog.INSURERS)
    since = (h.today - timedelta(days=LEDGER_DAYS)).isoformat()
    rows: list[tuple[str, str, int, str, str, float]] = []
    for n, v in enumerate(x for x in visits if x.date >= since):
        for i, (posted, kind, text, amount) in enumerate(_visit_lines(h, v, payer)):
            rows.append((posted, v.date, n * 10 + i, kind, text, _money(amount)))
    rows.sort(key=lambda r: (r[0], r[2]))
    return [
        LedgerEntry(h.ids.next("ledger"), h.patient.id, service, posted, kind, text, amount)
        for posted, service, _, kind, text, amount in rows
    ]
