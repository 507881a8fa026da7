"""Field checks shared by the portals. Each returns a message a person can act on, or None.

Bad input is never stored: a page re-renders with these messages next to the fields.
"""

from __future__ import annotations

import re
from datetime import date

from endstate.envs.world import npi_valid

_MDY = re.compile(r"^(\d{2})/(\d{2})/(\d{4})$")
_ICD10 = re.compile(r"^[A-TV-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?$")
_CPT = re.compile(r"^\d{4}[0-9FTU]$")


def parse_mdy(value: str) -> tuple[date | None, str | None]:
    """MM/DD/YYYY, strictly: two-digit month and day, a real calendar date."""
    m = _MDY.match(value.strip())
    if not m:
        return None, "Enter the date as MM/DD/YYYY."
    month, day, year = (int(g) for g in m.groups())
    try:
        return date(year, month, day), None
    except ValueError:
        return None, "Enter a real calendar date (MM/DD/YYYY)."


def npi_problem(value: str) -> str | None:
    if not re.fullmatch(r"\d{10}", value):
        return "NPI must be exactly 10 digits."
    if not npi_valid(value):
        return "This NPI is not valid (check digit does not match)."
    return None


def icd10_codes(value: str) -> tuple[list[str], str | None]:
    """A comma- or space-separated list of ICD-10-CM codes, normalised to upper case."""
    codes = [c.upper() for c in re.split(r"[,\s;]+", value.strip()) if c]
    if not codes:
        return [], "Enter at least one ICD-10 diagnosis code."
    bad = [c for c in codes if not _ICD10.match(c)]
    if bad:
        return codes, f"Not a valid ICD-10 code: {', '.join(bad)} (example: M17.11)."
    if len(set(codes)) != len(codes):
        return codes, "A diagnosis code is listed twice."
    return codes, None


def cpt_problem(code: str) -> str | None:
    return None if _CPT.match(code) else f"Not a valid CPT code: {code} (5 characters, e.g. 27447)."


def units_problem(value: str) -> str | None:
    if not value.isdigit() or not 1 <= int(value) <= 99:
        return "Units must be a whole number from 1 to 99."
    return None


def fax_digits(value: str) -> tuple[str, str | None]:
    """A North American fax number: 10 digits (an optional leading 1 is dropped)."""
    if re.search(r"[^\d\s().+-]", value):
        return "", "A fax number may contain only digits, spaces, ( ) - and +."
    digits = re.sub(r"\D", "", value)
    if len(digits) == 11 and digits.startswith("1"):
        digits = digits[1:]
    if len(digits) != 10:
        return digits, "Enter a 10-digit fax number, e.g. (415) 555-0142."
    if digits[0] in "01" or digits[3] in "01":
        return digits, "This is not a valid North American number (area code or exchange)."
    return digits, None


def format_phone(digits: str) -> str:
    return f"({digits[:3]}) {digits[3:6]}-{digits[6:]}"
