"""The fax service's controls that reference trajectories use (see envs/shared/controls.py)."""

from __future__ import annotations

from endstate.envs.shared.controls import Controls

PATIENT_MRN = "Patient MRN"
LOAD_DOCUMENTS = "Load chart documents"
RECIPIENT = "Recipient"
FAX_NUMBER = "Fax number"
COVER_NOTE = "Cover note"
SEND_FAX = "Send fax"

PAGES: dict[str, Controls] = {
    "/compose": Controls(fields=(PATIENT_MRN,), buttons=(LOAD_DOCUMENTS,)),
    "/compose?mrn={mrn}": Controls(fields=(RECIPIENT, FAX_NUMBER, COVER_NOTE), buttons=(SEND_FAX,)),
}
