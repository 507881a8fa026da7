"""The clinical documents filed against a denied claim: what an appeal is built from.

A medical-necessity denial is contested with the record of the service the claim billed: the
consultation that ordered it and the letter of medical necessity written before it, for the
same lines (procedure, side, units) and diagnoses the claim carries. Sometimes an unsigned
draft of the letter sits beside the signed one, as it does in real charts.
"""

from __future__ import annotations

from datetime import date, timedelta

from endstate.envs.world import clinical
from endstate.envs.world.gen_base import GenBase
from endstate.envs.world.letters import LetterFacts, letter
from endstate.envs.world.model import Denial, DenialLine, Patient, Provider, ReferralDx, mdy

_SIDE = {"RT": "right", "LT": "left", "50": "bilateral"}


def _line_text(x: DenialLine, descriptions: dict[str, str]) -> str:
    side = f", {_SIDE[x.modifier]}" if x.modifier in _SIDE else ""
    return f"{descriptions.get(x.cpt, 'procedure')} (CPT {x.cpt}{side}, {x.units} unit(s))"


def _tried(d: Denial, weeks: int, years: int) -> str:
    """The conservative care the primary diagnosis calls for at the patient's age, or why none
    substitutes."""
    therapies = clinical.condition(clinical.diagnosis(d.diagnoses[0].code)).therapies_for(years)
    if not therapies:
        return "No conservative care substitutes for prompt treatment of this condition."
    return (
        f"Conservative management with {therapies[0]} for {weeks} weeks has not controlled "
        "the condition."
    )


def letter_text(
    p: Patient,
    d: Denial,
    to: str,
    doctor: str,
    written: str,
    descriptions: dict[str, str],
    weeks: int,
) -> str:
    """The letter asks for exactly the claim's denied lines, for the claim's diagnoses."""
    facts = LetterFacts(
        to=to,
        patient=f"{p.first} {p.last}, DOB {mdy(p.dob)}, {p.mrn}",
        dated=f"Date: {mdy(written)}    Planned date of service: {mdy(d.service_date)}\n",
        asks=[_line_text(x, descriptions) for x in d.lines if x.carc != "45"],
        diagnoses=[f"{x.code} {x.description}" for x in d.diagnoses],
        rationale="The findings documented in my consultation note support the service. "
        + _tried(d, weeks, clinical.age(p.dob, date.fromisoformat(written))),
        signature=f"Electronically signed by {doctor} on {mdy(written)}.",
    )
    return letter(doctor, facts)


def consult_text(p: Patient, d: Denial, doctor: str, seen: str, specialty: str) -> str:
    dx = "; ".join(f"{x.code} {x.description}" for x in d.diagnoses)
    return (
        f"{specialty.upper()} CONSULTATION\n"
        f"Patient: {p.last}, {p.first}    DOB: {mdy(p.dob)}    MRN: {p.mrn}\n"
        f"Date of service: {mdy(seen)}    Provider: {doctor}\n\n"
        f"Assessment: {dx}.\n"
        f"Plan: proceed with the planned service on {mdy(d.service_date)}.\n\n"
        f"Electronically signed by {doctor} on {mdy(seen)}."
    )


def file_claim_documents(
    gen: GenBase,
    d: Denial,
    provider: Provider,
    specialty: str,
    plan_name: str,
    descriptions: dict[str, str],
) -> None:
    """The consultation and the letter of medical necessity, both before the service."""
    rng = gen.rng
    p = gen.world.patient(d.mrn)
    doctor = f"{provider.first} {provider.last}, {provider.credential}"
    service = date.fromisoformat(d.service_date)
    seen = (service - timedelta(days=rng.randint(20, 45))).isoformat()
    written = (service - timedelta(days=rng.randint(3, 15))).isoformat()
    gen.doc(
        p,
        "clinical_note",
        f"{specialty} consultation",
        seen,
        doctor,
        d.claim_id,
        consult_text(p, d, doctor, seen, specialty),
    )
    to = f"{plan_name} Utilization Review"
    letter = letter_text(p, d, to, doctor, written, descriptions, rng.choice([6, 8, 12]))
    gen.doc(p, "lmn", "Letter of medical necessity", written, doctor, d.claim_id, letter)
    if rng.random() < 0.25:  # an unsigned draft written after the signed letter
        drafted = (date.fromisoformat(written) + timedelta(days=1)).isoformat()
        gen.doc(
            p,
            "lmn",
            "Letter of medical necessity (draft)",
            drafted,
            doctor,
            d.claim_id,
            letter.replace("Electronically signed", "DRAFT - NOT SIGNED. Pending"),
            status="draft",
            signed=False,
        )


def claim_diagnoses(codes: list[tuple[str, str]]) -> list[ReferralDx]:
    """The claim's ICD-10 codes, the first one primary (as an 837P lists them)."""
    return [ReferralDx(code, text, i == 0) for i, (code, text) in enumerate(codes)]
