"""Reference data for durable medical equipment: the items the world orders (HCPCS, the
diagnosis that indicates each, each payer's coverage criterion) and the suppliers that fill
them, with the product categories each is accredited for."""

from __future__ import annotations

from dataclasses import dataclass

from endstate.envs.catalog import COPD, HF, KNEE_OA_BOTH, KNEE_OA_RT, OSA, Dx


@dataclass(frozen=True)
class DmeCriterion:
    """A payer's coverage criterion for an item, on one measured result (as LCDs put it)."""

    marker: str  # the result's name in a report: "apnea-hypopnea index", "SpO2", "HbA1c"
    at_least: float | None  # the result must be at least this (None: no lower bound)
    at_most: float | None  # ... or at most this
    unit: str  # "events/hour", "%"
    text: str  # the criterion as the order page states it

    def met(self, value: float) -> bool:
        return (self.at_least is None or value >= self.at_least) and (
            self.at_most is None or value <= self.at_most
        )


@dataclass(frozen=True)
class DmeItem:
    """An equipment item, the documents a supplier needs, and what those documents must say:
    each cites the item's qualifying diagnosis; a lab report shows the one result that qualifies
    the patient for this item (SpO2 for oxygen, HbA1c for an insulin pump)."""

    hcpcs: str
    description: str
    required_documents: tuple[str, ...]  # document kinds a supplier needs before delivery
    diagnosis: Dx | None = None
    need: str = ""  # the face-to-face finding that qualifies the patient
    alternatives: str = ""  # what was tried first, as the letter of medical necessity says
    lab: str | None = None  # "SpO2" or "HbA1c": the result a lab report shows
    criterion: DmeCriterion | None = None  # the coverage criterion on a measured result


DME_ITEMS: tuple[DmeItem, ...] = (
    DmeItem(
        "E0601",
        "Continuous positive airway pressure (CPAP) device",
        ("face_to_face", "sleep_study", "prescription"),
        OSA,
        "Witnessed apneas and daytime sleepiness; CPAP is to be used nightly",
        "positional therapy and weight loss have not controlled symptoms",
        criterion=DmeCriterion(
            "apnea-hypopnea index",
            15,
            None,
            "events/hour",
            "An attended sleep study shows an apnea-hypopnea index (AHI) of at least 15 "
            "events/hour, or of 5 to 14 with documented symptoms such as excessive daytime "
            "sleepiness.",
        ),
    ),
    DmeItem(
        "E1390",
        "Oxygen concentrator, single delivery port",
        ("face_to_face", "lab", "prescription"),
        COPD,
        "Exertional dyspnea with resting hypoxemia on room air; long-term home oxygen is needed",
        "optimized inhaled therapy has not corrected resting hypoxemia",
        "SpO2",
        DmeCriterion(
            "SpO2",
            None,
            88,
            "%",
            "Resting oxygen saturation (SpO2) on room air is 88% or lower.",
        ),
    ),
    DmeItem(
        "E0260",
        "Hospital bed, semi-electric, with mattress",
        ("face_to_face", "prescription"),
        HF,
        "Orthopnea requires the head of the bed raised above 30 degrees, which an ordinary bed "
        "cannot provide",
        "wedge pillows and a recliner have not given the positioning required",
    ),
    DmeItem(
        "K0001",
        "Standard manual wheelchair",
        ("face_to_face", "prescription", "lmn"),
        Dx(
            "I69.351",
            "Hemiplegia and hemiparesis following cerebral infarction affecting right dominant "
            "side",
        ),
        "Right-sided weakness prevents safe walking in the home even with a cane or walker; "
        "the patient can propel a manual wheelchair",
        "a cane and a walker have been tried and are not enough for safe mobility",
    ),
    DmeItem(
        "L1833",
        "Knee orthosis, adjustable, prefabricated",
        ("prescription", "clinical_note"),
        KNEE_OA_RT,
        "Right knee instability with osteoarthritis; an adjustable knee orthosis supports walking",
        "physical therapy and NSAIDs have not restored stability",
    ),
    DmeItem(
        "E0143",
        "Walker, folding, wheeled",
        ("prescription",),
        KNEE_OA_BOTH,
        "Painful gait from osteoarthritis of both knees; a wheeled walker allows safe walking",
        "a single-point cane has been tried and is not enough",
    ),
    DmeItem(
        "E0784",
        "External ambulatory infusion pump, insulin",
        ("lab", "prescription", "lmn"),
        Dx("E10.65", "Type 1 diabetes mellitus with hyperglycemia"),
        "Glycemic variability on multiple daily injections despite adherence",
        "multiple daily insulin injections have not achieved glycemic control",
        "HbA1c",
        DmeCriterion(
            "HbA1c",
            7.0,
            None,
            "%",
            "HbA1c is above 7.0% on multiple daily injections.",
        ),
    ),
)


@dataclass(frozen=True)
class Supplier:
    """A DME supplier and the product categories it is accredited to furnish
    (rules.dme.PRODUCT_CATEGORY names an item's)."""

    name: str
    fax: str
    categories: frozenset[str]


SUPPLIERS: tuple[Supplier, ...] = (
    Supplier(
        "Harborline Medical Supply",
        "(415) 555-0142",
        frozenset({"hospital beds", "walkers", "manual wheelchairs", "infusion pumps"}),
    ),
    Supplier("Crestview Home Respiratory", "(510) 555-0177", frozenset({"respiratory"})),
    Supplier(
        "Pinecone Mobility & Rehab",
        "(650) 555-0119",
        frozenset({"manual wheelchairs", "walkers", "orthoses"}),
    ),
    Supplier(
        "Tidewater Durable Equipment",
        "(408) 555-0163",
        frozenset({"hospital beds", "orthoses", "respiratory", "infusion pumps"}),
    ),
)
