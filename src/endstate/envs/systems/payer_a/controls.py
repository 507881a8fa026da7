"""Payer A's controls that reference trajectories use (see envs/shared/controls.py)."""

from __future__ import annotations

from endstate.envs.shared.controls import Controls

USERNAME = "Username"
PASSWORD = "Password"
SIGN_IN = "Sign in"

# The prior-authorization form (one CPT/units pair per service line, numbered from 1).
REQUEST_TYPE = "Request type"
MEMBER_ID = "Member ID"
MEMBER_DOB = "Member date of birth"
PROVIDER_NPI = "Provider NPI"
DIAGNOSES = "Diagnosis codes (ICD-10)"
CPT_LINE = "CPT code, line {n}"
UNITS_LINE = "Units, line {n}"
SERVICE_DATE = "Date of service"
CLINICAL_NOTES = "Clinical notes"
ATTACHMENTS = "Attachments"
SUBMIT_REQUEST = "Submit request"

# The appeal form (member fields and attachments named as on the request form).
CLAIM_NUMBER = "Claim number"
APPEAL_TYPE = "Appeal type"
APPEAL_REASON = "Reason for appeal"
CONTACT_NAME = "Contact name"
CONTACT_PHONE = "Contact phone"
SUBMIT_APPEAL = "Submit appeal"

PA_FORM = "/prior-auth/new"
APPEAL_FORM = "/appeals/new"

# Pages behind the sign-in are visited signed in (the test signs in with a plan's account).
PAGES: dict[str, Controls] = {
    "/login": Controls(fields=(USERNAME, PASSWORD), buttons=(SIGN_IN,)),
    PA_FORM: Controls(
        fields=(
            MEMBER_ID, MEMBER_DOB, PROVIDER_NPI, DIAGNOSES, CPT_LINE, UNITS_LINE, SERVICE_DATE,
            CLINICAL_NOTES, ATTACHMENTS,
        ),
        listboxes=(REQUEST_TYPE,),
        buttons=(SUBMIT_REQUEST,),
    ),
    APPEAL_FORM: Controls(
        fields=(
            CLAIM_NUMBER, MEMBER_ID, MEMBER_DOB, APPEAL_REASON, CONTACT_NAME, CONTACT_PHONE,
            ATTACHMENTS,
        ),
        listboxes=(APPEAL_TYPE,),
        buttons=(SUBMIT_APPEAL,),
    ),
}  # fmt: skip
