"""Easy: the answer is in the chart — an authorization already exists."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    DETERMINATION,
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    notes_text,
    q,
    replace_value,
    retarget,
)
from endstate.builtin.templates.prior_auth.facts import (
    FAMILY,
    answer,
    cleared_only_check,
    coverage_pays_first,
    determination_note_check,
    no_request_check,
    referral_given_values,
    referral_intro,
    services_summary,
)


class AuthOnFile(TaskTemplate):
    """Easy: the answer is in the chart — an authorization already exists."""

    id = "pa.easy.auth-on-file"
    family = FAMILY
    tier = "easy"
    scenario_label = "authorization_determination"

    def candidates(self, w: WorldView) -> list[str]:
        return [r.id for r in w.world.referrals if r.existing_auth and coverage_pays_first(w, r)]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        auth = ref.existing_auth or ""
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id)
        body = (
            f"Authorization {auth} is already on file for this referral ({services_summary(ref)}). "
            "No new prior authorization request is needed; clearing the referral."
        )
        t.referral_note(ref.id, "Existing authorization on file", DETERMINATION, body)
        t.clear()
        other = next(
            (r.existing_auth for r in w.world.referrals if r.existing_auth not in (None, auth)),
            "AUTH0000000",
        )
        look = w.lookalike_referral(ref, rng)
        checks = [
            determination_note_check(ref.id),
            jcheck(
                f"contains({notes_text(ref.id)}, {q(auth)})",
                True,
                2,
                "The note records the authorization number on file",
                "Data Accuracy",
            ),
            cleared_only_check(ref.id),
            no_request_check(ref.mrn),
        ]
        return Draft(
            key=ref.id,
            instruction=(
                f"{referral_intro(w, ref)} is waiting for an authorization decision. Find out "
                "whether "
                "an authorization for the scheduled services is already on file, record your "
                "determination (with the authorization number, if there is one) as an "
                "authorization determination note, and clear the referral."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=checks,
            expected_outcome=f"determination note citing {auth}; referral cleared; no request",
            rationale="The referral already carries an authorization; submitting again would "
            "duplicate it.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                Mutation(
                    "look-alike",
                    "look-alike",
                    f"work referral {look.id} of a look-alike patient instead",
                    retarget(t.steps, ref.id, look.id),
                ),
                Mutation(
                    "wrong-number",
                    "wrong-value",
                    "record another referral's authorization number",
                    replace_value(t, "note-body", body.replace(auth, other)),
                ),
            ],
            given=referral_given_values(w, ref),
            answer=answer(w, ref, "on-file"),
        )
