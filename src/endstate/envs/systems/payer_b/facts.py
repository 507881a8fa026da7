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
_STEP_NAMES = tuple(s for s, _ in STEPS)
_REQUEST_TYPES = dict(catalog.REQUEST_TYPES)
_LATERALITIES = dict(catalog.LATERALITIES)
_REASONS = dict(catalog.APPEAL_REASONS)
_CLAIM = re.compile(r"^CLM\d{9}$", re.IGNORECASE)
_STEP_FIELDS: dict[str, tuple[str, ...]] = {
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
