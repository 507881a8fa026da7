"""Helpers shared by the denials templates: record predicates, checks, texts."""

from __future__ import annotations

from endstate.builtin.templates.common import (
    DISPOSITION_LABELS,
    Mutation,
    Traj,
    WorldView,
    decoys_unsent,
    jcheck,
    q,
    replace_value,
    retarget,
)
from endstate.envs.world import Denial, Document
from endstate.rules.cost_sharing import member_share_billed_to
from endstate.rules.denials import (
    action_for,
    decided_by_reason,
    disposition,
    governing_deadline,
)

FAMILY = "appeals_denials"


def denial_reason(d: Denial) -> tuple[str, str]:
    """(group, CARC) of the claim's denying line: the first whose CARC is not 45."""
    line = next(x for x in d.lines if x.carc != "45")
    return line.group, line.carc


def appeal_window_open(w: WorldView, d: Denial) -> bool:
    """The payer's appeal deadline for the claim has not passed today."""
    return d.appeal_deadline >= w.today


def remittance_decides(d: Denial) -> bool:
    """The remittance's reason alone decides the action (the playbook needs no other facts)."""
    return decided_by_reason(*denial_reason(d))


def expected_disposition(w: WorldView, d: Denial) -> str:
    """The playbook's disposition for a reason the remittance alone decides: its action, or
    a write-off once the deadline that governs that action has passed. A member share goes
    to Medi-Cal, never to the patient, when the patient also has Medi-Cal on the date of
    service (rules.cost_sharing)."""
    group, carc = denial_reason(d)
    found = disposition(group, carc, d.appeal_deadline, d.timely_filing_deadline, w.today)
    if found != "bill-patient":
        return found
    others = w.world.benefit_order(d.mrn, d.service_date)
    return member_share_billed_to(w.plan_of(c.id).kind for c in others if c.id != d.coverage_id)


def action_deadline(d: Denial) -> tuple[str, str] | None:
    """(what it is called, ISO date) of the deadline that governs the claim's action."""
    action = action_for(*denial_reason(d))
    when = governing_deadline(action, d.appeal_deadline, d.timely_filing_deadline)
    if when is None:
        return None
    return ("appeal deadline" if action.clock == "appeal" else "timely-filing limit"), when


def action_in_time(w: WorldView, d: Denial) -> bool:
    """The action the reason calls for can still be taken."""
    found = action_deadline(d)
    return found is None or found[1] >= w.today


def denial_intro(w: WorldView, d: Denial) -> str:
    """How a task names the claim and its patient, at the start of a sentence."""
    return f"Denied claim {d.claim_id} for {w.name(d.mrn)}"


def denial_intro_inline(w: WorldView, d: Denial) -> str:
    """The intro in mid-sentence ("Work denied claim ...")."""
    intro = denial_intro(w, d)
    return f"{intro[0].lower()}{intro[1:]}"


def denial_given_values(w: WorldView, d: Denial) -> list[str]:
    """The values a denial task's text gives: claim id and patient name."""
    p = w.patients[d.mrn]
    return [d.claim_id, p.first, p.last]


def disposition_query(claim_id: str) -> str:
    """JMESPath to the disposition recorded for the claim on the worklist."""
    return f"ehr.denial_dispositions[?claim_id=={q(claim_id)}] | [0].disposition"


def triage_notes_query(claim_id: str) -> str:
    """JMESPath to the claim's triage notes joined into one text (empty if none)."""
    return (
        f"join(' ', ehr.denial_dispositions[?claim_id=={q(claim_id)}] | [0].triage_notes || `[]`)"
    )


def only_claim_triaged_check(claim_id: str) -> dict[str, object]:
    """Check: this claim, and no other, was triaged on the worklist."""
    return jcheck(
        "ehr.denial_dispositions[].claim_id",
        [claim_id],
        1,
        f"Claim {claim_id} (and no other) was triaged",
        "Task Resolution",
    )


def cites_reason_query(claim_id: str, group: str, carc: str) -> str:
    """JMESPath: the triage notes cite the reason as GROUP-CARC or GROUP CARC."""
    text = triage_notes_query(claim_id)
    return " || ".join(
        f"contains({text}, {q(form)})" for form in (f"{group}-{carc}", f"{group} {carc}")
    )


def opposite_disposition(expected: str) -> str:
    """A disposition other than `expected`, for a wrong-disposition mutation."""
    return "write-off" if expected != "write-off" else "appeal"


def cites_reason_check(claim_id: str, group: str, carc: str) -> dict[str, object]:
    """The triage note names the reason the claim was worked on (either written form)."""
    return jcheck(
        cites_reason_query(claim_id, group, carc),
        True,
        1,
        "The triage note cites the adjustment reason code",
        "Documentation",
    )


def triaged_as_appeal_check(claim_id: str) -> dict[str, object]:
    """An appeal sent is only half the work: the worklist must say so too."""
    return jcheck(
        disposition_query(claim_id), "appeal", 1, "Claim triaged as an appeal", "Task Resolution"
    )


def no_appeal_query(d: Denial) -> str:
    """Nothing went to a payer to contest the claim: no portal appeal, no fax."""
    return (
        f"length(payer_a.appeals[?claim_id=={q(d.claim_id)}]) == `0` && "
        f"length(payer_b.appeals[?claim_id=={q(d.claim_id)}]) == `0` && "
        f"length(fax.transmissions[?patient_mrn=={q(d.mrn)}]) == `0`"
    )


def chart_necessity_letter(w: WorldView, d: Denial) -> Document | None:
    """The current signed letter of medical necessity filed against this claim — written for
    the service the claim bills, before it — when the patient's chart names it unambiguously."""
    lmn = w.current_lmn(d.claim_id)
    return lmn if lmn is not None and w.unambiguous(lmn) else None


def wrong_disposition_mutation(
    t: Traj, disposition: str, why: str = "choose a disposition the reason does not call for"
) -> Mutation:
    """The same triage with another disposition: the decision is what the task tests."""
    return Mutation(
        "wrong-disposition",
        "wrong-value",
        why,
        replace_value(t, "disposition", DISPOSITION_LABELS[disposition]),
    )


def appeal_anyway_mutation(t: Traj) -> Mutation:
    """Appeal a denial that must not be contested (window closed, duplicate claim)."""
    return Mutation(
        "appeal-anyway",
        "wrong-action",
        "triage it as an appeal",
        replace_value(t, "disposition", DISPOSITION_LABELS["appeal"]),
    )


def look_alike_claim_mutation(t: Traj, d: Denial, look: Denial) -> Mutation:
    """Do all the work, on the wrong claim (`look`: chosen by the caller, in rng order)."""
    return Mutation(
        "look-alike",
        "look-alike",
        f"triage claim {look.claim_id} instead",
        retarget(t.steps, d.claim_id, look.claim_id),
    )


# Denials a letter of medical necessity answers, and Payer B's reason for them.
NECESSITY = {"50": "medical-necessity"}


REASON_LABELS = {"medical-necessity": "Medical necessity"}


CONTACT_NAME, CONTACT_PHONE = "J. Rivera", "(415) 555-0100"


def appeal_guards(w: WorldView, d: Denial, channel: str) -> list[dict[str, object]]:
    """What must not happen beside an appeal: a draft or superseded letter sent anywhere, or
    the appeal also filed by another channel than the payer's own."""
    claim = q(d.claim_id)
    others = {
        "payer_a": f"length(payer_a.appeals[?claim_id=={claim}])",
        "payer_b": f"length(payer_b.appeals[?claim_id=={claim}])",
    }
    elsewhere = " && ".join(f"{v} == `0`" for k, v in others.items() if k != channel)
    return [
        *decoys_unsent(w.decoy_lmns(d.claim_id), 2),
        jcheck(
            elsewhere,
            True,
            1,
            "The appeal was not also filed on another payer portal",
            "Safety",
        ),
    ]


def answer(
    w: WorldView,
    d: Denial,
    disposition: str,
    *,
    channel: str | None = None,
    attach: list[Document] | None = None,
) -> dict[str, object]:
    """The task's answer key (docs/answer-key.md): the disposition, the deadline that governs
    it, and for an appeal that goes out its channel, what goes with it and what never may."""
    # Billing the plan that pays first is a new claim to another payer: no clock of this
    # claim's governs it (the appeal clock governs only asking this payer to reconsider).
    found = None if disposition == "bill-secondary" else action_deadline(d)
    key: dict[str, object] = {
        "family": FAMILY,
        "record": d.claim_id,
        "disposition": disposition,
        "deadline": found[1] if found else None,
        "never_attach": sorted(x.id for x in w.decoy_lmns(d.claim_id)),
    }
    if channel is not None:
        key["channel"] = channel
    if attach:
        key["attach"] = [x.id for x in attach]
    return key
