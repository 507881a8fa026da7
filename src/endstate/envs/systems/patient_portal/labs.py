"""A patient's lab results: exactly the quota's rows, oldest first, most with no time of day
(00:00:00), every value read off the patient's one body (physiology.py) so results a lab
computes from others agree with them, and no two draws share a time."""

from __future__ import annotations

from datetime import date, timedelta

from endstate.envs.systems.patient_portal import catalog, physiology
from endstate.envs.systems.patient_portal.history import History
from endstate.envs.systems.patient_portal.model import LabResult

PANEL_CHANCES = (0.7, 0.5, 0.6, 0.3, 0.35)  # VITALS, CBC, METABOLIC, LIPIDS, SINGLES


def _draw(h: History, body: physiology.Body, at: str) -> list[tuple[str, str]]:
    """One lab visit's results: a few panels, (loinc, value) each."""
    day = date.fromisoformat(at[:10])
    out: list[tuple[str, str]] = []
    while not out:
        for panel, chance in zip(catalog.PANELS, PANEL_CHANCES, strict=True):
            if h.rng.random() < chance:
                out += physiology.results(body, h.rng, panel, day)
        if h.rng.random() < 0.2:
            out += [(code, h.rng.choice(values)) for code, _, _, values in catalog.URINE]
    return out


def _time(h: History, taken: set[str]) -> str:
    """A collection time no other draw of the patient's has."""
    while True:
        day = h.day(h.start, h.today - timedelta(days=1))
        if h.rng.random() < 0.7:
            at = f"{day.isoformat()}T00:00:00"
        else:
            at = f"{day.isoformat()}T{h.rng.randint(7, 17):02d}:{h.rng.randint(0, 59):02d}:00"
        if at not in taken:
            taken.add(at)
            return at


def labs(h: History, body: physiology.Body) -> list[LabResult]:
    rows: list[tuple[str, int, tuple[str, str]]] = []
    taken: set[str] = set()
    visit = 0
    while len(rows) < h.quota.labs:
        at = _time(h, taken)
        visit += 1
        rows += [(at, visit, r) for r in _draw(h, body, at)]
    rows = sorted(rows[: h.quota.labs], key=lambda r: (r[0], r[1]))
    return [
        LabResult(h.patient.id, seq, at, loinc, value)
        for seq, (at, _, (loinc, value)) in enumerate(rows, 1)
    ]
