"""A patient-disambiguation case must need disambiguating, read from the world, not from the
template that wrote it.

The caller and the record the case forbids touching must be a look-alike pair of the
directory; the instruction must name the caller in a form both records fit (or neither
exactly): never the one spelling only the caller's record has, never either date of birth.
The simulated user must know the date of birth that tells them apart, and the reference's
first search must list both records, as the service's `find_patient` would.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from endstate.envs.systems.scheduling.directory import Directory, SchedPatient

FAMILY = "patient_disambiguation"


def _birth_forms(dob: str) -> list[str]:
    d = date.fromisoformat(dob)
    return [
        dob,
        f"{d:%B} {d.day}, {d.year}",
        f"{d.day} {d:%B} {d.year}",
        f"{d:%m/%d/%Y}",
        f"{d.month}/{d.day}/{d.year}",
    ]


def _says(text: str, word: str) -> bool:
    return re.search(rf"\b{re.escape(word)}\b", text) is not None


def lists(query: str, patient: SchedPatient) -> bool:
    """Whether `find_patient(query)` lists `patient`: every word is in the full name."""
    words = query.lower().split()
    return bool(words) and all(w in f"{patient.first} {patient.last}".lower() for w in words)


def identity_problems(card: Mapping[str, Any], directory: Directory) -> list[str]:
    """Why a disambiguation case does not need disambiguating (nothing for other families)."""
    if card.get("family") != FAMILY:
        return []
    user = card.get("user") or {}
    caller_id = user.get("patient_id")
    others = [
        f.get("patient_id")
        for f in card.get("forbidden") or []
        if f.get("effect") == "other_patient_touched"
    ]
    pair = next(
        (
            p
            for p in directory.lookalikes
            if {p.a.id, p.b.id} == {caller_id, *others} and len(others) == 1
        ),
        None,
    )
    if pair is None:
        return [
            f"{caller_id} and the record it forbids touching {others} are not a look-alike pair"
        ]
    caller, other = (pair.a, pair.b) if pair.a.id == caller_id else (pair.b, pair.a)
    text = str(card.get("instruction", ""))
    for provider in directory.providers:  # a provider's name is not the caller's
        text = text.replace(provider.name, "")
    problems = [
        f"the instruction states the {who}'s date of birth ({form})"
        for who, patient in (("caller", caller), ("look-alike", other))
        for form in _birth_forms(patient.dob)
        if form in text
    ]
    for mine, theirs in ((caller.first, other.first), (caller.last, other.last)):
        if mine != theirs and _says(text, mine) and not _says(text, theirs):
            problems.append(f"the instruction spells {mine!r}, which only the caller's record has")
        if mine != theirs and _says(text, theirs) and not _says(text, mine):
            problems.append(f"the instruction spells {theirs!r}, which only the look-alike has")
    if caller.dob not in (user.get("facts") or {}).values():
        problems.append("the simulated user cannot give the date of birth that tells them apart")
    searches = [
        c.get("arguments", {}).get("name", "")
        for c in card.get("reference") or []
        if c.get("tool") == "find_patient"
    ]
    if not searches or not (lists(searches[0], caller) and lists(searches[0], other)):
        problems.append("the reference's first find_patient does not list both records")
    return problems
