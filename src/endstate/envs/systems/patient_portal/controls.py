"""The patient portal's controls that reference trajectories use (see envs/shared/controls.py)."""

from __future__ import annotations

from endstate.envs.shared.controls import Controls

USERNAME = "Username"
PASSWORD = "Password"
SIGN_IN = "Sign in"

LAB_RESULTS = "Lab Results"
IMAGING = "Imaging"
PROBLEMS = "Problems"
ALLERGIES = "Allergies"
MEDICATIONS = "Medications"
PRESCRIPTIONS = "Prescriptions"
IMMUNIZATIONS = "Immunizations"
VISITS = "Visits"
APPOINTMENTS = "Appointments"
MESSAGES = "Messages"
BILLING = "Billing"
PHARMACY = "Pharmacy"
RECORDS_REQUEST = "Records request"
NAV = (
    LAB_RESULTS,
    IMAGING,
    PROBLEMS,
    ALLERGIES,
    MEDICATIONS,
    PRESCRIPTIONS,
    IMMUNIZATIONS,
    VISITS,
    APPOINTMENTS,
    MESSAGES,
    BILLING,
    PHARMACY,
    RECORDS_REQUEST,
)

LEDGER_FROM = "From"
LEDGER_TO = "To"
LEDGER_SHOW = "Show"
VIEW_LEDGER = "View ledger"

BOOK_LINK = "Book an appointment"
PROVIDER = "Provider"
DATE = "Date"
REASON = "Reason for visit"
BOOK = "Book appointment"
CANCEL_REASON = "Reason for cancelling"
CANCEL = "Cancel appointment"
KEEP = "Keep appointment"

NEW_MESSAGE = "New message"
SENT_MESSAGES = "Sent messages"
RECIPIENT = "To"
SUBJECT = "Subject"
MESSAGE = "Message"
SEND = "Send message"
REPLY = "Reply"

PRACTICE = "Practice name"
PRACTICE_FAX = "Practice fax number"
RECORDS_SCOPE = "Records to send"
RECORDS_NOTE = "Note to the practice"
SUBMIT_REQUEST = "Submit request"

NEW_PHARMACY = "New pharmacy"
UPDATE_PHARMACY = "Update pharmacy"

PAGES: dict[str, Controls] = {
    "/login": Controls(fields=(USERNAME, PASSWORD), buttons=(SIGN_IN,)),
    "/home": Controls(links=NAV),
    "/billing": Controls(fields=(LEDGER_FROM, LEDGER_TO, LEDGER_SHOW), buttons=(VIEW_LEDGER,)),
    "/appointments": Controls(links=(BOOK_LINK,)),
    "/appointments/new": Controls(fields=(PROVIDER, DATE, REASON), buttons=(BOOK,)),
    "/messages": Controls(links=(NEW_MESSAGE, SENT_MESSAGES)),
    "/messages/new": Controls(fields=(RECIPIENT, SUBJECT, MESSAGE), buttons=(SEND,)),
    "/records-request": Controls(
        fields=(PRACTICE, PRACTICE_FAX, RECORDS_SCOPE, RECORDS_NOTE), buttons=(SUBMIT_REQUEST,)
    ),
    "/pharmacy": Controls(fields=(NEW_PHARMACY,), buttons=(UPDATE_PHARMACY,)),
}
# Pages of one record: {appointment} and {message} are ids of the signed-in patient's.
RECORD_PAGES: dict[str, Controls] = {
    "/appointments/{appointment}/cancel": Controls(
        fields=(CANCEL_REASON,), buttons=(CANCEL,), links=(KEEP,)
    ),
    "/messages/{message}": Controls(links=(REPLY,)),
}
