"""Medium: appeal the claim the way its payer takes appeals — the task does not say which.

Each payer names its own channel: some take appeals on their provider portal, others only by
fax to their appeals department with their own form named on the cover. The claim's Appeal
tab and the denial playbook say which; a payer with a portal may still refuse appeals there,
and a payer's utilization-management fax is not its appeals fax.
"""

from __future__ import annotations

import random
from dataclasses import replace

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import Draft, WorldView, fax_digits, jcheck, q
from endstate.builtin.templates.denials.appeal_by_fax import AppealByFax
from endstate.builtin.templates.denials.facts import (
    CONTACT_NAME,
    CONTACT_PHONE,
    FAMILY,
    denial_intro,
)
from endstate.builtin.templates.denials.portal_appeal import PortalAppeal

_FAX_CHANNEL = "only by fax, to its appeals department, with its form named."
_BY_FAX = AppealByFax()
_ON_PORTAL = PortalAppeal()


class AppealByChannel(TaskTemplate):
    """Medium: find out how the payer takes appeals, then appeal that way."""

    id = "dn.medium.appeal-by-channel"
    family = FAMILY
    tier = "medium"
    scenario_label = "denial_appeal"

    def candidates(self, w: WorldView) -> list[str]:
        return sorted({*_BY_FAX.candidates(w), *_ON_PORTAL.candidates(w)})

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        d = w.denial(key)
        plan = w.plans[d.plan_id]
        by_fax = plan.appeal_channel == "fax"
        draft = (_BY_FAX if by_fax else _ON_PORTAL).build(w, key, rng)
        if by_fax:
            wrong = jcheck(
                f"length(fax.transmissions[?fax_number=={q(fax_digits(plan.fax))}])",
                0,
                1,
                "Nothing went to the payer's utilization-management fax",
                "Safety",
            )
        else:
            wrong = jcheck(
                f"length(fax.transmissions[?patient_mrn=={q(d.mrn)}])",
                0,
                1,
                "Nothing was faxed: this payer takes appeals on its portal",
                "Safety",
            )
        return replace(
            draft,
            instruction=(
                f"{denial_intro(w, d)} should be appealed as not medically necessary in the "
                "payer's "
                "view. Appeal it the way this payer takes appeals, with the current signed "
                "letter of medical necessity from the patient's chart (if the payer asks for a "
                f"contact, give {CONTACT_NAME}, {CONTACT_PHONE}; if it takes appeals by fax, "
                "name its appeal form and the claim on the cover note). Then triage the claim "
                "as an appeal with a note that records the confirmation number or fax "
                "transmission id you got."
            ),
            checks=[*draft.checks, wrong],
            rationale=f"{plan.name} takes appeals "
            + (_FAX_CHANNEL if by_fax else "on its provider portal."),
            given=sorted({*draft.given, CONTACT_NAME, CONTACT_PHONE}),
        )
