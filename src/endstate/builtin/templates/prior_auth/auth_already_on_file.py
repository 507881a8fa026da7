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
    _active,
    _cleared_only,
    _determination_note,
    _given,
    _intro,
    _no_request,
    _portal,
    _services,
    _submit_anyway,
    answer,
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
            if r.existing_auth and _active(w, r) and _portal(w, r) == "payer_a"
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        auth = ref.existing_auth or ""
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id)
        body = (
            f"Existing authorization {auth} already covers {_services(ref)}. A new request "
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
            _no_request(ref.mrn, 2),
            _cleared_only(ref.id),
            _determination_note(ref.id),
        ]
        mutations = drop_mutations(t)
        if lmn is not None:
            mutations.append(
                _submit_anyway(w, ref, lmn, 2, "submit a duplicate request on the portal first")
            )
        return Draft(
            key=ref.id,
            instruction=(
                f"{_intro(w, ref)} must have prior authorization in place before the "
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
            given=_given(w, ref),
            answer=answer(w, ref, "on-file"),
        )
