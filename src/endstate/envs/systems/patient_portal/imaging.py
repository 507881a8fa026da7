"""A patient's imaging: the studies their problems get, in the order a clinician orders them —
a plain film of a site first, an MRI of the same site only after it (`imaging_catalog`) —
each ordered by the clinician who manages the problem, on a weekday on or after its diagnosis."""

from __future__ import annotations

from datetime import date, timedelta

from endstate.envs.systems.patient_portal import imaging_catalog
from endstate.envs.systems.patient_portal.clinic import next_weekday
from endstate.envs.systems.patient_portal.clinical import Case, Episode
from endstate.envs.systems.patient_portal.history import History
from endstate.envs.systems.patient_portal.model import Imaging

STUDY_GAP = (90, 900)  # days from one study of a problem to the next one


def _studies(
    h: History, code: str, reason: str, onset: date, who: str, lag: int
) -> list[tuple[date, imaging_catalog.Study, str, str]]:
    """The problem's studies: the first within `lag` days of its diagnosis, each later one
    months after the one before."""
    out: list[tuple[date, imaging_catalog.Study, str, str]] = []
    day = next_weekday(onset + timedelta(days=h.rng.randint(0, lag)))
    for study, chance in imaging_catalog.IMAGING.get(code, ()):
        if day >= h.today or h.rng.random() >= chance:
            break  # a later study of the problem follows an earlier one, never skips it
        out.append((day, study, reason, who))
        day = next_weekday(day + timedelta(days=h.rng.randint(*STUDY_GAP)))
    return out


def imaging(h: History, chronic: list[Case], acute: list[Episode]) -> list[Imaging]:
    rows = [
        row
        for c, onset in chronic
        for row in _studies(h, c.code, c.description, onset, h.provider_for(c.specialty), 30)
    ]
    rows += [
        row
        for a, onset in acute
        for row in _studies(h, a.code, a.description, onset, h.patient.pcp_id, 0)
    ]
    rows.sort(key=lambda r: (r[0], r[1].name))
    return [
        Imaging(
            h.ids.next("imaging"),
            h.patient.id,
            day.isoformat(),
            study.modality,
            study.name,
            study.site,
            reason,
            h.rng.choice(study.impressions),
            who,
        )
        for day, study, reason, who in rows
    ]
