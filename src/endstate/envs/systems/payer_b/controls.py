"""Payer B's controls that reference trajectories use (see envs/shared/controls.py)."""

from __future__ import annotations

from endstate.envs.shared.controls import Controls

USER_ID = "User ID"
PASSWORD = "Password"
LOG_IN = "Log in"

# The request wizard, step by step (service lines numbered from 1).
HEALTH_PLAN = "Health plan"
MEMBER_ID = "Member ID"
MEMBER_DOB = "Date of birth"
SAVE_AND_CONTINUE = "Save and continue"
REQUESTING_NPI = "Requesting provider NPI"
SERVICING_NPI = "Servicing provider NPI"
REQUEST_TYPE = "Type of request"
DIAGNOSES = "ICD-10 diagnosis codes"
CPT_LINE = "CPT / HCPCS code, line {n}"
UNITS_LINE = "Units, line {n}"
LATERALITY_LINE = "Laterality, line {n}"
START_DATE = "Start date"
END_DATE = "End date"
CLINICAL_SUMMARY = "Clinical summary"
DOCUMENTATION = "Add clinical documentation"
ATTEST = "I attest that this information is accurate and supported by the medical record."
SUBMIT_REQUEST = "Submit request"

# Filing an appeal on a claim.
APPEAL_REASON = "Reason for appeal"
EXPLANATION = "Explanation"
SUPPORTING_DOCUMENTS = "Supporting documents"
SUBMIT_APPEAL = "Submit appeal"

WIZARD_START = "/requests/new/member"

PAGES: dict[str, Controls] = {
    "/login": Controls(fields=(USER_ID, PASSWORD), buttons=(LOG_IN,)),
    "/appeals/file?claim_id={claim_b}": Controls(
        fields=(EXPLANATION, SUPPORTING_DOCUMENTS),
        listboxes=(APPEAL_REASON,),
        buttons=(SUBMIT_APPEAL,),
    ),
}

# The wizard's steps in order: each is reached only by saving the one before it.
WIZARD: dict[str, Controls] = {
    WIZARD_START: Controls(
        fields=(MEMBER_ID, MEMBER_DOB), listboxes=(HEALTH_PLAN,), buttons=(SAVE_AND_CONTINUE,)
    ),
    "/requests/new/provider": Controls(
        fields=(REQUESTING_NPI, SERVICING_NPI), buttons=(SAVE_AND_CONTINUE,)
    ),
    "/requests/new/services": Controls(
        fields=(DIAGNOSES, CPT_LINE, UNITS_LINE, START_DATE, END_DATE),
        listboxes=(REQUEST_TYPE, LATERALITY_LINE),
        buttons=(SAVE_AND_CONTINUE,),
    ),
    "/requests/new/clinical": Controls(
        fields=(CLINICAL_SUMMARY, DOCUMENTATION), buttons=(SAVE_AND_CONTINUE,)
    ),
    "/requests/new/review": Controls(fields=(ATTEST,), buttons=(SUBMIT_REQUEST,)),
}
