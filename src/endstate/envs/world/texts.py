"""The prose of generated documents and policies, and small service helpers."""

from __future__ import annotations

import random
from dataclasses import dataclass

from endstate.envs.world import catalog, clinical
from endstate.envs.world.catalog import Department, Dx, Proc
from endstate.envs.world.letters import LetterFacts, letter
from endstate.envs.world.model import DmeOrder, Patient, Plan, Referral, Service, mdy


def service_line(proc: Proc, dx: Dx, side: str | None) -> Service:
    """One service line for a procedure its diagnosis indicates. Laterality comes from the
    diagnosis: a paired-organ procedure takes the code's side; a bilateral diagnosis takes 50
    (one unit, the CMS convention) where the procedure is billed bilaterally, else `side`, the
    one side chosen for the episode. Every catalogued service is one unit per date."""
    laterality = None
    if proc.lateral:
        laterality = "50" if dx.side == "50" and proc.bilateral else side
    return Service(proc.code, proc.description, 1, laterality)


def _side(s: Service) -> str:
    return {"RT": " (right)", "LT": " (left)", "50": " (bilateral)"}.get(s.laterality or "", "")


def medical_policy_text(
    plan: Plan, proc: Proc, required: bool, policy_id: str, sites: list[str] | None = None
) -> str:
    """The plan's medical policy for the procedure: what needs authorization, where, how."""
    head = f"{plan.name} medical policy {policy_id}. {proc.description} (CPT {proc.code})"
    if required and sites:
        where = " or ".join(catalog.SITES[s] for s in sites)
        free = " or ".join(catalog.SITES[s] for s in (proc.site, *proc.alt_sites) if s not in sites)
        return (
            f"{head} requires prior authorization only when performed in an {where}; when "
            f"performed in an {free} no prior authorization is required (site-of-service "
            "program). Requests for the hospital setting are submitted through the provider "
            "portal with supporting clinical documentation; services rendered there without an "
            "approved authorization are denied as provider liability (CARC 197)."
        )
    if required:
        how = (
            "through the provider portal"
            if plan.portal
            else f"by fax to utilization management at {plan.fax}"
        )
        if plan.delegated_to:
            how = f"to the delegated group {plan.delegated_to} by fax at {plan.fax}"
        return (
            f"{head} requires prior authorization before the date of service. Requests are "
            f"submitted {how} with the ordering provider's NPI, ICD-10 diagnosis codes, CPT codes "
            "with units and laterality, and supporting clinical documentation. Services rendered "
            "without an approved authorization are denied as provider liability (CARC 197)."
        )
    return (
        f"{head} does not require prior authorization when performed in a participating "
        "facility. No notification is needed; claims are subject to retrospective review for "
        "medical necessity."
    )


@dataclass(frozen=True)
class Course:
    """The conservative care a referral's notes and letters state: one therapy from the primary
    diagnosis' condition (None where no conservative care substitutes) and its weeks."""

    therapy: str | None
    weeks: int


def conservative_course(rng: random.Random, dx: Dx, years: int) -> Course:
    """The course of care a patient of `years` was given (only care that fits the age)."""
    therapies = clinical.condition(dx).therapies_for(years)
    weeks = rng.choice([6, 8, 12, 16])
    return Course(rng.choice(therapies) if therapies else None, weeks)


def _site(dept: Department, s: Service) -> str:
    """Where the service is scheduled: the referral's own place, else the usual one."""
    proc = next(p for p in dept.procedures if p.code == s.cpt)
    return catalog.SITES[s.site or proc.site]


def consultation_note_text(
    p: Patient, ref: Referral, dept: Department, doctor: str, visit: str, course: Course
) -> str:
    """The specialist's consultation note that documents the referral's need."""
    primary = next(d for d in ref.diagnoses if d.primary)
    complaint = clinical.condition(clinical.diagnosis(primary.code)).complaint
    if course.therapy:
        history = f"{complaint} despite {course.weeks} weeks of {course.therapy}."
    else:
        history = f"{complaint}. Prompt treatment is indicated; no conservative care substitutes."
    dx = "; ".join(f"{d.code} {d.description}" for d in ref.diagnoses)
    plan = "; ".join(
        f"{s.description}{_side(s)}, CPT {s.cpt} x{s.quantity}, {_site(dept, s)}"
        for s in ref.services
    )
    return (
        f"{dept.specialty.upper()} CONSULTATION\n"
        f"Patient: {p.last}, {p.first}    DOB: {mdy(p.dob)}    MRN: {p.mrn}\n"
        f"Date of service: {mdy(visit)}    Provider: {doctor}\n\n"
        f"History of present illness: {p.first} {p.last} presents for {ref.reason.lower()}. "
        f"{history} Functional limitation is documented in activities of daily living.\n\n"
        f"Assessment: {dx}.\n"
        f"Plan: {plan}. Risks, benefits and alternatives discussed; "
        "the patient wishes to proceed.\n\n"
        f"Electronically signed by {doctor} on {mdy(visit)}."
    )


def necessity_letter_text(
    p: Patient,
    ref: Referral,
    to: str,
    doctor: str,
    course: Course,
    visit: str,
    older: bool = False,
) -> str:
    """The letter of medical necessity for the referral (`older`: the superseded one)."""
    services = ref.services
    if older:  # the superseded letter asked for the other side, corrected since
        services = [
            Service(
                s.cpt,
                s.description,
                s.quantity,
                {"RT": "LT", "LT": "RT"}.get(s.laterality or "", s.laterality),
            )
            for s in services
        ]
    asks = [f"{s.description}{_side(s)} (CPT {s.cpt}, {s.quantity} unit(s))" for s in services]
    if course.therapy:
        tried = (
            f"Conservative management with {course.therapy} for {course.weeks} weeks, as "
            f"documented at the consultation of {mdy(visit)}, has not relieved symptoms"
        )
    else:
        tried = "No conservative care substitutes for prompt treatment of this condition"
    facts = LetterFacts(
        to=to,
        patient=f"{p.first} {p.last}, DOB {mdy(p.dob)}, {p.mrn}",
        dated="",
        asks=asks,
        diagnoses=[f"{d.code} {d.description}" for d in ref.diagnoses],
        rationale=f"{tried}, and the requested service is the standard of care for this "
        "presentation. Delay is expected to worsen function.",
        signature=f"Electronically signed by {doctor}.",
    )
    return letter(doctor, facts)


def imaging_report_text(p: Patient, ref: Referral, when: str, rng: random.Random) -> str | None:
    """The prior radiology study of the primary diagnosis' workup, or None where none belongs."""
    primary = next(d for d in ref.diagnoses if d.primary)
    dx = clinical.diagnosis(primary.code)
    study = clinical.condition(dx).imaging
    if study is None:
        return None
    exam, findings = study
    side = {"RT": " (right)", "LT": " (left)", "50": " (bilateral)"}.get(dx.side or "", "")
    return (
        f"IMAGING REPORT\nPatient: {p.last}, {p.first}  DOB: {mdy(p.dob)}  MRN: {p.mrn}\n"
        f"Exam: {exam}{side}    Exam date: {mdy(when)}\n"
        f"Indication: {primary.description}.\n"
        f"Impression: {rng.choice(findings)}.\nElectronically signed by the reading radiologist."
    )


def dme_document_text(
    p: Patient, order: DmeOrder, kind: str, doctor: str, rng: random.Random
) -> str:
    """A document of a DME order, written for its item: each cites the item's qualifying
    diagnosis, and a lab report shows only the result that qualifies for this item."""
    return (
        f"{catalog.DOCUMENT_KINDS[kind].upper()}\n"
        f"Patient: {p.last}, {p.first}  DOB: {mdy(p.dob)}  MRN: {p.mrn}\n"
        f"Order: {order.id} ({order.hcpcs})\n\n{_dme_body(order, kind, rng)}\n\n"
        f"Electronically signed by {doctor}."
    )


def _dme_body(order: DmeOrder, kind: str, rng: random.Random) -> str:
    item = clinical.dme_item(order.hcpcs)
    assert item.diagnosis is not None
    cite = f"Diagnosis: {item.diagnosis.code} {item.diagnosis.description}."
    if kind == "face_to_face":
        return (
            f"Face-to-face evaluation for {order.description.lower()}. {item.need}. {cite} "
            "Use in the home is required; mobility and safety assessed."
        )
    if kind == "prescription":
        return (
            f"Standard written order: {order.hcpcs} {order.description}, quantity "
            f"{order.quantity}, length of need 99 months. {cite}"
        )
    result = order.result
    if kind == "sleep_study":
        ahi = int(result) if result is not None else rng.randint(16, 48)
        verdict = "CPAP indicated." if ahi >= 15 else "Findings in the mild range."
        return f"Attended polysomnography: apnea-hypopnea index {ahi} events/hour. {cite} {verdict}"
    if kind == "lab" and item.lab == "SpO2":
        spo2 = int(result) if result is not None else rng.randint(82, 88)
        pao2 = rng.randint(48, 55) if spo2 <= 88 else rng.randint(60, 68)
        return f"Resting SpO2 {spo2}% on room air; arterial PaO2 {pao2} mm Hg. {cite}"
    if kind == "lab" and item.lab == "HbA1c":
        a1c = result if result is not None else rng.randint(75, 95) / 10
        return f"HbA1c {a1c}%; fasting C-peptide below the reference range. {cite}"
    if kind == "lmn":
        return f"{order.description} is medically necessary: {item.alternatives}. {cite}"
    if kind == "clinical_note":
        return f"Examination: {item.need}. {cite}"
    raise ValueError(f"no {kind} document is written for {order.hcpcs}")
