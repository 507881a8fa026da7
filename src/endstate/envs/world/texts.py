"""The prose of generated documents and policies, and small service helpers."""

from __future__ import annotations

import random

from endstate.envs import catalog
from endstate.envs.catalog import Department, Proc
from endstate.envs.world.model import DmeOrder, Patient, Plan, Referral, Service, mdy


def _service(rng: random.Random, proc: Proc) -> Service:
    laterality = rng.choice(["RT", "LT", "RT", "LT", "50"]) if proc.lateral else None
    quantity = 2 if laterality == "50" else (rng.choice([1, 1, 1, 2]) if proc.fee < 500 else 1)
    return Service(proc.code, proc.description, quantity, laterality)


def _side(s: Service) -> str:
    return {"RT": " (right)", "LT": " (left)", "50": " (bilateral)"}.get(s.laterality or "", "")


def _policy_text(plan: Plan, proc: Proc, required: bool, policy_id: str) -> str:
    head = f"{plan.name} medical policy {policy_id}. {proc.description} (CPT {proc.code})"
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


def _clinical_note(
    p: Patient, ref: Referral, dept: Department, doctor: str, visit: str, rng: random.Random
) -> str:
    weeks = rng.choice([6, 8, 12, 16])
    therapies = rng.choice(
        [
            "physical therapy",
            "NSAIDs and activity modification",
            "topical therapy",
            "a home exercise program",
            "medication titration",
        ]
    )
    dx = "; ".join(f"{d.code} {d.description}" for d in ref.diagnoses)
    plan = "; ".join(f"{s.description}{_side(s)}, CPT {s.cpt} x{s.quantity}" for s in ref.services)
    return (
        f"{dept.specialty.upper()} CONSULTATION\n"
        f"Patient: {p.last}, {p.first}    DOB: {mdy(p.dob)}    MRN: {p.mrn}\n"
        f"Date of service: {mdy(visit)}    Provider: {doctor}\n\n"
        f"History of present illness: {p.first} {p.last} presents for {ref.reason.lower()}. "
        f"Symptoms have persisted despite {weeks} weeks of {therapies}. Functional limitation "
        "is documented in activities of daily living.\n\n"
        f"Assessment: {dx}.\n"
        f"Plan: {plan}. Risks, benefits and alternatives discussed; "
        "the patient wishes to proceed.\n\n"
        f"Electronically signed by {doctor} on {mdy(visit)}."
    )


def _lmn(
    p: Patient, ref: Referral, to: str, doctor: str, rng: random.Random, older: bool = False
) -> str:
    services = ref.services
    if older:  # the superseded letter asked for something slightly different
        services = [
            Service(
                s.cpt,
                s.description,
                s.quantity,
                {"RT": "LT", "LT": "RT"}.get(s.laterality or "", s.laterality),
            )
            for s in services
        ]
    asks = "; ".join(
        f"{s.description}{_side(s)} (CPT {s.cpt}, {s.quantity} unit(s))" for s in services
    )
    dx = ", ".join(d.code for d in ref.diagnoses)
    return (
        "LETTER OF MEDICAL NECESSITY\n"
        f"To: {to}\n"
        f"Re: {p.first} {p.last}, DOB {mdy(p.dob)}, MRN {p.mrn}\n\n"
        f"I am writing to request coverage of the following for my patient: {asks}. "
        f"Diagnoses: {dx}. Conservative management over {rng.randint(6, 20)} weeks has not "
        "relieved symptoms, and the requested service is the standard of care for this "
        "presentation. Delay is expected to worsen function.\n\n"
        f"Electronically signed by {doctor}."
    )


def _imaging(p: Patient, ref: Referral, when: str, rng: random.Random) -> str:
    finding = rng.choice(
        [
            "moderate degenerative change",
            "no acute abnormality",
            "findings consistent with the clinical history",
            "interval progression compared with the prior study",
        ]
    )
    return (
        f"IMAGING REPORT\nPatient: {p.last}, {p.first}  DOB: {mdy(p.dob)}  MRN: {p.mrn}\n"
        f"Exam date: {mdy(when)}\nIndication: {ref.diagnoses[0].description}.\n"
        f"Impression: {finding}.\nElectronically signed by the reading radiologist."
    )


def _dme_text(p: Patient, order: DmeOrder, kind: str, doctor: str, rng: random.Random) -> str:
    label = catalog.DOCUMENT_KINDS[kind]
    item = order.description.lower()
    body = {
        "face_to_face": f"Face-to-face evaluation performed; the patient requires {item} "
        "for use in the home. Mobility and safety assessed.",
        "prescription": f"Standard written order: {order.hcpcs} {order.description}, quantity "
        f"{order.quantity}, length of need 99 months.",
        "sleep_study": f"Apnea-hypopnea index {rng.randint(16, 48)} events/hour; CPAP indicated.",
        "lab": f"Resting SpO2 {rng.randint(82, 88)}% on room air; "
        f"HbA1c {rng.randint(68, 95) / 10}%.",
        "lmn": f"{order.description} is medically necessary; alternatives have been tried.",
        "clinical_note": f"Examination supports the need for {item}.",
    }[kind]
    return (
        f"{label.upper()}\nPatient: {p.last}, {p.first}  DOB: {mdy(p.dob)}  MRN: {p.mrn}\n"
        f"Order: {order.id} ({order.hcpcs})\n\n{body}\n\nElectronically signed by {doctor}."
    )
