"""How a coverage's subscriber reads on the EHR: what coordination of benefits turns on.

A registration clerk records whose plan it is (the member's own, a spouse's, a parent's) and
how it is held (employment, retirement, Medicare, Medi-Cal); for a child on a parent's plan,
the parent's birthday, which the birthday rule reads (rules.cob).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_BASIS = {
    "employment": "employer group",
    "retiree": "retiree group",
    "individual": "individual",
}


def subscriber_text(c: Mapping[str, Any]) -> str:
    """One coverage row's subscriber, e.g. "Spouse — employer group (800 employees)"."""
    relationship = str(c["relationship"] or "self")
    basis = str(c["basis"] or "")
    if basis == "government":
        held = ""
    else:
        held = _BASIS.get(basis, basis)
        if basis == "employment" and c["employer_size"]:
            held += f" ({c['employer_size']:,} employees)"
    who = {"self": "Self", "spouse": "Spouse", "child": "Child"}.get(relationship, relationship)
    if relationship == "child" and c["subscriber_birthday"]:
        month, day = str(c["subscriber_birthday"]).split("-")
        who += f" (parent's birthday {month}/{day})"
    return f"{who} — {held}" if held else who
