"""Payer B's portal constants: its name, the request wizard's steps and fields, its lookups."""

from __future__ import annotations

import re

from endstate.envs.world import catalog

SYSTEM = "payer_b"
PORTAL = "payer_b"
STEPS: tuple[tuple[str, str], ...] = (
    ("member", "Member"),
    ("provider", "Provider"),
    ("services", "Services"),
    ("clinical", "Clinical"),
    ("review", "Review and submit"),
)
LINES = 3
MAX_SPAN_DAYS = 180
# The wizard's step keys, in the order a request walks them.
STEP_KEYS = tuple(s for s, _ in STEPS)
# Form value -> label of the wizard's request types, laterality options and appeal reasons.
REQUEST_TYPE_LABELS = dict(catalog.REQUEST_TYPES)
LATERALITY_LABELS = dict(catalog.LATERALITIES)
APPEAL_REASON_LABELS = dict(catalog.APPEAL_REASONS)
# A claim number as the claim search and the appeal form accept it.
CLAIM_ID_PATTERN = re.compile(r"^CLM\d{9}$", re.IGNORECASE)
# The form fields each step of the wizard posts (the review step posts none).
FIELDS_BY_STEP: dict[str, tuple[str, ...]] = {
    "member": ("plan_id", "member_id", "member_dob"),
    "provider": ("requesting_npi", "servicing_npi"),
    "services": (
        "request_type",
        "diagnosis_codes",
        "start_date",
        "end_date",
        *(f"{f}_{i}" for i in range(1, LINES + 1) for f in ("cpt", "units", "laterality")),
    ),
    "clinical": ("clinical_summary",),
}
