"""Claim adjustment reasons (CARC) and remittance remarks (RARC): their published texts and the
payers that may use them.

Texts are the descriptions of the code lists X12 publishes (carc-list, rarc-list), each quoted
whole up to its "Usage:" note, which is left out; a parenthesis that belongs to the description
(CARC 18's group-code restriction) stays. Every payer uses the one remark list, so a remark is
open to any payer unless its meaning ties it to one program: N115 cites a Medicare local coverage
determination, which governs Medicare (and Medicare Advantage) claims only (lcd-definition).
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
    "18": "Exact duplicate claim/service (Use only with Group Code OA except where state "
    "workers' compensation regulations requires CO)",
    "22": "This care may be covered by another payer per coordination of benefits.",
    "27": "Expenses incurred after coverage terminated.",
    "29": "The time limit for filing has expired.",
    "45": "Charge exceeds fee schedule/maximum allowable or contracted/legislated fee arrangement.",
    "50": "These are non-covered services because this is not deemed a 'medical necessity' "
    "by the payer.",
    "96": "Non-covered charge(s). At least one Remark Code must be provided (may be comprised "
    "of either the NCPDP Reject Reason Code, or Remittance Advice Remark Code that is not an "
    "ALERT.)",
    "197": "Precertification/authorization/notification/pre-treatment absent.",
}

RARC_TEXT: dict[str, str] = {
    "N54": "Claim information is inconsistent with pre-certified/authorized services.",
    "M62": "Missing/incomplete/invalid treatment authorization code.",
    "N115": "This decision was based on a Local Coverage Determination (LCD). An LCD provides "
    "a guide to assist in determining whether a particular item or service is covered. A copy "
    "of this policy is available at www.cms.gov/mcd, or if you do not have web access, you may "
    "contact the contractor to request a copy of the LCD.",
    "M127": "Missing patient medical record for this service.",
    "MA130": "Your claim contains incomplete and/or invalid information, and no appeal rights "
    "are afforded because the claim is unprocessable. Please submit a new claim with the "
    "complete/correct information.",
    "N382": "Missing/incomplete/invalid patient identifier.",
    "M51": "Missing/incomplete/invalid procedure code(s).",
    "N211": "Alert: You may not appeal this decision.",
    "N519": "Invalid combination of HCPCS modifiers.",
    "M20": "Missing/incomplete/invalid HCPCS.",
    "N522": "Duplicate of a claim processed, or to be processed, as a crossover claim.",
    "MA04": "Secondary payment cannot be considered without the identity of or payment "
    "information from the primary payer. The information was either not reported or was "
    "illegible.",
    "N30": "Patient ineligible for this service.",
    "N130": "Consult plan benefit documents/guidelines for information about restrictions "
    "for this service.",
    "M67": "Missing/incomplete/invalid other procedure code(s).",
    "M76": "Missing/incomplete/invalid diagnosis or condition.",
}

MEDICARE_ONLY_REMARKS = frozenset({"N115"})  # a Medicare LCD decided it


def remark_fits(rarc: str, plan_kind: str) -> bool:
    """Whether a payer of this kind can send this remark."""
    return rarc not in MEDICARE_ONLY_REMARKS or is_medicare(plan_kind)
