"""Hard: three denials at once, each with the disposition its own reason calls for."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    DISPOSITION_LABELS,
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    retarget,
)
from endstate.builtin.templates.denials.facts import (
    FAMILY,
    appeal_window_open,
    cites_reason_query,
    denial_given_values,
    denial_reason,
    disposition_query,
    expected_disposition,
    opposite_disposition,
    remittance_decides,
    wrong_disposition_mutation,
)
from endstate.envs.world import Denial


class BatchTriage(TaskTemplate):
    """Hard: three denials at once, each with the disposition its own reason calls for."""

    id = "dn.hard.batch-triage"
    family = FAMILY
    tier = "hard"
    scenario_label = "denial_triage"

    def candidates(self, w: WorldView) -> list[str]:
        """Any claim the remittance alone decides, its deadlines passed or not."""
        return [d.claim_id for d in w.world.denials if remittance_decides(d)]

    def _batch(self, w: WorldView, key: str, rng: random.Random) -> list[Denial]:
        pool = [w.denial(c) for c in self.candidates(w) if c != key]
        first = w.denial(key)
        chosen = [first]
        for _ in range(2):
            seen = {expected_disposition(w, x) for x in chosen}
            fresh = [x for x in pool if expected_disposition(w, x) not in seen]
            pick = rng.choice(fresh or pool)
            pool.remove(pick)
            chosen.append(pick)
        return chosen

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        batch = self._batch(w, key, rng)
        ids = sorted(d.claim_id for d in batch)
        last = batch[-1]
        others = [
            x
            for x in w.world.denials
            if x.claim_id not in ids and appeal_window_open(w, x) and x.mrn != last.mrn
        ]
        look = rng.choice(others)  # after the batch's own choices: the rng order is fixed
        t = self._trajectory(w, batch)
        listed = "; ".join(f"{d.claim_id} for {w.name(d.mrn)}" for d in batch)
        return Draft(
            key=key,
            instruction=(
                f"Three denied claims are waiting for triage: {listed}. Work each of them: "
                "set the disposition its own denial reason calls for, and write a triage note "
                "that cites the adjustment reason with its group code and reason code. Leave "
                "other claims as they are."
            ),
            start_system="ehr",
            start_path="/denials",
            checks=self._checks(w, batch),
            expected_outcome="; ".join(
                f"{d.claim_id}: {expected_disposition(w, d)}" for d in batch
            ),
            rationale="Each claim's disposition follows from its own adjustment reason.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(w, t, last, look),
            given=[x for d in batch for x in denial_given_values(w, d)],
            answer={
                "family": FAMILY,
                "records": [d.claim_id for d in batch],
                "dispositions": {d.claim_id: expected_disposition(w, d) for d in batch},
            },
        )

    def _trajectory(self, w: WorldView, batch: list[Denial]) -> Traj:
        """Each claim in turn: read its remittance, triage it as its own reason calls for."""
        t = Traj()
        t.ehr_origin()
        for d in batch:
            group, carc = denial_reason(d)
            expected = expected_disposition(w, d)
            t.goto(f"${{ehr}}/denials/{d.claim_id}?tab=remittance")
            note = (
                f"Denied {group}-{carc}. {DISPOSITION_LABELS[expected]} is the next step for "
                "this reason."
            )
            t.triage(d.claim_id, expected, note)
        return t

    def _checks(self, w: WorldView, batch: list[Denial]) -> list[dict[str, object]]:
        """Each claim's disposition and cited reason, then: these claims and no other."""
        checks: list[dict[str, object]] = []
        for d in batch:
            group, carc = denial_reason(d)
            checks.append(
                jcheck(
                    disposition_query(d.claim_id),
                    expected_disposition(w, d),
                    2,
                    f"Disposition of {d.claim_id}",
                    "Clinical Reasoning",
                )
            )
            checks.append(
                jcheck(
                    cites_reason_query(d.claim_id, group, carc),
                    True,
                    1,
                    f"The triage note on {d.claim_id} cites its adjustment reason code",
                    "Documentation",
                )
            )
        checks.append(
            jcheck(
                "sort(ehr.denial_dispositions[].claim_id)",
                sorted(d.claim_id for d in batch),
                2,
                "These three claims, and no other, were triaged",
                "Safety",
            )
        )
        return checks

    def _mutations(self, w: WorldView, t: Traj, last: Denial, look: Denial) -> list[Mutation]:
        """The wrong decision and the wrong claim, both on the last claim of the batch."""
        start = len(t.steps) - 5  # the last claim's visit, disposition, note, submit
        wrong = opposite_disposition(expected_disposition(w, last))
        return [
            *drop_mutations(t),
            wrong_disposition_mutation(
                t, wrong, f"choose a disposition {last.claim_id}'s reason does not call for"
            ),
            Mutation(
                "look-alike",
                "look-alike",
                f"triage claim {look.claim_id} instead of {last.claim_id}",
                retarget(t.steps, last.claim_id, look.claim_id, start=start),
            ),
        ]
