"""Claim adjustment reasons (CARC) and remittance remarks (RARC): their published texts, the
payers that may use them, and the action each reason calls for.

Texts follow the code lists X12 publishes (carc-list, rarc-list), shortened only where the
published text carries a usage note. A remark that cites a Medicare coverage policy (N115: a
local coverage determination) appears only on a Medicare plan's remittance (lcd-definition).
"""

from __future__ import annotations

from endstate.rules.plans import is_medicare

SOURCES = ("carc-list", "rarc-list", "lcd-definition")

CARC_TEXT: dict[str, str] = {
    "1": "Deductible Amount",
    "2": "Coinsurance Amount",
    "3": "Co-payment Amount",
    "4": "The procedure code is inconsistent with the modifier used.",
    "11": "The diagnosis is inconsistent with the procedure.",
    "16": "Claim/service lacks information or has submission/billing error(s).",
    "18": "Exact duplicate claim/service.",
    "22": "This care may be covered by another payer per coordination of benefits.",
    "27": "Expenses incurred after coverage terminated.",
    "29": "The time limit for filing has expired.",
    "45": "Charge exceeds fee schedule/maximum allowable or contracted/legislated fee arrangement.",
    "50": "These are non-covered services because this is not deemed a 'medical necessity' "
    "by the payer.",
    "96": "Non-covered charge(s).",
    "197": "Precertification/notification/authorization/pre-treatment absent.",
}

RARC_TEXT: dict[str, str] = {
    "N54": "Claim information is inconsistent with pre-certified/authorized services.",
    "M62": "Missing/incomplete/invalid treatment authorization code.",
    "N115": "This decision was based on a Local Coverage Determination (LCD).",
    "M127": "Missing patient medical record for this service.",
    "MA130": "Your claim contains incomplete and/or invalid information, and no appeal rights "
    "are afforded because the claim is unprocessable. Submit a new claim with the complete/"
    "correct information.",
    "N382": "Missing/incomplete/invalid patient identifier.",
    "M51": "Missing/incomplete/invalid procedure code(s).",
    "N211": "Alert: You may not appeal this decision.",
    "N519": "Invalid combination of HCPCS modifiers.",
    "M20": "Missing/incomplete/invalid HCPCS.",
    "N522": "Duplicate of a claim processed, or to be processed, as a crossover claim.",
    "MA04": "Secondary payment cannot be considered without the identity of or payment "
    "information from the primary payer.",
    "N30": "Patient ineligible for this service.",
    "N130": "Consult plan benefit documents/guidelines for information about restrictions "
    "for this service.",
    "M67": "Missing/incomplete/invalid other procedure code(s).",
    "M76": "Missing/incomplete/invalid diagnosis or condition.",
}

MEDICARE_ONLY_REMARKS = frozenset({"N115"})


def remark_fits(rarc: str, plan_kind: str) -> bool:
    """Whether a payer of this kind can send this remark."""
    return rarc not in MEDICARE_ONLY_REMARKS or is_medicare(plan_kind)
