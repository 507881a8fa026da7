"""The imaging studies the patient portal's records show: each study's modality, site and
usual impressions, and the imaging a problem gets, in the order a clinician orders it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Study:
    """An imaging study: what it is, the body site it images and what it may show."""

    modality: str  # XR (a plain film), CT or MRI
    name: str
    site: str
    impressions: tuple[str, ...]


XR_CHEST = Study("XR", "XR chest, 2 views", "chest", ("No acute cardiopulmonary abnormality",))
# The imaging a problem gets, in the order a clinician orders it: a plain film first, the MRI
# of the same site only after it (never the reverse), and how often each is done.
IMAGING: dict[str, tuple[tuple[Study, float], ...]] = {
    "239873007": (  # osteoarthritis of knee
        (
            Study(
                "XR",
                "XR knee, 3 views",
                "knee",
                (
                    "Joint-space narrowing with marginal osteophytes",
                    "Moderate degenerative change, worse medially",
                ),
            ),
            1.0,
        ),
        (
            Study(
                "MRI",
                "MRI knee without contrast",
                "knee",
                ("Degenerative fraying of the medial meniscus with cartilage loss medially",),
            ),
            0.4,
        ),
    ),
    "40055000": (  # chronic sinusitis
        (
            Study(
                "CT",
                "CT sinuses without contrast",
                "sinuses",
                ("Mucosal thickening of the maxillary sinuses without air-fluid levels",),
            ),
            0.6,
        ),
    ),
    "195967001": ((XR_CHEST, 0.5),),  # asthma
    "44465007": (  # sprain of ankle
        (
            Study(
                "XR",
                "XR ankle, 3 views",
                "ankle",
                ("No fracture; lateral soft-tissue swelling",),
            ),
            0.7,
        ),
    ),
    "62106007": (  # concussion
        (
            Study("CT", "CT head without contrast", "head", ("No acute intracranial abnormality",)),
            0.5,
        ),
    ),
    "10509002": ((XR_CHEST, 0.3),),  # acute bronchitis
    "840539006": ((XR_CHEST, 0.3),),  # COVID-19
}
