"""Helpers shared by the prior_auth templates: record predicates, checks, texts."""

from __future__ import annotations

from endstate.builtin.templates.common import (
    DETERMINATION,
    NO_VALUE,
    Mutation,
    Traj,
    WorldView,
    jcheck,
    notes_text,
    nothing_requested,
    q,
    requests_for,
)
from endstate.envs.systems.payer_a import controls as payer_a
from endstate.envs.systems.payer_b import controls as payer_b
from endstate.envs.world import Coverage, Document, Referral, mdy
from endstate.envs.world.chart_files import file_name_of

FAMILY = "prior_auth"


REQUEST_TYPE = {"Diagnostic Radiology": "Advanced imaging"}


def services_summary(ref: Referral) -> str:
    """The referral's services as a note states them ("CPT 12345 x1; ...")."""
    return "; ".join(f"CPT {s.cpt} x{s.quantity}" for s in ref.services)


def coverage_pays_first(w: WorldView, ref: Referral) -> bool:
    """The referral's coverage is the one to request from: the plan that pays first on the
    date of service (rules.cob). Registered with a secondary, it is the coordination-of-
    benefits task's; ending before the appointment, no plain request's."""
    first = w.pays_first(ref.mrn, ref.appointment)
    return first is not None and first.id == ref.coverage_id


def primary_coverage_for(w: WorldView, ref: Referral) -> Coverage | None:
    """For a referral registered with a coverage in force on the date of service that does
    not pay first there: the one that does."""
    cov = w.coverages[ref.coverage_id]
    first = w.pays_first(ref.mrn, ref.appointment)
    if not cov.in_force(ref.appointment) or first is None or first.id == cov.id:
        return None
    return first


def plan_portal(w: WorldView, ref: Referral) -> str | None:
    """The portal of the referral's plan, or None when it takes requests by fax."""
    return w.plan_of(ref.coverage_id).portal


def services_need_auth(w: WorldView, ref: Referral) -> list[bool]:
    """Per service: the plan's rule requires authorization, at the place it is scheduled."""
    plan = w.plan_of(ref.coverage_id)
    out = []
    for s in ref.services:
        rule = w.rules[(plan.id, s.cpt)]
        out.append(rule.requires_auth_at(s.site))
    return out


def site_rule_applies(w: WorldView, ref: Referral) -> bool:
    """Whether a site-of-service rule decides any of the referral's services."""
    plan = w.plan_of(ref.coverage_id)
    return any(w.rules[(plan.id, s.cpt)].sites for s in ref.services)


def cleared_only_check(rid: str) -> dict[str, object]:
    """Check: this referral, and no other, was cleared from the worklist."""
    return jcheck(
        "ehr.cleared_referrals",
        [rid],
        1,
        f"Referral {rid} (and no other) cleared from the worklist",
        "Task Resolution",
    )


def determination_note_check(rid: str) -> dict[str, object]:
    """Check: an authorization determination note was saved on the referral."""
    return jcheck(
        f"length(ehr.notes[?subject_id=={q(rid)} && category=='auth-determination']) > `0`",
        True,
        1,
        "Authorization determination note saved on the referral",
        "Documentation",
    )


def no_request_check(mrn: str, points: float = 1) -> dict[str, object]:
    """Check: no prior-authorization request went out for the patient by any channel."""
    return jcheck(
        nothing_requested(mrn),
        True,
        points,
        "No prior-authorization request was sent for this patient (either portal or fax)",
        "Safety",
    )


def answer(
    w: WorldView,
    ref: Referral,
    decision: str,
    *,
    cov: Coverage | None = None,
    attach: list[Document] | None = None,
    never: list[Document] | None = None,
) -> dict[str, object]:
    """The task's answer key (docs/answer-key.md): the decision, and for a request the
    coverage, plan and channel it goes by, what goes with it and what never may."""
    key: dict[str, object] = {
        "family": FAMILY,
        "record": ref.id,
        "decision": decision,
        "service_date": ref.appointment,
        "never_attach": sorted({d.id for d in [*w.decoy_lmns(ref.id), *(never or [])]}),
    }
    if cov is not None:
        plan = w.plan_of(cov.id)
        key |= {"coverage": cov.id, "plan": plan.id, "channel": plan.portal or "fax"}
    if attach:
        key["attach"] = [d.id for d in attach]
    return key


def referral_intro(w: WorldView, ref: Referral) -> str:
    """How a task names the referral and its patient (name, DOB)."""
    return f"Referral {ref.id} for {w.name(ref.mrn)} (DOB {mdy(w.patients[ref.mrn].dob)})"


def referral_given_values(w: WorldView, ref: Referral) -> list[str]:
    """The values a referral task's text gives: referral id, patient name and DOB."""
    p = w.patients[ref.mrn]
    return [ref.id, p.first, p.last, mdy(p.dob)]


def _request_type(ref: Referral) -> str:
    """Both portals ask for the kind of request; imaging has its own, the rest are procedures."""
    return REQUEST_TYPE.get(ref.department, "Outpatient procedure")


def _necessity(ref: Referral) -> str:
    """The clinical summary both portals' forms take: the reason, and the letter to read."""
    return (
        f"{ref.reason}. Conservative management has failed; see the attached letter of "
        "medical necessity."
    )


def payer_a_request_steps(
    t: Traj, w: WorldView, ref: Referral, letter: Document, cov: Coverage | None = None
) -> int:
    """Download the letter from the chart, sign in to Payer A, fill and submit the form
    (for the referral's coverage, or `cov`)."""
    cov = cov or w.coverages[ref.coverage_id]
    plan = w.plan_of(cov.id)
    p = w.patients[ref.mrn]
    t.download(ref.id, w.doc_link(letter))
    t.referral(ref.id, "coverages")
    t.payer_a_login(plan.payer, plan.portal_username or "")
    t.goto(payer_a.PA_FORM)
    t.select(payer_a.REQUEST_TYPE, _request_type(ref))
    t.fill(payer_a.MEMBER_ID, cov.member_id)
    t.fill(payer_a.MEMBER_DOB, mdy(p.dob))
    t.fill(payer_a.PROVIDER_NPI, ref.provider_npi)
    t.fill(payer_a.DIAGNOSES, ", ".join(d.code for d in ref.diagnoses))
    for n, s in enumerate(ref.services, start=1):
        t.fill(payer_a.CPT_LINE.format(n=n), s.cpt)
        t.fill(payer_a.UNITS_LINE.format(n=n), str(s.quantity))
    t.fill(payer_a.SERVICE_DATE, mdy(ref.appointment))
    t.fill(payer_a.CLINICAL_NOTES, _necessity(ref))
    t.add(
        {
            "type": "upload",
            "target": {"label": payer_a.ATTACHMENTS},
            "path": download_file_name(letter),
        },
        mark="upload",
    )
    i = t.click(payer_a.SUBMIT_REQUEST, writes="submit the prior-authorization request")
    t.capture("conf", {"role": "status"}, pattern=r"PA-[A-Z0-9]{10}")
    return i


def request_by_plan_channel(
    t: Traj,
    w: WorldView,
    ref: Referral,
    letter: Document | None,
    cov: Coverage | None = None,
    fax_docs: list[str] | None = None,
) -> str:
    """A request by the plan's own channel (Payer A's form, Payer B's wizard, else its UM fax)
    for the referral's coverage or `cov`; the receipt a note would quote."""
    cov = cov or w.coverages[ref.coverage_id]
    plan = w.plan_of(cov.id)
    if plan.portal == "payer_a" and letter is not None:
        payer_a_request_steps(t, w, ref, letter, cov)
        return "Confirmation number ${conf}."
    if plan.portal == "payer_b" and letter is not None:
        payer_b_wizard_steps(t, w, ref, letter, cov)
        return "Reference number ${conf}."
    t.referral(ref.id, "documents")
    t.open_fax()
    docs = fax_docs if fax_docs is not None else [w.doc_label(letter)] if letter else []
    t.send_fax(
        plan.delegated_to or f"{plan.payer} Utilization Management",
        plan.fax,
        f"Prior authorization request for referral {ref.id}, member {cov.member_id}.",
        docs,
    )
    return "Faxed to utilization management."


def download_file_name(doc: Document) -> str:
    """The file name a download of the document gives (a scan's ends in .pdf)."""
    return file_name_of(doc)


def submit_anyway_mutation(
    w: WorldView, ref: Referral, lmn: Document, at: int, why: str
) -> Mutation:
    """A whole Payer A request inserted at step `at`: the request the task must not make."""
    sub = Traj()
    payer_a_request_steps(sub, w, ref, lmn)
    return Mutation(
        "submit-anyway", "wrong-action", why, [{"op": "insert", "at": at, "steps": sub.steps}]
    )


def record_submission_note(
    t: Traj, w: WorldView, ref: Referral, receipt: str, cov: Coverage | None = None
) -> str:
    """Note the submission on the referral and clear it; the note body, for mutations."""
    plan = w.plan_of((cov or w.coverages[ref.coverage_id]).id)
    body = (
        f"Prior authorization request submitted to {plan.payer} "
        f"for {services_summary(ref)}, date of service {mdy(ref.appointment)}. {receipt}"
    )
    t.referral_note(ref.id, "Prior authorization submitted", DETERMINATION, body)
    t.clear()
    return body


def submission_checks(
    sub: str,
    ref: Referral,
    lmn: Document,
    providers: list[dict[str, object]],
    service: list[dict[str, object]],
    number: str,
) -> list[dict[str, object]]:
    """Checks on one request through a payer's portal; only the form's fields differ.

    `providers` stand after the member, `service` after the diagnoses; `number` is what the
    payer calls the number it issues.
    """
    return [
        jcheck(
            f"length({sub})",
            1,
            2,
            "Exactly one request for this member reached the payer",
            "Task Resolution",
        ),
        jcheck(
            f"length({requests_for(ref.mrn)})",
            1,
            1,
            "No other request for this patient went out, by the other portal or by fax",
            "Safety",
        ),
        jcheck(f"{sub} | [0].member_mrn", ref.mrn, 1, "Member matched", "Data Accuracy"),
        *providers,
        jcheck(
            f"{sub} | [0].diagnosis_codes",
            [d.code for d in ref.diagnoses],
            1,
            "Diagnosis codes as on the referral, in order",
            "Data Accuracy",
        ),
        *service,
        jcheck(
            f"contains({sub} | [0].attachments[].document_id || `[]`, {q(lmn.id)})",
            True,
            1,
            "The current signed letter of medical necessity is attached",
            "Data Accuracy",
        ),
        jcheck(
            f"contains({notes_text(ref.id)}, {sub} | [0].confirmation_number || {q(NO_VALUE)})",
            True,
            2,
            f"The EHR note carries the {number} the payer issued",
            "Documentation",
        ),
        cleared_only_check(ref.id),
        jcheck(
            f"length(ehr.notes[?subject_id=={q(ref.id)} && category=='auth-determination']) > `0`",
            True,
            1,
            "The submission is recorded as an authorization determination note",
            "Documentation",
        ),
    ]


LATERALITY_LABELS = {"RT": "Right (RT)", "LT": "Left (LT)", "50": "Bilateral (50)"}


def payer_b_wizard_steps(
    t: Traj, w: WorldView, ref: Referral, letter: Document, cov: Coverage | None = None
) -> int:
    """Download the letter, sign in to Payer B, walk the wizard's steps, submit (for the
    referral's coverage, or `cov`)."""
    cov = cov or w.coverages[ref.coverage_id]
    plan = w.plan_of(cov.id)
    p = w.patients[ref.mrn]
    t.download(ref.id, w.doc_link(letter))
    t.referral(ref.id, "coverages")
    t.payer_b_login(plan.payer, plan.portal_username or "")
    t.goto(payer_b.WIZARD_START)
    t.select(payer_b.HEALTH_PLAN, plan.name)
    t.fill(payer_b.MEMBER_ID, cov.member_id)
    t.fill(payer_b.MEMBER_DOB, mdy(p.dob))
    t.click(payer_b.SAVE_AND_CONTINUE)
    t.fill(payer_b.REQUESTING_NPI, ref.referring_npi)
    t.fill(payer_b.SERVICING_NPI, ref.provider_npi)
    t.click(payer_b.SAVE_AND_CONTINUE)
    t.select(payer_b.REQUEST_TYPE, _request_type(ref))
    t.fill(payer_b.DIAGNOSES, ", ".join(d.code for d in ref.diagnoses))
    for n, s in enumerate(ref.services, start=1):
        t.fill(payer_b.CPT_LINE.format(n=n), s.cpt)
        t.fill(payer_b.UNITS_LINE.format(n=n), str(s.quantity))
        t.select(
            payer_b.LATERALITY_LINE.format(n=n),
            LATERALITY_LABELS.get(s.laterality or "", "Not applicable"),
        )
    t.fill(payer_b.START_DATE, mdy(ref.appointment))
    t.fill(payer_b.END_DATE, mdy(ref.appointment))
    t.click(payer_b.SAVE_AND_CONTINUE)
    t.fill(payer_b.CLINICAL_SUMMARY, _necessity(ref))
    t.add(
        {
            "type": "upload",
            "target": {"label": payer_b.DOCUMENTATION},
            "path": download_file_name(letter),
        },
        mark="upload",
    )
    t.click(payer_b.SAVE_AND_CONTINUE)
    t.check(payer_b.ATTEST)
    i = t.click(payer_b.SUBMIT_REQUEST, writes="submit the request through the wizard")
    t.capture("conf", {"role": "status"}, pattern=r"RQ-[A-Z0-9]{10}")
    return i
