"""Hard: every document is there, but the result the payer's criterion reads falls short."""

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
    replace_value,
)
from endstate.builtin.templates.dme.facts import (
    FAMILY,
    answer,
    fax_from_order_tab,
    held_order_checks,
    look_alike_order,
    note_look_alike_mutation,
    order_covered,
    order_documents,
    order_given_without_supplier,
    order_intro_without_mrn,
    order_qualifies,
    packet_documents,
    save_order_note,
)
from endstate.envs.world import DmeOrder, clinical
from endstate.envs.world.dme_catalog import DmeCriterion

# Words any fair naming of the measured result contains (for the note check).
MARKER_WORDS = {
    "apnea-hypopnea index": ("AHI", "apnea-hypopnea", "Apnea-hypopnea"),
    "SpO2": ("SpO2", "saturation", "Saturation"),
    "HbA1c": ("A1c", "A1C"),
}


def _shown(criterion: DmeCriterion, value: float) -> str:
    """The result as the report prints it (an integer, or HbA1c's one decimal)."""
    return f"{value}" if criterion.marker == "HbA1c" else f"{int(value)}"


class CriteriaNotMet(TaskTemplate):
    """Hard: every document is there, but the result the payer's criterion reads falls short."""

    id = "dme.hard.criteria-not-met"
    family = FAMILY
    tier = "hard"
    scenario_label = "supplier_paperwork"

    def candidates(self, w: WorldView) -> list[str]:
        """Orders with every required document in the chart whose result falls short."""
        return [
            o.id
            for o in w.world.dme_orders
            if order_covered(w, o)
            and not order_qualifies(w, o)
            and all(k in order_documents(w, o) for k in o.required_documents)
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        o = w.order(key)
        criterion = clinical.dme_item(o.hcpcs).criterion
        assert criterion is not None and o.result is not None
        value = _shown(criterion, o.result)
        t, note = self._trajectory(w, o, criterion, value)
        return Draft(
            key=o.id,
            instruction=(
                f"{order_intro_without_mrn(w, o)} is waiting on its supplier paperwork. If the "
                "chart "
                "supports the order — every required document, and the payer's coverage "
                "criteria for the item met — fax the supplier the documents the order "
                "requires. Either way, leave a note on the order saying what was sent, or "
                "what stops it."
            ),
            start_system="ehr",
            start_path="/dme",
            checks=self._checks(o, criterion, value),
            expected_outcome=f"nothing faxed; the note cites the {criterion.marker} of {value}",
            rationale=f"{criterion.text} The chart shows {criterion.marker} {value}.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(w, o, t, note, value, look_alike_order(w, o, rng)),
            given=order_given_without_supplier(w, o),
            answer=answer(w, o, "hold-criterion"),
        )

    def _trajectory(
        self, w: WorldView, o: DmeOrder, criterion: DmeCriterion, value: str
    ) -> tuple[Traj, str]:
        """Read the criterion, open the report with the result, note why nothing goes out."""
        t = Traj()
        t.ehr_origin()
        t.goto(f"${{ehr}}/dme/{o.id}")
        t.goto(f"${{ehr}}/dme/{o.id}?tab=documents")
        docs = order_documents(w, o)
        report = next(docs[k][0] for k in ("sleep_study", "lab") if k in docs)
        t.goto(f"${{ehr}}/documents/{report.id}")
        body = (
            f"Packet not sent: the {criterion.marker} on file is {value} {criterion.unit}, and "
            f"the payer's criterion is not met ({criterion.text}) Returned to the ordering "
            "provider for review before anything goes to the supplier."
        )
        save_order_note(t, o, "Supplier paperwork on hold - coverage criteria not met", body)
        return t, body

    def _checks(self, o: DmeOrder, criterion: DmeCriterion, value: str) -> list[dict[str, object]]:
        notes = notes_text(o.id)
        marker = " || ".join(
            f"contains({notes}, {q(word)})" for word in MARKER_WORDS[criterion.marker]
        )
        return [
            *held_order_checks(o, "an order the criteria do not support was not sent"),
            jcheck(
                f"contains({notes}, {q(value)}) && ({marker})",
                True,
                2,
                f"The note cites the {criterion.marker} the chart shows ({value})",
                "Data Accuracy",
            ),
        ]

    def _mutations(
        self, w: WorldView, o: DmeOrder, t: Traj, note: str, value: str, other: DmeOrder
    ) -> list[Mutation]:
        """Sending the complete packet anyway; a note without the result; the wrong order."""
        fax = Traj()
        fax_from_order_tab(
            fax, w, o, packet_documents(w, o), f"Documentation for DME order {o.id}."
        )
        return [
            *drop_mutations(t),
            Mutation(
                "fax-anyway",
                "wrong-action",
                "fax the complete packet without reading the criteria",
                [{"op": "insert", "at": t.marks["note-subject"] - 1, "steps": fax.steps}],
            ),
            Mutation(
                "no-result",
                "wrong-value",
                "a note that does not cite the result",
                replace_value(
                    t,
                    "note-body",
                    "Packet on hold: coverage criteria not met. Returned for review.",
                ),
            ),
            note_look_alike_mutation(t, o, other),
        ]
