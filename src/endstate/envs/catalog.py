"""Reference data the world generator draws from: code sets, departments, suppliers.

Codes are public code-set identifiers (ICD-10-CM, CPT, HCPCS, CARC, RARC) with short
descriptions written for this project; organisations and people are fictional.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dx:
    code: str
    description: str


@dataclass(frozen=True)
class Proc:
    code: str
    description: str
    lateral: bool  # a procedure on a paired organ, billed with RT or LT
    fee: int  # typical billed amount in whole dollars


@dataclass(frozen=True)
class Department:
    name: str
    specialty: str
    diagnoses: tuple[Dx, ...]
    procedures: tuple[Proc, ...]


DEPARTMENTS: tuple[Department, ...] = (
    Department(
        "Ophthalmology Surgery",
        "Ophthalmology",
        (
            Dx("H25.11", "Age-related nuclear cataract, right eye"),
            Dx("H25.12", "Age-related nuclear cataract, left eye"),
            Dx("H40.1131", "Primary open-angle glaucoma, bilateral, mild stage"),
            Dx("E11.3293", "Type 2 diabetes with mild nonproliferative retinopathy, bilateral"),
        ),
        (
            Proc("66984", "Cataract removal with intraocular lens insertion", True, 4200),
            Proc("92134", "Scanning computerized ophthalmic imaging, retina", False, 180),
            Proc("67028", "Intravitreal injection of a pharmacologic agent", True, 950),
        ),
    ),
    Department(
        "Orthopedic Surgery",
        "Orthopedics",
        (
            Dx("M17.11", "Unilateral primary osteoarthritis, right knee"),
            Dx("M17.12", "Unilateral primary osteoarthritis, left knee"),
            Dx("M75.121", "Complete rotator cuff tear, right shoulder, not traumatic"),
            Dx("S83.241A", "Other tear of medial meniscus, right knee, initial encounter"),
        ),
        (
            Proc("27447", "Total knee arthroplasty", True, 38500),
            Proc("29881", "Knee arthroscopy with meniscectomy", True, 7800),
            Proc("29827", "Shoulder arthroscopy with rotator cuff repair", True, 12400),
            Proc("20610", "Arthrocentesis or injection, major joint", True, 310),
        ),
    ),
    Department(
        "Diagnostic Radiology",
        "Radiology",
        (
            Dx("M54.50", "Low back pain, unspecified"),
            Dx("M54.16", "Radiculopathy, lumbar region"),
            Dx("R51.9", "Headache, unspecified"),
            Dx("M25.561", "Pain in right knee"),
        ),
        (
            Proc("72148", "MRI lumbar spine without contrast", False, 1900),
            Proc("70553", "MRI brain without and with contrast", False, 2800),
            Proc("73721", "MRI lower extremity joint without contrast", True, 1750),
            Proc("74177", "CT abdomen and pelvis with contrast", False, 2100),
        ),
    ),
    Department(
        "Cardiology",
        "Cardiology",
        (
            Dx("I25.10", "Atherosclerotic heart disease of native coronary artery"),
            Dx("I48.91", "Unspecified atrial fibrillation"),
            Dx("R07.9", "Chest pain, unspecified"),
            Dx("I50.32", "Chronic diastolic heart failure"),
        ),
        (
            Proc("93306", "Transthoracic echocardiography, complete", False, 1450),
            Proc("78452", "Myocardial perfusion imaging, multiple studies", False, 2600),
            Proc("93458", "Left heart catheterization with coronary angiography", False, 9800),
        ),
    ),
    Department(
        "Gastroenterology",
        "Gastroenterology",
        (
            Dx("K21.9", "Gastro-esophageal reflux disease without esophagitis"),
            Dx("K50.90", "Crohn's disease, unspecified, without complications"),
            Dx("Z12.11", "Encounter for screening for malignant neoplasm of colon"),
            Dx("R13.10", "Dysphagia, unspecified"),
        ),
        (
            Proc("45378", "Diagnostic colonoscopy", False, 2300),
            Proc("43239", "Upper GI endoscopy with biopsy", False, 1900),
            Proc("91110", "Gastrointestinal tract imaging, capsule endoscopy", False, 2700),
        ),
    ),
    Department(
        "Sleep Medicine",
        "Pulmonology",
        (
            Dx("G47.33", "Obstructive sleep apnea"),
            Dx("R06.83", "Snoring"),
            Dx("J44.9", "Chronic obstructive pulmonary disease, unspecified"),
        ),
        (
            Proc("95810", "Polysomnography, attended, 4 or more parameters", False, 3100),
            Proc("95811", "Polysomnography with CPAP titration", False, 3300),
            Proc("94010", "Spirometry", False, 140),
        ),
    ),
)


@dataclass(frozen=True)
class Carc:
    group: str  # CO (contractual), PR (patient responsibility), OA (other adjustment)
    code: str
    description: str
    remarks: tuple[str, ...]  # plausible RARC remark codes for this reason


CARCS: tuple[Carc, ...] = (
    Carc("CO", "197", "Precertification/authorization/notification absent", ("N54", "M62")),
    Carc("CO", "50", "Not deemed a medical necessity by the payer", ("N115", "M127")),
    Carc("CO", "16", "Claim lacks information needed for adjudication", ("MA130", "N382", "M51")),
    Carc("CO", "29", "The time limit for filing has expired", ("N211",)),
    Carc("CO", "4", "Procedure code inconsistent with the modifier used", ("N519", "M20")),
    Carc("CO", "18", "Exact duplicate claim or service", ("N522",)),
    Carc(
        "CO", "22", "Care may be covered by another payer per coordination of benefits", ("MA04",)
    ),
    Carc("PR", "27", "Expenses incurred after coverage terminated", ("N30",)),
    Carc("CO", "96", "Non-covered charge", ("N130", "M67")),
    Carc("PR", "1", "Deductible amount", ()),
    Carc("CO", "11", "Diagnosis inconsistent with the procedure", ("M76",)),
)

RARC_TEXT: dict[str, str] = {
    "N54": "Claim information is inconsistent with pre-certified/authorized services.",
    "M62": "Missing/incomplete/invalid treatment authorization code.",
    "N115": "Decision based on a local coverage determination.",
    "M127": "Missing patient medical record for this service.",
    "MA130": "Claim has missing or invalid information; submit a new claim.",
    "N382": "Missing/incomplete/invalid patient identifier.",
    "M51": "Missing/incomplete/invalid procedure code(s).",
    "N211": "Alert: you may not appeal this decision.",
    "N519": "Invalid combination of HCPCS modifiers.",
    "M20": "Missing/incomplete/invalid HCPCS.",
    "N522": "Duplicate of a claim processed, or to be processed, as a crossover claim.",
    "MA04": "Secondary payment cannot be considered without the primary payer's payment.",
    "N30": "Patient ineligible for this service.",
    "N130": "Consult plan benefit documents for information about restrictions.",
    "M67": "Missing/incomplete/invalid other procedure code(s).",
    "M76": "Missing/incomplete/invalid diagnosis or condition.",
}


@dataclass(frozen=True)
class DmeItem:
    hcpcs: str
    description: str
    required_documents: tuple[str, ...]  # document kinds a supplier needs before delivery


DME_ITEMS: tuple[DmeItem, ...] = (
    DmeItem(
        "E0601",
        "Continuous positive airway pressure (CPAP) device",
        ("face_to_face", "sleep_study", "prescription"),
    ),
    DmeItem(
        "E1390",
        "Oxygen concentrator, single delivery port",
        ("face_to_face", "lab", "prescription"),
    ),
    DmeItem(
        "E0260", "Hospital bed, semi-electric, with mattress", ("face_to_face", "prescription")
    ),
    DmeItem("K0001", "Standard manual wheelchair", ("face_to_face", "prescription", "lmn")),
    DmeItem("L1833", "Knee orthosis, adjustable, prefabricated", ("prescription", "clinical_note")),
    DmeItem("E0143", "Walker, folding, wheeled", ("prescription",)),
    DmeItem("E0784", "External ambulatory infusion pump, insulin", ("lab", "prescription", "lmn")),
)

SUPPLIERS: tuple[tuple[str, str], ...] = (
    ("Harborline Medical Supply", "(415) 555-0142"),
    ("Crestview Home Respiratory", "(510) 555-0177"),
    ("Pinecone Mobility & Rehab", "(650) 555-0119"),
    ("Tidewater Durable Equipment", "(408) 555-0163"),
)

DOCUMENT_KINDS: dict[str, str] = {
    "clinical_note": "Clinical note",
    "lab": "Lab result",
    "imaging": "Imaging report",
    "lmn": "Letter of medical necessity",
    "face_to_face": "Face-to-face encounter note",
    "prescription": "Prescription / standard written order",
    "sleep_study": "Sleep study report",
    "auth_letter": "Authorization letter",
    "appeal_letter": "Appeal letter",
}

NOTE_CATEGORIES: tuple[tuple[str, str], ...] = (
    ("general", "General"),
    ("auth-determination", "Authorization determination"),
    ("auth-follow-up", "Authorization follow-up"),
    ("payer-communication", "Payer communication"),
    ("patient-communication", "Patient communication"),
    ("scheduling", "Scheduling"),
)

DISPOSITIONS: tuple[tuple[str, str], ...] = (
    ("appeal", "Appeal"),
    ("corrected-claim", "Submit corrected claim"),
    ("reconsideration", "Request reconsideration"),
    ("bill-secondary", "Bill other coverage"),
    ("bill-patient", "Transfer to patient responsibility"),
    ("write-off", "Write off"),
)

REQUEST_TYPES: tuple[tuple[str, str], ...] = (
    ("outpatient", "Outpatient procedure"),
    ("inpatient", "Inpatient admission"),
    ("imaging", "Advanced imaging"),
    ("dme", "Durable medical equipment"),
)

APPEAL_TYPES: tuple[tuple[str, str], ...] = (  # Payer A's appeal form
    ("level-1", "Level 1 provider appeal"),
    ("reconsideration", "Reconsideration request"),
    ("expedited", "Expedited appeal"),
)

APPEAL_REASONS: tuple[tuple[str, str], ...] = (  # Payer B's appeal form
    ("auth-on-file", "Authorization was obtained"),
    ("medical-necessity", "Medical necessity"),
    ("coding", "Coding or modifier correction"),
    ("eligibility", "Member was eligible on the date of service"),
    ("timely-filing", "Proof of timely filing"),
    ("late-good-cause", "Late filing with good cause"),
)

AUTH_STATUSES: tuple[tuple[str, str], ...] = (  # recorded on an EHR referral
    ("approved", "Approved"),
    ("pending", "Pending payer review"),
    ("denied", "Denied"),
    ("not-required", "Not required"),
)

APPEAL_BASES: tuple[tuple[str, str], ...] = (  # the EHR's appeal letter builder
    ("auth-on-file", "Authorization was on file"),
    ("medical-necessity", "Service was medically necessary"),
    ("coding", "Corrected coding"),
    ("eligibility", "Coverage was active on the date of service"),
    ("timely-filing", "Claim was filed on time"),
)

LATERALITIES: tuple[tuple[str, str], ...] = (
    ("NA", "Not applicable"),
    ("RT", "Right (RT)"),
    ("LT", "Left (LT)"),
    ("50", "Bilateral (50)"),
)
