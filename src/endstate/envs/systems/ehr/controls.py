"""The EHR's controls that reference trajectories use (see envs/shared/controls.py)."""

from __future__ import annotations

from endstate.envs.shared.controls import Controls

NOTE_SUBJECT = "Subject"
NOTE_CATEGORY = "Category"
NOTE_BODY = "Note"
SAVE_NOTE = "Save note"
CLEAR = "Clear from worklist"
DISPOSITION = "Disposition"
TRIAGE_NOTE = "Triage note"
SUBMIT_TRIAGE = "Submit triage"
FAX_LINK = "Send documents by fax"
REVEAL_PASSWORD = "Reveal password for {payer}"
REVEALED = "Password for {payer}"
PORTAL_LINK = "Open {payer} provider portal"  # one per plan of the patient with a portal

# The appeal letter on a denied claim's appeal tab (one check box per claim line).
ADDRESSED_TO = "Addressed to"
APPEAL_BASIS = "Basis for appeal"
APPEAL_LINE = "Line {line}: CPT {cpt}"  # then the line's modifier, amounts and reason
ARGUMENT = "Argument"
SIGNED_BY = "Signed by"
SAVE_LETTER = "Save letter to chart"

# Pages (with {referral}, {claim} and {order} placeholders) and the controls each must offer.
PAGES: dict[str, Controls] = {
    "/referrals/{referral}?tab=communications": Controls(
        fields=(NOTE_SUBJECT, NOTE_BODY),
        listboxes=(NOTE_CATEGORY,),
        buttons=(SAVE_NOTE, CLEAR),
    ),
    "/referrals/{referral}?tab=documents": Controls(links=(FAX_LINK,)),
    "/denials/{claim}?tab=appeal": Controls(
        links=(FAX_LINK,),
        fields=(ADDRESSED_TO, ARGUMENT, SIGNED_BY),
        field_prefixes=(APPEAL_LINE,),
        listboxes=(APPEAL_BASIS,),
        buttons=(SAVE_LETTER,),
    ),
    "/dme/{order}?tab=notes": Controls(
        fields=(NOTE_SUBJECT, NOTE_BODY), listboxes=(NOTE_CATEGORY,), buttons=(SAVE_NOTE,)
    ),
    "/denials/{claim}": Controls(
        fields=(TRIAGE_NOTE,), listboxes=(DISPOSITION,), buttons=(SUBMIT_TRIAGE,)
    ),
}
