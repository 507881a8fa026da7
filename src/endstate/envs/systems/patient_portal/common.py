"""What every page of the portal shares: who is signed in, and how values are printed."""

from __future__ import annotations

import sqlite3
from datetime import datetime

from endstate.envs.shared.web import Ctx

SYSTEM = "patient_portal"


def patient(ctx: Ctx) -> sqlite3.Row:
    """The signed-in patient (pages behind the login gate only)."""
    found = ctx.db.row("SELECT * FROM pp_patients WHERE username = ?", (ctx.session.user,))
    assert found is not None, "a signed-in session always names a patient"
    return found


def lab_date(iso: str) -> str:
    """How the portal's lab view prints a collection time: month/day, a time, then the year
    (08/17 00:00:00/2017) — the format a reader has to untangle."""
    at = datetime.fromisoformat(iso)
    return f"{at.month:02d}/{at.day:02d} {at:%H:%M:%S}/{at.year}"


def when(iso: str) -> str:
    """An appointment's date and time: 03/12/2026 4:30 PM."""
    at = datetime.fromisoformat(iso)
    hour = at.hour % 12 or 12
    return f"{at:%m/%d/%Y} {hour}:{at:%M} {'AM' if at.hour < 12 else 'PM'}"


def amount(value: float) -> str:
    """A ledger amount, signed: $285.00 or -$25.00."""
    return f"-${-value:,.2f}" if value < 0 else f"${value:,.2f}"


def provider_name(p: sqlite3.Row) -> str:
    """A provider as lists and dropdowns name them: Reid, Sara, MD (Cardiology)."""
    return f"{p['last']}, {p['first']}, {p['credential']} ({p['specialty']})"


def providers(ctx: Ctx) -> list[sqlite3.Row]:
    """Every provider of the practice, by last then first name (the dropdowns' order)."""
    return ctx.db.rows("SELECT * FROM pp_providers ORDER BY last, first, id")


def provider_names(ctx: Ctx) -> dict[str, str]:
    return {p["id"]: provider_name(p) for p in providers(ctx)}
