"""The clinical vocabulary the population draws from, in the spirit of Synthea's modules:
SNOMED-coded problems (chronic, acute, and the social findings Synthea repeats at every
wellness visit), RxNorm-style medication strings, LOINC lab panels, CVX vaccines.

Plain tuples: the generator picks from them with its own rng, so their order is part of the
population's determinism (append, never reorder).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chronic:
    """A long-term condition: its code, the medications that treat it, who manages it."""

    code: str
    description: str
    drugs: tuple[tuple[str, str, str], ...]  # (drug, dosage, directions)
    specialty: str
    min_age: int = 0  # the youngest age it is diagnosed at here
    ends: tuple[str, ...] = ()  # codes of conditions its diagnosis closes (diabetes: prediabetes)


@dataclass(frozen=True)
class Acute:
    code: str
    description: str
    days: tuple[int, int]  # how long it lasts
    drugs: tuple[tuple[str, str, str], ...]


@dataclass(frozen=True)
class LabTest:
    loinc: str
    name: str
    units: str
    low: float  # the usual spread of results (no reference range is ever shown)
    high: float
    decimals: int


CHRONIC: tuple[Chronic, ...] = (
    Chronic(
        "59621000",
        "Essential hypertension (disorder)",
        (
            ("lisinopril 10 MG Oral Tablet", "10 mg", "Take 1 tablet by mouth once daily"),
            ("amLODIPine 5 MG Oral Tablet", "5 mg", "Take 1 tablet by mouth once daily"),
        ),
        "Cardiology",
        min_age=18,
    ),
    Chronic(
        "44054006",
        "Diabetes mellitus type 2 (disorder)",
        (
            (
                "metFORMIN hydrochloride 500 MG Oral Tablet",
                "500 mg",
                "Take 1 tablet by mouth twice daily with meals",
            ),
        ),
        "Endocrinology",
        min_age=25,
        ends=("714628002",),
    ),
    Chronic(
        "55822004",
        "Hyperlipidemia (disorder)",
        (("Simvastatin 20 MG Oral Tablet", "20 mg", "Take 1 tablet by mouth at bedtime"),),
        "Cardiology",
        min_age=25,
    ),
    Chronic(
        "195967001",
        "Asthma (disorder)",
        (
            (
                "Albuterol 0.09 MG/ACTUAT Metered Dose Inhaler",
                "2 puffs",
                "Inhale 2 puffs every 4 to 6 hours as needed for wheezing",
            ),
            (
                "Fluticasone propionate 0.044 MG/ACTUAT Metered Dose Inhaler",
                "2 puffs",
                "Inhale 2 puffs twice daily",
            ),
        ),
        "Pulmonology",
    ),
    Chronic(
        "235595009",
        "Gastroesophageal reflux disease (disorder)",
        (("Omeprazole 20 MG Delayed Release Oral Capsule", "20 mg", "Take 1 capsule daily"),),
        "Gastroenterology",
    ),
    Chronic(
        "40055000",
        "Chronic sinusitis (disorder)",
        (
            (
                "Fluticasone propionate 0.05 MG/ACTUAT Nasal Spray",
                "1 spray",
                "1 spray each nostril daily",
            ),
        ),
        "Otolaryngology",
    ),
    Chronic(
        "239873007",
        "Osteoarthritis of knee (disorder)",
        (("Naproxen sodium 220 MG Oral Tablet", "220 mg", "Take 1 tablet twice daily as needed"),),
        "Orthopedic Surgery",
        min_age=40,
    ),
    Chronic(
        "370143000",
        "Major depressive disorder (disorder)",
        (("Sertraline 50 MG Oral Tablet", "50 mg", "Take 1 tablet by mouth once daily"),),
        "Psychiatry",
    ),
    Chronic(
        "40930008",
        "Hypothyroidism (disorder)",
        (("Levothyroxine sodium 0.075 MG Oral Tablet", "75 mcg", "Take 1 tablet every morning"),),
        "Endocrinology",
    ),
    Chronic(
        "714628002",
        "Prediabetes (finding)",
        (),
        "Endocrinology",
        min_age=18,
    ),
    Chronic(
        "162864005",
        "Body mass index 30+ - obesity (finding)",
        (),
        "Family Medicine",
    ),
    Chronic(
        "431855005",
        "Chronic kidney disease stage 1 (disorder)",
        (),
        "Nephrology",
        min_age=18,
    ),
    Chronic(
        "49436004",
        "Atrial fibrillation (disorder)",
        (("Apixaban 5 MG Oral Tablet", "5 mg", "Take 1 tablet by mouth twice daily"),),
        "Cardiology",
        min_age=40,
    ),
)

ACUTE: tuple[Acute, ...] = (
    Acute(
        "195662009",
        "Acute viral pharyngitis (disorder)",
        (7, 14),
        (("Acetaminophen 325 MG Oral Tablet", "650 mg", "Take 2 tablets every 6 hours as needed"),),
    ),
    Acute(
        "75498004",
        "Acute bacterial sinusitis (disorder)",
        (10, 21),
        (
            (
                "Amoxicillin 250 MG / Clavulanate 125 MG Oral Tablet",
                "1 tablet",
                "Take 1 tablet every 12 hours for 10 days",
            ),
        ),
    ),
    Acute(
        "10509002",
        "Acute bronchitis (disorder)",
        (14, 28),
        (("Dextromethorphan 10 MG/5ML Oral Syrup", "10 mL", "Take 10 mL every 6 hours as needed"),),
    ),
    Acute(
        "44465007",
        "Sprain of ankle (disorder)",
        (14, 42),
        (("Ibuprofen 400 MG Oral Tablet", "400 mg", "Take 1 tablet every 8 hours with food"),),
    ),
    Acute(
        "283371005",
        "Laceration of forearm (disorder)",
        (7, 21),
        (),
    ),
    Acute(
        "68566005",
        "Urinary tract infectious disease (disorder)",
        (5, 10),
        (
            (
                "Nitrofurantoin 100 MG Oral Capsule",
                "100 mg",
                "Take 1 capsule twice daily for 5 days",
            ),
        ),
    ),
    Acute(
        "65363002",
        "Otitis media (disorder)",
        (7, 14),
        (("Amoxicillin 500 MG Oral Capsule", "500 mg", "Take 1 capsule 3 times daily for 7 days"),),
    ),
    Acute(
        "43878008",
        "Streptococcal sore throat (disorder)",
        (7, 10),
        (("Penicillin V Potassium 500 MG Oral Tablet", "500 mg", "Take 1 tablet twice daily"),),
    ),
    Acute(
        "840539006",
        "COVID-19 (disorder)",
        (10, 28),
        (("Acetaminophen 500 MG Oral Tablet", "500 mg", "Take 1 tablet every 6 hours as needed"),),
    ),
    Acute(
        "62106007",
        "Concussion with no loss of consciousness (disorder)",
        (14, 60),
        (),
    ),
)

CBC = (
    LabTest("6690-2", "Leukocytes [#/volume] in Blood by Automated count", "10*3/uL", 3.8, 11.5, 1),
    LabTest("789-8", "Erythrocytes [#/volume] in Blood by Automated count", "10*6/uL", 3.9, 6.0, 2),
    LabTest("718-7", "Hemoglobin [Mass/volume] in Blood", "g/dL", 11.2, 17.8, 1),
    LabTest(
        "4544-3", "Hematocrit [Volume Fraction] of Blood by Automated count", "%", 34.0, 52.0, 1
    ),
    LabTest("787-2", "MCV [Entitic volume] by Automated count", "fL", 78.0, 101.0, 1),
    LabTest("785-6", "MCH [Entitic mass] by Automated count", "pg", 26.0, 34.0, 1),
    LabTest("786-4", "MCHC [Mass/volume] by Automated count", "g/dL", 31.5, 36.5, 1),
    LabTest(
        "777-3", "Platelets [#/volume] in Blood by Automated count", "10*3/uL", 140.0, 420.0, 0
    ),
)
METABOLIC = (
    LabTest("2339-0", "Glucose [Mass/volume] in Blood", "mg/dL", 68.0, 140.0, 0),
    LabTest("6299-2", "Urea nitrogen [Mass/volume] in Blood", "mg/dL", 6.0, 24.0, 0),
    LabTest("38483-4", "Creatinine [Mass/volume] in Blood", "mg/dL", 0.55, 1.45, 2),
    LabTest("49765-1", "Calcium [Mass/volume] in Blood", "mg/dL", 8.4, 10.4, 1),
    LabTest("2947-0", "Sodium [Moles/volume] in Blood", "mmol/L", 134.0, 146.0, 0),
    LabTest("6298-4", "Potassium [Moles/volume] in Blood", "mmol/L", 3.4, 5.3, 1),
    LabTest("2069-3", "Chloride [Moles/volume] in Blood", "mmol/L", 96.0, 109.0, 0),
    LabTest("20565-8", "Carbon dioxide, total [Moles/volume] in Blood", "mmol/L", 21.0, 30.0, 0),
    LabTest(  # computed from the creatinine beside it (physiology.egfr), never drawn
        "98979-8",
        "Glomerular filtration rate/1.73 sq M.predicted [Volume Rate/Area] in Serum, Plasma or "
        "Blood by Creatinine-based formula (CKD-EPI 2021)",
        "mL/min/1.73m2",
        60.0,
        120.0,
        0,
    ),
)
LIPIDS = (
    LabTest("2093-3", "Cholesterol [Mass/volume] in Serum or Plasma", "mg/dL", 140.0, 260.0, 1),
    LabTest("2571-8", "Triglycerides", "mg/dL", 60.0, 260.0, 1),
    LabTest("18262-6", "Low Density Lipoprotein Cholesterol", "mg/dL", 60.0, 180.0, 1),
    LabTest("2085-9", "High Density Lipoprotein Cholesterol", "mg/dL", 30.0, 85.0, 1),
)
VITALS = (
    LabTest("8302-2", "Body Height", "cm", 150.0, 192.0, 1),
    LabTest("29463-7", "Body Weight", "kg", 48.0, 118.0, 1),
    LabTest("39156-5", "Body Mass Index", "kg/m2", 18.5, 38.0, 1),
    LabTest("8462-4", "Diastolic Blood Pressure", "mm[Hg]", 62.0, 96.0, 0),
    LabTest("8480-6", "Systolic Blood Pressure", "mm[Hg]", 102.0, 158.0, 0),
    LabTest("8867-4", "Heart rate", "/min", 56.0, 100.0, 0),
    LabTest("9279-1", "Respiratory rate", "/min", 12.0, 20.0, 0),
)
SINGLES = (
    LabTest("4548-4", "Hemoglobin A1c/Hemoglobin.total in Blood", "%", 4.6, 8.9, 1),
    LabTest("3016-3", "Thyrotropin [Units/volume] in Serum or Plasma", "m[IU]/L", 0.3, 5.2, 2),
)
URINE = (
    ("5792-7", "Glucose [Mass/volume] in Urine by Test strip", "mg/dL", ("Negative", "Trace")),
    ("20454-5", "Protein [Presence] in Urine by Test strip", "", ("Negative", "Trace", "1+")),
    ("5803-2", "pH of Urine by Test strip", "[pH]", ("5.5", "6.0", "6.5", "7.0")),
    ("5811-5", "Specific gravity of Urine by Test strip", "", ("1.010", "1.015", "1.020")),
)
PANELS: tuple[tuple[LabTest, ...], ...] = (VITALS, CBC, METABOLIC, LIPIDS, SINGLES)


def lab_tests() -> list[tuple[str, str, str]]:
    """Every test a result can name: (loinc, name, units)."""
    tests = [(t.loinc, t.name, t.units) for panel in PANELS for t in panel]
    return tests + [(code, name, units) for code, name, units, _ in URINE]


VACCINES: tuple[tuple[str, str], ...] = (
    ("140", "Influenza, seasonal, injectable, preservative free"),
    ("113", "Td (adult) preservative free"),
    ("115", "Tdap"),
    ("133", "Pneumococcal conjugate PCV 13"),
    ("187", "zoster recombinant"),
    ("43", "Hep B, adult"),
    (
        "208",
        "SARS-COV-2 (COVID-19) vaccine, mRNA, spike protein, LNP, preservative free, "
        "30 mcg/0.3mL dose",
    ),
    ("62", "HPV, quadrivalent"),
)

ALLERGENS: tuple[tuple[str, str], ...] = (
    ("Penicillin V", "Hives"),
    ("Sulfamethoxazole / Trimethoprim", "Skin rash"),
    ("Latex (substance)", "Contact dermatitis"),
    ("Peanut (substance)", "Anaphylaxis"),
    ("Shellfish (substance)", "Swelling of lips"),
    ("House dust mite (organism)", "Allergic rhinitis"),
    ("Tree pollen (substance)", "Sneezing"),
    ("Cat dander (substance)", "Wheezing"),
    ("Aspirin", "Wheezing"),
    ("Eggs (edible) (substance)", "Nausea"),
    ("Grass pollen (substance)", "Itchy eyes"),
    ("Mold (organism)", "Nasal congestion"),
    ("Codeine", "Vomiting"),
)
SEVERITIES = ("mild", "moderate", "severe")
# What an allergy rules out: an allergen and the words of the drugs it forbids (a penicillin
# allergy rules out amoxicillin; aspirin-induced wheezing rules out the other NSAIDs).
ALLERGY_CONFLICTS: dict[str, tuple[str, ...]] = {
    "Penicillin V": ("penicillin", "amoxicillin"),
    "Sulfamethoxazole / Trimethoprim": ("sulfamethoxazole",),
    "Aspirin": ("aspirin", "ibuprofen", "naproxen"),
    "Codeine": ("codeine",),
}


def rules_out(substance: str, drug: str) -> bool:
    """Whether an allergy to `substance` rules out `drug`."""
    return any(w in drug.lower() for w in ALLERGY_CONFLICTS.get(substance, ()))


# Antibacterial drugs, by a word of their name: none is given for a viral illness.
ANTIBIOTICS = ("amoxicillin", "penicillin", "nitrofurantoin", "clavulanate")

# Vaccines given only in an age band (CVX: youngest, oldest age at the dose; None: no limit):
# HPV through 26, recombinant zoster from 50, PCV13 from 65 (ACIP adult schedule).
VACCINE_AGES: dict[str, tuple[int, int | None]] = {
    "62": (9, 26),
    "187": (50, None),
    "133": (65, None),
}


# Specialties of the practice and how many providers each has (160 in all).
SPECIALTIES: tuple[tuple[str, int], ...] = (
    ("Family Medicine", 30),
    ("Internal Medicine", 22),
    ("Pediatrics", 10),
    ("Cardiology", 10),
    ("Endocrinology", 6),
    ("Gastroenterology", 7),
    ("Pulmonology", 6),
    ("Otolaryngology", 5),
    ("Orthopedic Surgery", 9),
    ("Psychiatry", 7),
    ("Nephrology", 4),
    ("Dermatology", 7),
    ("Neurology", 6),
    ("Obstetrics and Gynecology", 9),
    ("Ophthalmology", 5),
    ("Urology", 5),
    ("Rheumatology", 4),
    ("Physical Therapy", 8),
)
PRIMARY_CARE = ("Family Medicine", "Internal Medicine")

# More surnames than the world's list, so 160 providers and the patients rarely collide.
EXTRA_SURNAMES = (
    "Achebe", "Bergstrom", "Castellano", "Delacroix", "Eriksen", "Fairbanks", "Galloway",
    "Hartmann", "Iwasaki", "Jankowski", "Kaplan", "Lindqvist", "Mbeki", "Nakagawa", "Oyelaran",
    "Pacheco", "Quintero", "Rasmussen", "Sandoval", "Takahashi", "Underwood", "Vasquez",
    "Whitfield", "Xiong", "Yamamoto", "Zielinski", "Barros", "Chaudhry", "Donnelly", "Esposito",
    "Fitzgerald", "Gutierrez", "Haddad", "Ibrahim", "Johansson", "Kowalczyk", "Lombardi",
    "Moreau", "Novak", "Okafor", "Park", "Romano", "Schneider", "Tran", "Vega", "Weiss",
    "Young", "Zhang", "Acosta", "Bishop", "Carver", "Dunn", "Ellison", "Foster", "Greer",
    "Holloway", "Ingram", "Jensen",
)  # fmt: skip
EXTRA_FEMALE = (
    "Abigail", "Bianca", "Chloe", "Deborah", "Esther", "Farah", "Grace", "Helen", "Ingrid",
    "Jasmine", "Leah", "Monica", "Naomi", "Priya", "Ruth", "Sofia", "Tanya", "Vivian",
)  # fmt: skip
EXTRA_MALE = (
    "Adrian", "Benjamin", "Caleb", "Dmitri", "Elias", "Frank", "Gabriel", "Hassan", "Ivan",
    "Jamal", "Kenji", "Leon", "Miguel", "Noah", "Oscar", "Rafael", "Simon", "Tobias",
)  # fmt: skip
CREDENTIALS = {"Physical Therapy": ("PT", "DPT")}
PRIMARY_CREDENTIALS = ("MD", "MD", "DO", "NP", "PA-C")
SPECIALIST_CREDENTIALS = ("MD", "MD", "MD", "DO")

STREETS = (
    "Harbor Blvd", "Oak St", "Cypress Ave", "Mission Rd", "Elm Ct", "Bayview Dr", "Pine St",
    "Sycamore Ln", "Alameda Way", "Laurel Ave", "Market St", "Ridge Rd",
)  # fmt: skip
PASSWORD_WORDS = (
    "Harbor", "Maple", "Cedar", "Summit", "River", "Willow", "Coral", "Falcon", "Meadow",
    "Granite", "Juniper", "Lantern",
)  # fmt: skip

PHARMACIES: tuple[tuple[str, str], ...] = (
    ("Walgreens #4412", "1200 Harbor Blvd, Mercyvale, CA 95010"),
    ("Walgreens #4421", "2100 Harbor Blvd, Mercyvale, CA 95012"),
    ("CVS Pharmacy #9931", "455 Mission Rd, Mercyvale, CA 95010"),
    ("CVS Pharmacy #9913", "45 Mission Rd, Mercyvale, CA 95014"),
    ("Rite Aid #0611", "88 Oak St, Mercyvale, CA 95011"),
    ("Safeway Pharmacy #1207", "301 Cypress Ave, Mercyvale, CA 95012"),
    ("Costco Pharmacy #477", "9000 Ridge Rd, Mercyvale, CA 95016"),
    ("Mercyvale Community Pharmacy", "17 Market St, Mercyvale, CA 95010"),
    ("Mercyvale Health Outpatient Pharmacy", "1400 Alameda Way, Mercyvale, CA 95010"),
    ("Bayview Compounding Pharmacy", "620 Bayview Dr, Mercyvale, CA 95013"),
    ("Express Scripts Home Delivery", "Mail order, St. Louis, MO 63121"),
    ("Target Pharmacy (CVS) #2280", "2280 Laurel Ave, Mercyvale, CA 95015"),
)

VISIT_REASONS = (
    "Annual physical",
    "Follow-up visit",
    "Medication review",
    "New problem",
    "Lab results review",
    "Chronic condition check",
    "Consultation",
)

# Charges by visit kind: (description, amount).
VISIT_CHARGES = {
    "wellness": ("Preventive visit, established patient (99396)", 285.00),
    "ambulatory": ("Office visit, established patient, level 3 (99213)", 165.00),
    "followup": ("Office visit, established patient, level 4 (99214)", 240.00),
    "urgent": ("Urgent care visit (S9083)", 195.00),
}
LAB_CHARGES = (
    ("Comprehensive metabolic panel (80053)", 58.00),
    ("Lipid panel (80061)", 46.00),
    ("Hemoglobin A1c (83036)", 39.00),
    ("Complete blood count with differential (85025)", 32.00),
)
