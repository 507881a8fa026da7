"""A patient's visits and money: encounters, appointments past and upcoming (relative to the
pinned clock), and the billing ledger those visits left (charges, payments, adjustments)."""

from __future__ import annotations

from datetime import date, timedelta

from endstate.envs.systems.patient_portal import catalog
from endstate.envs.systems.patient_portal.clinic import next_weekday
from endstate.envs.systems.patient_portal.clinical import Case, Episode
from endstate.envs.systems.patient_portal.history import History
from endstate.envs.systems.patient_portal.model import (
    Appointment,
    Encounter,
    Insurance,
    LedgerEntry,
)
from endstate.rules.cost_sharing import cost_sharing_allowed, may_bill_member
from endstate.rules.coverage import in_force

PAST_APPOINTMENTS_DAYS = 540  # encounters this recent are also past appointments
LEDGER_DAYS = 3 * 365


def wellness_dates(h: History) -> list[date]:
    """Roughly yearly preventive visits from the first record to the last month, on
    weekdays (the clinic is closed at weekends)."""
    out: list[date] = []
    day = next_weekday(h.start + timedelta(days=h.rng.randint(0, 300)))
    while day < h.today - timedelta(days=20):
        out.append(day)
        day = next_weekday(day + timedelta(days=h.rng.randint(330, 430)))
    return out


def encounters(h: History, chronic: list[Case], acute: list[Episode]) -> list[Encounter]:
    """Wellness visits with the PCP, a visit per acute problem, specialist follow-ups; one
    visit a day (a wellness visit wins its day, else the first of the day's visits)."""
    rows: list[tuple[date, str, str, str]] = [
        (d, "wellness", h.patient.pcp_id, "General examination of patient (procedure)")
        for d in h.wellness
    ]
    for a, onset in acute:
        kind = "urgent" if h.rng.random() < 0.3 else "ambulatory"
        rows.append((onset, kind, h.patient.pcp_id, a.description))
    recent = h.today - timedelta(days=LEDGER_DAYS)
    for c, onset in chronic:  # follow-ups from its diagnosis, within the last three years
        since = max(h.start, recent, onset)
        until = min((o for d, o in chronic if c.code in d.ends and o > onset), default=h.today)
        day = next_weekday(h.day(since, since + timedelta(days=200)))
        while day < until:
            rows.append((day, "followup", h.provider_for(c.specialty), c.description))
            day = next_weekday(day + timedelta(days=h.rng.randint(120, 300)))
    rows.sort(key=lambda r: (r[0], r[1] != "wellness", r[1]))
    one_a_day = list({d: (d, kind, who, why) for d, kind, who, why in reversed(rows)}.values())
    return [
        Encounter(h.ids.next("encounters"), h.patient.id, d.isoformat(), kind, who, why)
        for d, kind, who, why in sorted(one_a_day, key=lambda r: r[0])
    ]


def _at(h: History, day: date, provider_id: str) -> str:
    """A start time on the clinic's grid that neither the provider nor the patient has taken."""
    return h.calendar.take(h.rng, day, provider_id, h.patient.id)


def appointments(h: History, visits: list[Encounter]) -> list[Appointment]:
    """Recent visits as completed appointments, a few cancelled or missed, and 1-3 upcoming
    with the care team (every patient has something to cancel), each at a free slot of the
    clinic's day (clinic.py)."""
    rows: list[tuple[str, str, str, str]] = []
    recent = (h.today - timedelta(days=PAST_APPOINTMENTS_DAYS)).isoformat()
    for v in visits:
        if v.date >= recent:
            reason = "Annual physical" if v.kind == "wellness" else v.reason
            at = _at(h, date.fromisoformat(v.date), v.provider_id)
            rows.append((at, v.provider_id, reason, "completed"))
    team = sorted({h.patient.pcp_id, *h.team.values()})
    for _ in range(h.rng.randint(0, 2)):
        day = next_weekday(h.today - timedelta(days=h.rng.randint(20, PAST_APPOINTMENTS_DAYS)))
        if day < h.today:
            status = h.rng.choice(("cancelled", "no-show"))
            reason = h.rng.choice(catalog.VISIT_REASONS)
            who = h.rng.choice(team)
            rows.append((_at(h, day, who), who, reason, status))
    for _ in range(h.rng.randint(1, 3)):
        day = next_weekday(h.today + timedelta(days=h.rng.randint(2, 120)))
        reason = h.rng.choice(catalog.VISIT_REASONS)
        who = h.rng.choice(team)
        rows.append((_at(h, day, who), who, reason, "scheduled"))
    rows.sort()
    return [
        Appointment(f"APT-{h.ids.next('appointments'):06d}", h.patient.id, who, at, why, status)
        for at, who, why, status in rows
    ]


def _money(value: float) -> float:
    return round(value, 2)


def _plan_on(cover: list[Insurance], day: str) -> Insurance:
    found = [c for c in cover if in_force(c.effective, c.termination, day)]
    assert found, f"no coverage in force on {day}: insurance.py covers every ledger visit"
    return found[0]


def _visit_lines(h: History, v: Encounter, plan: Insurance) -> list[tuple[str, str, str, float]]:
    """One visit's ledger lines: (posted, kind, description, signed amount).

    What the member pays follows the plan in force on the date of service: a plan that allows
    no cost sharing (Medi-Cal) pays the allowed amount in full and the member is never billed
    (rules.cost_sharing); a preventive visit carries no member share under any plan (ACA
    2713); otherwise the plan's copay at check-in and coinsurance on the rest."""
    service = date.fromisoformat(v.date)
    text, price = catalog.VISIT_CHARGES[v.kind]
    charges = [(text, price)]
    if v.kind in ("wellness", "followup") and h.rng.random() < 0.6:
        charges.append(h.rng.choice(catalog.LAB_CHARGES))
    posted = service + timedelta(days=h.rng.randint(0, 2))
    out = [(posted.isoformat(), "charge", t, p) for t, p in charges]
    total = sum(p for _, p in charges)
    shared = cost_sharing_allowed(plan.kind) and v.kind != "wellness"
    copay = plan.copay if shared else 0.0
    if copay:
        out.append((v.date, "payment", "Patient payment — copay at check-in", -copay))
    paid_on = service + timedelta(days=h.rng.randint(14, 45))
    if paid_on > h.today:
        return out  # the claim is still with the insurer
    low, high = (0.35, 0.55) if not cost_sharing_allowed(plan.kind) else (0.55, 0.8)
    allowed = _money(total * h.rng.uniform(low, high))
    rest = max(0.0, allowed - copay)
    insurance = _money(rest * h.rng.uniform(0.7, 0.9)) if shared else allowed
    out.append((paid_on.isoformat(), "payment", f"Insurance payment — {plan.plan}", -insurance))
    out.append(
        (
            paid_on.isoformat(),
            "adjustment",
            f"Contractual adjustment — {plan.plan}",
            -(total - allowed),
        )
    )
    owed = _money(allowed - copay - insurance)
    settled = paid_on + timedelta(days=h.rng.randint(20, 70))
    billable = may_bill_member(plan.kind)
    if billable and owed > 0 and settled <= h.today and h.rng.random() < 0.65:
        out.append((settled.isoformat(), "payment", "Patient payment — online", -owed))
    return out


def ledger(h: History, visits: list[Encounter], cover: list[Insurance]) -> list[LedgerEntry]:
    """The last three years of visits, as the billing office posted them, each billed to the
    plan in force on its date of service."""
    since = (h.today - timedelta(days=LEDGER_DAYS)).isoformat()
    rows: list[tuple[str, str, int, str, str, float]] = []
    for n, v in enumerate(x for x in visits if x.date >= since):
        plan = _plan_on(cover, v.date)
        for i, (posted, kind, text, amount) in enumerate(_visit_lines(h, v, plan)):
            rows.append((posted, v.date, n * 10 + i, kind, text, _money(amount)))
    rows.sort(key=lambda r: (r[0], r[2]))
    return [
        LedgerEntry(h.ids.next("ledger"), h.patient.id, service, posted, kind, text, amount)
        for posted, service, _, kind, text, amount in rows
    ]
