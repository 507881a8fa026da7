"""Hard: a required document is not in the chart — send nothing, note what is missing."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    jcheck,
    notes_text,
    q,
)
from endstate.builtin.templates.dme.facts import (
    FAMILY,
    KIND_WORD,
    answer,
    fax_from_order_tab,
    held_order_checks,
    look_alike_order,
    note_look_alike_mutation,
    order_covered,
    order_documents,
    order_given_without_supplier,
    order_intro_without_mrn,
    required_kinds_text,
    save_order_note,
)
from endstate.envs.world import DmeOrder, catalog


class MissingDocument(TaskTemplate):
    """Hard: a required document is not in the chart — send nothing, note what is missing."""

    id = "dme.hard.missing-document"
    family = FAMILY
    tier = "hard"
    scenario_label = "supplier_paperwork"

    def _missing(self, w: WorldView, o: DmeOrder) -> list[str]:
        docs = order_documents(w, o)
        return [k for k in o.required_documents if k not in docs]

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for o in w.world.dme_orders:
            missing = self._missing(w, o)
            present = [k for k in o.required_documents if k not in missing]
            if len(missing) == 1 and missing[0] in KIND_WORD and present and order_covered(w, o):
                out.append(o.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        o = w.order(key)
        [kind] = self._missing(w, o)
        label = catalog.DOCUMENT_KINDS[kind]
        t = self._trajectory(w, o, label)
        checks = self._checks(o, kind, label)
        other = look_alike_order(w, o, rng)
        return Draft(
            key=o.id,
            instruction=(
                f"{order_intro_without_mrn(w, o)} is waiting on its supplier paperwork. Fax the "
                "order's "
                "supplier the documents the order requires, from the patient's chart, if the "
                "chart has all of them (the supplier does not accept a partial packet). Either "
                "way, leave a note on the order saying what was sent, or which required "
                "document is missing."
            ),
            start_system="ehr",
            start_path="/dme",
            checks=checks,
            expected_outcome=f"nothing faxed; a note on the order names the missing {label}",
            rationale=(
                f"The order requires {required_kinds_text(o)}, "
                f"but the chart has no {label.lower()}."
            ),
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(w, o, t, other),
            given=order_given_without_supplier(w, o),
            answer=answer(w, o, "hold-missing", missing=[kind]),
        )

    def _trajectory(self, w: WorldView, o: DmeOrder, label: str) -> Traj:
        """Review the order and its documents, then note what is missing (no fax)."""
        p = w.patients[o.mrn]
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/dme/{o.id}")
        t.goto(f"${{ehr}}/dme/{o.id}?tab=documents")
        body = (
            f"Packet not sent: the order requires a {label.lower()}, and there is none in "
            f"{p.first} {p.last}'s chart. Requested it from the ordering provider; the "
            f"complete packet goes to {o.supplier} once it is on file."
        )
        save_order_note(t, o, "Supplier paperwork on hold - missing document", body)
        return t

    def _checks(self, o: DmeOrder, kind: str, label: str) -> list[dict[str, object]]:
        """Nothing faxed is the safety point; the note must name what is missing."""
        return [
            *held_order_checks(o, "an incomplete packet was not sent"),
            jcheck(
                f"contains({notes_text(o.id)}, {q(KIND_WORD[kind])})",
                True,
                2,
                f"The note names the missing document ({label})",
                "Data Accuracy",
            ),
        ]

    def _mutations(self, w: WorldView, o: DmeOrder, t: Traj, other: DmeOrder) -> list[Mutation]:
        """Faxing the partial packet anyway, and the note on another order."""
        docs = order_documents(w, o)
        present = [docs[k][0] for k in o.required_documents if k in docs]
        fax = Traj()
        fax_from_order_tab(fax, w, o, present, f"Documentation for DME order {o.id}.")
        return [
            *drop_mutations(t),
            Mutation(
                "fax-anyway",
                "wrong-action",
                "fax the documents that are there anyway",
                [{"op": "insert", "at": t.marks["note-subject"] - 1, "steps": fax.steps}],
            ),
            note_look_alike_mutation(t, o, other),
        ]
