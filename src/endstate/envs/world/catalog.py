"""Reference data the world generator draws from: code sets, departments, remittance codes and
the forms' choices (DME items and suppliers: `dme_catalog.py`).

Codes are public code-set identifiers (ICD-10-CM, CPT, HCPCS, CARC, RARC, POS) with short
descriptions written for this project; organisations and people are fictional. The clinical part
is small but coherent: each procedure names the diagnoses that indicate it, a diagnosis carries
the side its code names, and CONFLICTS lists what never goes on one request or claim, so records
built from it pair services with the diagnoses that justify them.
"""

from __future__ import annotations

from dataclasses import dataclass

from endstate.rules.remittance import CARC_TEXT
from endstate.rules.remittance import RARC_TEXT as rules_rarc_text


@dataclass(frozen=True)
class Dx:
    """A diagnosis as the code set states it: the side belongs to the code (M17.11 is the right
    knee), so a service's laterality is read from its diagnosis, never drawn on its own."""

    code: str
    description: str
    side: str | None = None  # RT, LT, 50 (both sides) or None where the code names no side
    condition: str = ""  # key of CONDITIONS: the complaint and the conservative care that fit
    secondary: tuple[str, ...] = ()  # codes that may stand beside it as secondary diagnoses
    min_age: int = 0  # the youngest age it is plausible at (age-related, degenerative codes)


@dataclass(frozen=True)
class Proc:
    """A procedure and the rules a request or claim line for it must keep."""

    code: str
    description: str
    lateral: bool  # a procedure on a paired organ, billed with RT or LT
    fee: int  # typical billed amount in whole dollars
    indications: tuple[str, ...] = ()  # ICD-10-CM codes that justify it
    bilateral: bool = False  # both sides on one date: ONE unit with modifier 50 (CMS convention)
    max_units: int = 1  # units per date of service
    site: str = "office"  # key of SITES: where it is usually done
    alt_sites: tuple[str, ...] = ()  # other places it may be scheduled (keys of SITES)


@dataclass(frozen=True)
class Department:
    name: str
    specialty: str
    diagnoses: tuple[Dx, ...]
    procedures: tuple[Proc, ...]


SITES: dict[str, str] = {  # place of service, with its CMS POS code
    "office": "physician office (POS 11)",
    "outpatient_hospital": "outpatient hospital (POS 22)",
    "asc": "ambulatory surgical center (POS 24)",
    "inpatient": "inpatient hospital (POS 21)",
}

# Diagnoses used by more than one table.
# fmt: off
OSA = Dx("G47.33", "Obstructive sleep apnea", None, "osa", ("J44.9",))
COPD = Dx(
    "J44.9", "Chronic obstructive pulmonary disease, unspecified", None, "copd", ("G47.33",),
    min_age=40,
)
KNEE_OA_RT = Dx(
    "M17.11", "Unilateral primary osteoarthritis, right knee", "RT", "knee_oa", ("M75.121",),
    min_age=40,
)
KNEE_OA_BOTH = Dx(
    "M17.0", "Bilateral primary osteoarthritis of knee", "50", "knee_oa", ("M75.121",),
    min_age=40,
)
HF = Dx(
    "I50.22", "Chronic systolic (congestive) heart failure", None, "heart_failure",
    ("I48.91", "I25.119"), min_age=18,
)
# fmt: on

DEPARTMENTS: tuple[Department, ...] = (
    Department(
        "Ophthalmology Surgery",
        "Ophthalmology",
        (
            Dx("H25.11", "Age-related nuclear cataract, right eye", "RT", "cataract",
               ("H40.1131", "E11.3293"), min_age=50),
            Dx("H25.12", "Age-related nuclear cataract, left eye", "LT", "cataract",
               ("H40.1131", "E11.3293"), min_age=50),
            Dx("H25.13", "Age-related nuclear cataract, bilateral", "50", "cataract",
               ("H40.1131", "E11.3293"), min_age=50),
            Dx("H40.1131", "Primary open-angle glaucoma, bilateral, mild stage", "50", "glaucoma",
               ("H25.13",), min_age=40),
            Dx("H35.3211", "Exudative age-related macular degeneration, right eye, with active "
               "choroidal neovascularization", "RT", "wet_amd", ("H25.13",), min_age=55),
            Dx("E11.3212", "Type 2 diabetes mellitus with mild nonproliferative diabetic "
               "retinopathy with macular edema, left eye", "LT", "diabetic_eye", ("H25.13",),
               min_age=10),
            Dx("E11.3293", "Type 2 diabetes mellitus with mild nonproliferative diabetic "
               "retinopathy without macular edema, bilateral", "50", "diabetic_eye",
               ("H25.13", "H40.1131"), min_age=10),
        ),
        (
            Proc("66984", "Cataract removal with intraocular lens insertion", True, 4200,
                 ("H25.11", "H25.12", "H25.13"), site="asc", alt_sites=("outpatient_hospital",)),
            Proc("92134", "Scanning computerized ophthalmic imaging, retina", False, 180,
                 ("H35.3211", "E11.3212", "E11.3293")),
            Proc("92133", "Scanning computerized ophthalmic imaging, optic nerve", False, 170,
                 ("H40.1131",)),
            Proc("67028", "Intravitreal injection of a pharmacologic agent", True, 950,
                 ("H35.3211", "E11.3212"), bilateral=True),
            Proc("65855", "Laser trabeculoplasty", True, 1100, ("H40.1131",)),
        ),
    ),
    Department(
        "Orthopedic Surgery",
        "Orthopedics",
        (
            KNEE_OA_RT,
            Dx("M17.12", "Unilateral primary osteoarthritis, left knee", "LT", "knee_oa",
               ("M75.121",), min_age=40),
            KNEE_OA_BOTH,
            Dx("M75.121", "Complete rotator cuff tear or rupture of right shoulder, not "
               "specified as traumatic", "RT", "rotator_cuff", ("M17.11", "M17.12", "M17.0"),
               min_age=30),
            Dx("S83.241A", "Other tear of medial meniscus, current injury, right knee, initial "
               "encounter", "RT", "meniscus", min_age=12),
            Dx("S83.242A", "Other tear of medial meniscus, current injury, left knee, initial "
               "encounter", "LT", "meniscus", min_age=12),
        ),
        (
            Proc("27447", "Total knee arthroplasty", True, 38500,
                 ("M17.11", "M17.12", "M17.0"), site="inpatient"),
            Proc("29881", "Knee arthroscopy with meniscectomy", True, 7800,
                 ("S83.241A", "S83.242A"), site="asc", alt_sites=("outpatient_hospital",)),
            Proc("29827", "Shoulder arthroscopy with rotator cuff repair", True, 12400,
                 ("M75.121",), site="asc", alt_sites=("outpatient_hospital",)),
            Proc("20610", "Arthrocentesis or injection, major joint", True, 310,
                 ("M17.11", "M17.12", "M17.0", "M75.121"), bilateral=True),
            # Not for a meniscus tear (nor a shoulder film for a rotator cuff tear): their
            # workup's study is the MRI already on the chart, and a plain film is not ordered
            # after an MRI of the same joint.
            Proc("73562", "Radiographs of the knee, 3 views", True, 150, ("M17.11", "M17.12")),
            Proc("73565", "Radiographs of both knees, standing", False, 140, ("M17.0",)),
        ),
    ),
    Department(
        "Diagnostic Radiology",
        "Radiology",
        (
            Dx("M54.50", "Low back pain, unspecified", None, "back"),
            Dx("M54.16", "Radiculopathy, lumbar region", None, "radiculopathy", ("M54.50",),
               min_age=18),
            Dx("R51.9", "Headache, unspecified", None, "headache"),
            Dx("M25.561", "Pain in right knee", "RT", "knee_pain"),
            Dx("M25.562", "Pain in left knee", "LT", "knee_pain"),
            Dx("R10.84", "Generalized abdominal pain", None, "abdominal_pain"),
        ),
        (
            Proc("72148", "MRI lumbar spine without contrast", False, 1900,
                 ("M54.50", "M54.16"), site="outpatient_hospital"),
            Proc("70553", "MRI brain without and with contrast", False, 2800, ("R51.9",),
                 site="outpatient_hospital"),
            Proc("73721", "MRI lower extremity joint without contrast", True, 1750,
                 ("M25.561", "M25.562"), site="outpatient_hospital"),
            Proc("74177", "CT abdomen and pelvis with contrast", False, 2100, ("R10.84",),
                 site="outpatient_hospital"),
        ),
    ),
    Department(
        "Cardiology",
        "Cardiology",
        (
            Dx("I25.119", "Atherosclerotic heart disease of native coronary artery with "
               "unspecified angina pectoris", None, "cad", ("I48.91", "I50.22"), min_age=35),
            Dx("I48.91", "Unspecified atrial fibrillation", None, "afib", ("I50.22", "I25.119"),
               min_age=18),
            Dx("R07.9", "Chest pain, unspecified", None, "chest_pain", ("I48.91",)),
            HF,
        ),
        (
            Proc("93306", "Transthoracic echocardiography, complete", False, 1450,
                 ("I25.119", "I48.91", "R07.9", "I50.22"), site="outpatient_hospital"),
            Proc("78452", "Myocardial perfusion imaging, multiple studies", False, 2600,
                 ("I25.119", "R07.9"), site="outpatient_hospital"),
            Proc("93458", "Left heart catheterization with coronary angiography", False, 9800,
                 ("I25.119",), site="outpatient_hospital"),
            Proc("93000", "Electrocardiogram, 12 leads, with interpretation", False, 60,
                 ("I25.119", "I48.91", "R07.9", "I50.22")),
        ),
    ),
    Department(
        "Gastroenterology",
        "Gastroenterology",
        (
            Dx("K21.9", "Gastro-esophageal reflux disease without esophagitis", None, "gerd",
               ("R13.10",)),
            Dx("K50.90", "Crohn's disease, unspecified, without complications", None, "crohns",
               ("D50.0",)),
            Dx("D50.0", "Iron deficiency anemia secondary to blood loss (chronic)", None,
               "anemia", ("K21.9", "K50.90")),
            Dx("R13.10", "Dysphagia, unspecified", None, "dysphagia", ("K21.9",)),
        ),
        (
            Proc("45378", "Diagnostic colonoscopy", False, 2300, ("K50.90", "D50.0"), site="asc",
                 alt_sites=("outpatient_hospital",)),
            Proc("43239", "Upper GI endoscopy with biopsy", False, 1900,
                 ("K21.9", "D50.0", "R13.10"), site="asc", alt_sites=("outpatient_hospital",)),
            Proc("91110", "Gastrointestinal tract imaging, capsule endoscopy", False, 2700,
                 ("K50.90", "D50.0")),
        ),
    ),
    Department(
        "Sleep Medicine",
        "Pulmonology",
        (OSA, Dx("R06.83", "Snoring", None, "snoring", ("J44.9",)), COPD),
        (
            Proc("95810", "Polysomnography, attended, 4 or more parameters", False, 3100,
                 ("R06.83",), site="outpatient_hospital"),
            Proc("95811", "Polysomnography with CPAP titration", False, 3300, ("G47.33",),
                 site="outpatient_hospital"),
            Proc("94010", "Spirometry", False, 140, ("J44.9",)),
            Proc("94618", "Pulmonary stress testing (6-minute walk) with oximetry", False, 120,
                 ("J44.9",)),
        ),
    ),
)  # fmt: skip

# Pairs never requested or billed together for one patient and date, with the reason.
CONFLICTS: tuple[tuple[str, str, str], ...] = (
    ("27447", "29881", "a knee replacement removes the menisci; no separate meniscectomy"),
    ("27447", "73562", "pre-operative radiographs are taken at a separate visit"),
    ("27447", "73565", "pre-operative radiographs are taken at a separate visit"),
    ("29881", "73562", "pre-operative radiographs are taken at a separate visit"),
    ("27447", "20610", "a joint injection is bundled into surgery on the same joint"),
    ("29881", "20610", "a joint injection is bundled into surgery on the same joint"),
    ("29827", "20610", "a joint injection is bundled into surgery on the same joint"),
    ("66984", "92134", "pre-operative imaging is a separate visit from cataract surgery"),
    ("92133", "92134", "optic-nerve and retina imaging are mutually exclusive on one date"),
    ("93458", "78452", "catheterization follows the result of stress imaging"),
    ("91110", "45378", "capsule endoscopy follows a negative colonoscopy"),
    ("91110", "43239", "capsule endoscopy follows a negative upper endoscopy"),
    ("95810", "95811", "a titration study replaces a second diagnostic study"),
)


@dataclass(frozen=True)
class Carc:
    group: str  # CO (contractual), PR (patient responsibility), OA (other adjustment)
    code: str
    description: str
    remarks: tuple[str, ...]  # plausible RARC remark codes for this reason


# Descriptions are the published texts (rules.remittance); remarks are those the reason's
# payers send (a Medicare-only remark is dropped on other payers' remittances: remark_fits).
CARCS: tuple[Carc, ...] = tuple(
    Carc(group, code, CARC_TEXT[code], remarks)
    for group, code, remarks in (
        ("CO", "197", ("N54", "M62")),
        ("CO", "50", ("N115", "M127")),
        ("CO", "16", ("MA130", "N382", "M51")),
        ("CO", "29", ("N211",)),
        ("CO", "4", ("N519", "M20")),
        ("OA", "18", ("N522",)),  # X12 publishes CARC 18 for group OA
        ("CO", "22", ("MA04",)),
        ("PR", "27", ("N30",)),
        ("CO", "96", ("N130", "M67")),
        ("PR", "1", ()),
        ("CO", "11", ("M76",)),
    )
)

# Reasons that by their published meaning (rules.remittance) judge the whole claim, not one
# service on it: the plan had ended on the date of service (PR-27), another payer pays first
# (CO-22), the claim was filed too late (CO-29). Claim lines carry no date of their own, so a
# payer that gives one of these denies every line with it; the other reasons may fall on one
# line and leave the rest paid (a duplicate, OA-18, may be one service billed twice).
CLAIM_LEVEL_CARCS: frozenset[tuple[str, str]] = frozenset(
    {("PR", "27"), ("CO", "22"), ("CO", "29")}
)

# The adjustments a paid remittance line carries besides its headline reason (CARC group-code).
CONTRACTUAL = ("CO", "45", CARC_TEXT["45"])
# The member's share on a paid line, as a remittance names it.
MEMBER_SHARE_TEXT = {code: CARC_TEXT[code] for code in ("1", "2", "3")}
PATIENT_SHARE: dict[str, str] = {  # group PR: what the member owes on an allowed amount
    "1": "Deductible amount",
    "2": "Coinsurance amount",
    "3": "Co-payment amount",
}

RARC_TEXT = rules_rarc_text


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
