"""Which services a payer may require prior authorization for.

A plan publishes its own list, and the world draws each plan's from the kinds below; but no
payer of the world reviews a plain radiograph, an electrocardiogram or office spirometry
before it is done. What the sources show: none of them is among the services Medicare itself
reviews first (opd-prior-auth), and radiology benefit programs review advanced imaging (CT,
MRI, MRA, PET, nuclear medicine), not plain films (advanced-imaging-auth). That no payer
anywhere reviews them is the world's rule, not a published one. A task that has an agent
request authorization for one of these would fail the correct agent.
"""

from __future__ import annotations

SOURCES = ("opd-prior-auth", "advanced-imaging-auth")

NEVER_REVIEWED: dict[str, str] = {
    "73562": "radiograph of the knee, 3 views",
    "73565": "radiograph of both knees, standing",
    "73030": "radiograph of the shoulder, 2 views",
    "93000": "electrocardiogram with interpretation",
    "94010": "spirometry",
}
ADVANCED_IMAGING = frozenset({"70553", "72148", "73721", "74177", "78452"})  # MRI, CT, SPECT MPI


def may_require_auth(cpt: str) -> bool:
    """Whether any payer's list may name this service (False: none does)."""
    return cpt not in NEVER_REVIEWED
