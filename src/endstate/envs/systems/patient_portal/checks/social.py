"""One consistent social history per patient, read off the problem list's findings.

At one visit, at most one finding of a status group (smoking, alcohol, work, schooling,
housing), and no unhealthy drinking beside a non-drinker's or an ex-drinker's status. Over
time, a status changes only as a life can: "never smoked" (or "lifetime non-drinker") never
follows a smoking (drinking) status, a former smoker (drinker) was a current one first unless
that is the first status on record, and schooling never goes back to a lower level. A degree
is not recorded before 20.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date

from endstate.envs import clinical
from endstate.envs.systems.patient_portal import social_findings
from endstate.envs.systems.patient_portal.model import Condition, Population

GROUPS: dict[str, dict[str, social_findings.Finding]] = {
    "smoking": social_findings.SMOKING,
    "alcohol": social_findings.ALCOHOL,
    "employment": social_findings.EMPLOYMENT,
    "education": social_findings.EDUCATION,
    "housing": social_findings.HOUSING,
}
STATUS = {code: (group, key) for group, t in GROUPS.items() for key, (code, _) in t.items()}
DEGREE_AGE = 20


def _label(c: Condition) -> str:
    return f"{c.patient_id} problem {c.id} ({c.description}) on {c.onset}"


def _one_visit(found: list[Condition]) -> list[str]:
    out: list[str] = []
    keys: dict[str, list[Condition]] = defaultdict(list)
    for c in found:
        if c.code in STATUS:
            keys[STATUS[c.code][0]].append(c)
    for group, rows in keys.items():
        if len(rows) > 1:
            out.append(f"{_label(rows[1])}: a second {group} status beside {rows[0].description}")
    unhealthy = [c for c in found if c.code == social_findings.UNHEALTHY_DRINKING[0]]
    sober = [c for c in keys.get("alcohol", []) if STATUS[c.code][1] != "current"]
    if unhealthy and sober:
        out.append(f"{_label(unhealthy[0])}: unhealthy drinking beside {sober[0].description}")
    return out


def _course(group: str, visits: list[list[Condition]]) -> list[str]:
    """A status group's findings over time change only as a life can."""
    seen: list[tuple[str, Condition]] = [
        (STATUS[c.code][1], c)
        for found in visits
        for c in found
        if STATUS.get(c.code, ("", ""))[0] == group
    ]
    out: list[str] = []
    for i, (key, c) in enumerate(seen):
        before = [k for k, _ in seen[:i]]
        if group in ("smoking", "alcohol"):
            if key == "never" and any(k != "never" for k in before):
                out.append(f"{_label(c)}: 'never' after {group} was recorded")
            if key == "former" and before and "current" not in before and before[-1] != "former":
                out.append(f"{_label(c)}: a former {group} status with no current one before it")
        if group == "education" and key == "secondary" and "higher" in before:
            out.append(f"{_label(c)}: schooling recorded lower than before")
    return out


def problems(pop: Population, today: date) -> list[str]:
    born = {p.id: p.dob for p in pop.patients}
    visits: dict[str, dict[str, list[Condition]]] = defaultdict(lambda: defaultdict(list))
    for c in pop.conditions:
        visits[c.patient_id][c.onset].append(c)
    out: list[str] = []
    for pid, by_day in visits.items():
        ordered = [by_day[d] for d in sorted(by_day)]
        for found in ordered:
            out += _one_visit(found)
        for group in GROUPS:
            out += _course(group, ordered)
        for found in ordered:
            for c in found:
                years = clinical.age(born[pid], date.fromisoformat(c.onset))
                if c.code == social_findings.EDUCATION["higher"][0] and years < DEGREE_AGE:
                    out.append(f"{_label(c)}: a degree recorded at age {years}")
    return out
