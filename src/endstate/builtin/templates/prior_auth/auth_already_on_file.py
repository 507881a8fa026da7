"""Hard: asked to secure authorization, but one exists — a new request is a duplicate."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    DETERMINATION,
    Draft,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    notes_text,
    q,
)
from endstate.builtin.templates.prior_auth.facts import (
    FAMILY,
    answer,
    cleared_only_check,
    coverage_pays_first,
    determination_note_check,
    no_request_check,
    plan_portal,
    referral_given_values,
    referral_intro,
    services_summary,
    submit_anyway_mutation,
)


class AuthAlreadyOnFile(TaskTemplate):
    """Hard: asked to secure authorization, but one exists — a new request is a duplicate."""

    id = "pa.hard.duplicate-request"
    family = FAMILY
    tier = "hard"
    scenario_label = "authorization_request"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            r.id
            for r in w.world.referrals
            if r.existing_auth and coverage_pays_first(w, r) and plan_portal(w, r) == "payer_a"
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        auth = ref.existing_auth or ""
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id)
        body = (
            f"Existing authorization {auth} already covers {services_summary(ref)}. A new request "
            "would duplicate it, so none was submitted. Referral cleared."
        )
        t.referral_note(ref.id, "Authorization already on file", DETERMINATION, body)
        t.clear()
        lmn = w.current_lmn(ref.id)
        checks = [
            jcheck(
                f"contains({notes_text(ref.id)}, {q(auth)})",
                True,
                2,
                "The note cites the authorization already on file",
                "Data Accuracy",
            ),
            no_request_check(ref.mrn, 2),
            cleared_only_check(ref.id),
            determination_note_check(ref.id),
        ]
        mutations = drop_mutations(t)
        if lmn is not None:
            mutations.append(
                submit_anyway_mutation(
                    w, ref, lmn, 2, "submit a duplicate request on the portal first"
                )
            )
        return Draft(
            key=ref.id,
            instruction=(
                f"{referral_intro(w, ref)} must have prior authorization in place before the "
                "appointment. Submit a request to the payer if one is needed, record the "
                "authorization determination on the referral (with any authorization or "
                "confirmation number), and clear the referral."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=checks,
            expected_outcome=f"no new request; note cites {auth}; referral cleared",
            rationale="An authorization is already on file for the referral; the right move "
            "is to document it, not to request again.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=referral_given_values(w, ref),
            answer=answer(w, ref, "on-file"),
        )
