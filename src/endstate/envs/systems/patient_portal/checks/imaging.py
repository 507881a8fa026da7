"""Imaging is ordered in a sensible order and for a reason: no plain film (XR) of a site on or
after the day of an MRI of the same site (the MRI already answered what the film would), and
every study is ordered for a problem on the patient's list, diagnosed by the study's day."""

from __future__ import annotations

from collections import defaultdict
from datetime import date

from endstate.envs.systems.patient_portal.model import Imaging, Population


def _label(x: Imaging) -> str:
    return f"{x.patient_id} imaging {x.id} ({x.study}) on {x.date}"


def problems(pop: Population, today: date) -> list[str]:
    out: list[str] = []
    mri: dict[tuple[str, str], list[Imaging]] = defaultdict(list)
    for x in pop.imaging:
        if x.modality == "MRI":
            mri[(x.patient_id, x.site)].append(x)
    for x in pop.imaging:
        earlier = [m for m in mri[(x.patient_id, x.site)] if m.date <= x.date]
        if x.modality == "XR" and earlier:
            out.append(
                f"{_label(x)}: a plain film of the {x.site} after its MRI "
                f"(imaging {earlier[0].id}, {earlier[0].date})"
            )
    onsets: dict[tuple[str, str], list[str]] = defaultdict(list)
    for c in pop.conditions:
        onsets[(c.patient_id, c.description)].append(c.onset)
    for x in pop.imaging:
        known = onsets.get((x.patient_id, x.reason), [])
        if not known:
            out.append(f"{_label(x)}: field reason {x.reason!r} is not on the problem list")
        elif min(known) > x.date:
            out.append(f"{_label(x)}: ordered before {x.reason} was diagnosed ({min(known)})")
        if x.date > today.isoformat():
            out.append(f"{_label(x)}: dated after today")
    return out
