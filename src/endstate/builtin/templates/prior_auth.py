"""Prior-authorization templates: referrals on the EHR worklist, Payer A, the fax portal."""

from __future__ import annotations

import random

from endstate.builtin.templates.base import Template
from endstate.builtin.templates.common import (
    DETERMINATION,
    FOLLOW_UP,
    NO_VALUE,
    Draft,
    Mutation,
    Traj,
    WorldView,
    drop_mutations,
    fake_confirmation,
    fax_digits,
    jcheck,
    last_note,
    misdirected_fax,
    notes_text,
    q,
    replace_attachment,
    replace_checked,
    replace_value,
    retarget,
    rubric,
)
from endstate.envs.systems.ehr.app import download_name
from endstate.envs.world import Document, Referral, mdy

FAMILY = "prior_auth"
REQUEST_TYPE = {"Diagnostic Radiology": "Advanced imaging"}


def _services(ref: Referral) -> str:
    return "; ".join(f"CPT {s.cpt} x{s.quantity}" for s in ref.services)


def _active(w: WorldView, ref: Referral) -> bool:
    return w.coverages[ref.coverage_id].status == "active"


def _portal(w: WorldView, ref: Referral) -> str | None:
    return w.plan_of(ref.coverage_id).portal


def _needs_auth(w: WorldView, ref: Referral) -> list[bool]:
    plan = w.plan_of(ref.coverage_id)
    return [w.rules[(plan.id, s.cpt)].requires_auth for s in ref.services]


def _cleared_only(rid: str) -> dict[str, object]:
    return jcheck(
        "ehr.cleared_referrals",
        [rid],
        1,
        f"Referral {rid} (and no other) cleared from the worklist",
        "Task Resolution",
    )


def _determination_note(rid: str) -> dict[str, object]:
    return jcheck(
        f"length(ehr.notes[?subject_id=={q(rid)} && category=='auth-determination']) > `0`",
        True,
        1,
        "Authorization determination note saved on the referral",
        "Documentation",
    )


def _no_request(mrn: str, points: float = 1) -> dict[str, object]:
    return jcheck(
        f"length(payer_a.pa_submissions[?member_mrn=={q(mrn)}]) == `0` && "
        f"length(fax.transmissions[?patient_mrn=={q(mrn)}]) == `0`",
        True,
        points,
        "No prior-authorization request was sent for this patient (portal or fax)",
        "Safety",
    )


def _intro(w: WorldView, ref: Referral) -> str:
    return f"Referral {ref.id} for {w.name(ref.mrn)} (DOB {mdy(w.patients[ref.mrn].dob)})"


def _given(w: WorldView, ref: Referral) -> list[str]:
    p = w.patients[ref.mrn]
    return [ref.id, p.first, p.last, mdy(p.dob)]


class AuthOnFile(Template):
    """Easy: the answer is in the chart — an authorization already exists."""

    id = "pa.easy.auth-on-file"
    family = FAMILY
    tier = "easy"
    scenario_label = "authorization_determination"

    def candidates(self, w: WorldView) -> list[str]:
        return [r.id for r in w.world.referrals if r.existing_auth and _active(w, r)]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        auth = ref.existing_auth or ""
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id)
        body = (
            f"Authorization {auth} is already on file for this referral ({_services(ref)}). "
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
            _determination_note(ref.id),
            jcheck(
                f"contains({notes_text(ref.id)}, {q(auth)})",
                True,
                2,
                "The note records the authorization number on file",
                "Data Accuracy",
            ),
            _cleared_only(ref.id),
            _no_request(ref.mrn),
            rubric(
                last_note(ref.id),
                "authorization determination note",
                "The note states the existing authorization and that no new request is needed",
                f"Does the note say that an authorization ({auth}) is already on file and that "
                "no new prior authorization request is needed?",
            ),
        ]
        return Draft(
            key=ref.id,
            instruction=(
                f"{_intro(w, ref)} is waiting for an authorization decision. Find out whether "
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
            given=_given(w, ref),
        )


class PolicyLookup(Template):
    """Easy: read the payer's published policy and make the determination."""

    id = "pa.easy.policy-lookup"
    family = FAMILY
    tier = "easy"
    scenario_label = "authorization_determination"

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for r in w.world.referrals:
            if _portal(w, r) != "payer_a" or not _active(w, r) or r.existing_auth:
                continue
            needs = _needs_auth(w, r)
            if all(needs) or not any(needs):
                out.append(r.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        plan = w.plan_of(ref.coverage_id)
        required = _needs_auth(w, ref)[0]
        policies = [w.rules[(plan.id, s.cpt)].policy_id for s in ref.services]
        verdict, opposite = ("PA REQUIRED", "NO PA REQUIRED")
        if not required:
            verdict, opposite = opposite, verdict
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id, "services")
        t.referral(ref.id, "coverages")
        t.payer_a_login(plan.payer, plan.portal_username or "", plan.portal_password or "")
        t.goto("/policies")
        why = "requires" if required else "does not require"
        body = (
            f"{verdict}: {plan.name} {why} prior authorization for {_services(ref)} "
            f"per policy {', '.join(policies)}."
        )
        t.referral_note(ref.id, "Prior authorization determination", DETERMINATION, body)
        t.clear()
        look = w.lookalike_referral(ref, rng)
        cites = " && ".join(f"contains({notes_text(ref.id)}, {q(p)})" for p in policies)
        checks = [
            _determination_note(ref.id),
            jcheck(
                f"starts_with(ehr.notes[?subject_id=={q(ref.id)} && "
                f"category=='auth-determination'] | [-1].body || '', {q(verdict)})",
                True,
                3,
                f"The determination is {verdict}",
                "Clinical Reasoning",
            ),
            jcheck(cites, True, 1, "The note cites the payer policy", "Data Accuracy"),
            _cleared_only(ref.id),
            _no_request(ref.mrn),
            rubric(
                last_note(ref.id),
                "authorization determination note",
                "The note gives the determination and its basis",
                f"Does the note say that prior authorization is {'' if required else 'NOT '}"
                f"required for the scheduled services under {plan.name}'s policy?",
            ),
        ]
        return Draft(
            key=ref.id,
            instruction=(
                f"{_intro(w, ref)} is waiting for an authorization decision. Determine from the "
                "payer's published policy whether the scheduled services need prior "
                "authorization. Record the determination as an authorization determination "
                "note that begins with “PA REQUIRED” or “NO PA REQUIRED” and cites the payer's "
                "policy number, then clear the referral. Do not submit a request."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=checks,
            expected_outcome=f"{verdict} citing {', '.join(policies)}; referral cleared",
            rationale=f"{plan.name} {why} prior authorization for {_services(ref)}.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=[
                *drop_mutations(t),
                Mutation(
                    "opposite",
                    "wrong-value",
                    "record the opposite determination",
                    replace_value(t, "note-body", body.replace(verdict, opposite, 1)),
                ),
                Mutation(
                    "look-alike",
                    "look-alike",
                    f"work referral {look.id} instead",
                    retarget(t.steps, ref.id, look.id),
                ),
            ],
            given=[*_given(w, ref), "PA REQUIRED", "NO PA REQUIRED"],
        )


def _request_type(ref: Referral) -> str:
    """Both portals ask for the kind of request; imaging has its own, the rest are procedures."""
    return REQUEST_TYPE.get(ref.department, "Outpatient procedure")


def _necessity(ref: Referral) -> str:
    """The clinical summary both portals' forms take: the reason, and the letter to read."""
    return (
        f"{ref.reason}. Conservative management has failed; see the attached letter of "
        "medical necessity."
    )


def _portal_request(t: Traj, w: WorldView, ref: Referral, letter: Document) -> int:
    """Download the letter from the chart, sign in to Payer A, fill and submit the form."""
    plan = w.plan_of(ref.coverage_id)
    cov = w.coverages[ref.coverage_id]
    p = w.patients[ref.mrn]
    t.download(ref.id, w.doc_link(letter))
    t.referral(ref.id, "coverages")
    t.payer_a_login(plan.payer, plan.portal_username or "", plan.portal_password or "")
    t.goto("/prior-auth/new")
    t.select("Request type", _request_type(ref))
    t.fill("Member ID", cov.member_id)
    t.fill("Member date of birth", mdy(p.dob))
    t.fill("Provider NPI", ref.provider_npi)
    t.fill("Diagnosis codes (ICD-10)", ", ".join(d.code for d in ref.diagnoses))
    for n, s in enumerate(ref.services, start=1):
        t.fill(f"CPT code, line {n}", s.cpt)
        t.fill(f"Units, line {n}", str(s.quantity))
    t.fill("Date of service", mdy(ref.appointment))
    t.fill("Clinical notes", _necessity(ref))
    t.add(
        {
            "type": "upload",
            "target": {"label": "Attachments"},
            "path": _download_name(letter.id, letter.title),
        },
        mark="upload",
    )
    i = t.click("Submit request", writes="submit the prior-authorization request")
    t.capture("conf", {"role": "status"}, pattern=r"PA-[A-Z0-9]{10}")
    return i


def _download_name(doc_id: str, title: str) -> str:
    return download_name(doc_id, title)


def _submit_anyway(w: WorldView, ref: Referral, lmn: Document, at: int, why: str) -> Mutation:
    """A whole Payer A request inserted at step `at`: the request the task must not make."""
    sub = Traj()
    _portal_request(sub, w, ref, lmn)
    return Mutation(
        "submit-anyway", "wrong-action", why, [{"op": "insert", "at": at, "steps": sub.steps}]
    )


def _record_submission(t: Traj, w: WorldView, ref: Referral, receipt: str) -> str:
    """Note the submission on the referral and clear it; the note body, for mutations."""
    body = (
        f"Prior authorization request submitted to {w.plan_of(ref.coverage_id).payer} "
        f"for {_services(ref)}, date of service {mdy(ref.appointment)}. {receipt}"
    )
    t.referral_note(ref.id, "Prior authorization submitted", DETERMINATION, body)
    t.clear()
    return body


def _submission_checks(
    sub: str,
    ref: Referral,
    lmn: Document,
    providers: list[dict[str, object]],
    service: list[dict[str, object]],
    number: str,
    ask: str,
) -> list[dict[str, object]]:
    """Checks on one request through a payer's portal; only the form's fields differ.

    `providers` stand after the member, `service` after the diagnoses; `number` is what the
    payer calls the number it issues, `ask` how the rubric asks for it.
    """
    return [
        jcheck(
            f"length({sub})",
            1,
            2,
            "Exactly one request for this member reached the payer",
            "Task Resolution",
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
        _cleared_only(ref.id),
        rubric(
            last_note(ref.id),
            "authorization note",
            "The note documents the submission",
            "Does the note say that a prior authorization request was submitted to the "
            f"payer and give {ask}?",
        ),
    ]


class PortalRequest(Template):
    """Medium: carry the referral into Payer A's form, bring the confirmation back."""

    id = "pa.medium.portal-request"
    family = FAMILY
    tier = "medium"
    scenario_label = "authorization_request"
    decoy = False

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for r in w.world.referrals:
            lmn = w.current_lmn(r.id)
            if (
                _portal(w, r) == "payer_a"
                and _active(w, r)
                and not r.existing_auth
                and any(_needs_auth(w, r))
                and lmn is not None
                and (w.decoy_lmn(r.id) is not None or not self.decoy)
            ):
                out.append(r.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        cov = w.coverages[ref.coverage_id]
        lmn = w.current_lmn(ref.id)
        assert lmn is not None
        decoy = w.decoy_lmn(ref.id)
        t = Traj()
        t.ehr_origin()
        _portal_request(t, w, ref, lmn)
        body = _record_submission(t, w, ref, "Confirmation number ${conf}; status pending review.")
        sub = f"payer_a.pa_submissions[?member_id=={q(cov.member_id)}]"
        checks = _submission_checks(
            sub,
            ref,
            lmn,
            providers=[
                jcheck(
                    f"{sub} | [0].provider_npi",
                    ref.provider_npi,
                    1,
                    "Rendering provider's NPI",
                    "Data Accuracy",
                ),
            ],
            service=[
                jcheck(
                    f"{sub} | [0].procedures",
                    [{"code": s.cpt, "units": s.quantity} for s in ref.services],
                    1,
                    "CPT codes and units as on the referral",
                    "Data Accuracy",
                ),
                jcheck(
                    f"{sub} | [0].service_date",
                    ref.appointment,
                    1,
                    "Date of service is the appointment date",
                    "Data Accuracy",
                ),
            ],
            number="confirmation number",
            ask="a confirmation number",
        )
        mutations = [
            *drop_mutations(t),
            fake_confirmation(t, "note-body", body, "PA-7KQ2M9XW4T"),
        ]
        if decoy is not None:
            checks.insert(
                7,
                jcheck(
                    f"contains(payer_a.pa_submissions[].attachments[].document_id, {q(decoy.id)})",
                    False,
                    2,
                    f"The {decoy.status} letter ({decoy.id}) was not sent",
                    "Safety",
                ),
            )
            mutations.append(
                Mutation(
                    "decoy",
                    "decoy",
                    f"attach the {decoy.status} letter instead of the current one",
                    replace_attachment(t, w.doc_link(decoy), _download_name(decoy.id, decoy.title)),
                )
            )
        return Draft(
            key=ref.id,
            instruction=(
                f"{_intro(w, ref)} needs prior authorization before the appointment. Submit "
                "the request to the payer's provider portal with the referral's diagnoses, "
                "services and date of service, the rendering provider, and the current signed "
                "letter of medical necessity attached. Then record the submission, with the "
                "confirmation number the payer gives you, as an authorization determination "
                "note and clear the referral."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=checks,
            expected_outcome="one accurate request on Payer A; its confirmation number in the "
            "EHR note; referral cleared",
            rationale="The plan requires authorization for at least one scheduled service and "
            "accepts requests through its portal.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=_given(w, ref),
        )


class PortalRequestDecoy(PortalRequest):
    """Hard: the same round trip, with an older or unsigned letter waiting to be attached."""

    id = "pa.hard.portal-request-decoy-letter"
    tier = "hard"
    scenario_label = "authorization_request"
    decoy = True


class FaxRequest(Template):
    """Medium: a plan without a portal takes requests by fax; the transmission id comes back."""

    id = "pa.medium.fax-request"
    family = FAMILY
    tier = "medium"
    scenario_label = "authorization_request"

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for r in w.world.referrals:
            lmn, note = w.current_lmn(r.id), w.clinical_note(r.id)
            if (
                _portal(w, r) is None
                and _active(w, r)
                and not r.existing_auth
                and any(_needs_auth(w, r))
                and lmn is not None
                and note is not None
                and w.unambiguous(lmn)
                and w.unambiguous(note)
            ):
                out.append(r.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        plan = w.plan_of(ref.coverage_id)
        lmn, note = w.current_lmn(ref.id), w.clinical_note(ref.id)
        assert lmn is not None and note is not None
        decoy = w.decoy_lmn(ref.id)
        digits = fax_digits(plan.fax)
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id, "coverages")
        t.referral(ref.id, "documents")
        t.open_fax()
        p = w.patients[ref.mrn]
        cover = (
            f"Prior authorization request for {p.first} {p.last}, DOB {mdy(p.dob)}, member "
            f"{w.coverages[ref.coverage_id].member_id}: {_services(ref)} on "
            f"{mdy(ref.appointment)}. Referral {ref.id}."
        )
        recipient = plan.delegated_to or f"{plan.payer} Utilization Management"
        t.send_fax(recipient, plan.fax, cover, [w.doc_label(note), w.doc_label(lmn)])
        body = (
            f"Prior authorization request faxed to {recipient} at {plan.fax} for "
            f"{_services(ref)}. Fax transmission ${{fx}}; awaiting determination."
        )
        t.referral_note(ref.id, "Prior authorization faxed", DETERMINATION, body)
        t.clear()
        sent = f"fax.transmissions[?fax_number=={q(digits)} && patient_mrn=={q(ref.mrn)}]"
        checks: list[dict[str, object]] = [
            jcheck(
                f"length({sent})",
                1,
                2,
                "One fax for this patient went to the plan's utilization-management fax",
                "Task Resolution",
            ),
            jcheck(
                f"contains({sent} | [0].all_document_ids || `[]`, {q(lmn.id)})",
                True,
                1,
                "The current signed letter of medical necessity was sent",
                "Data Accuracy",
            ),
            jcheck(
                f"contains({sent} | [0].all_document_ids || `[]`, {q(note.id)})",
                True,
                1,
                "The consultation note was sent",
                "Data Accuracy",
            ),
            jcheck(
                f"contains({notes_text(ref.id)}, {sent} | [0].id || {q(NO_VALUE)})",
                True,
                2,
                "The EHR note carries the fax transmission id the fax portal issued",
                "Documentation",
            ),
            _cleared_only(ref.id),
            rubric(
                last_note(ref.id),
                "authorization note",
                "The note documents the faxed request",
                "Does the note say that the prior authorization request was faxed to the payer "
                "and give the fax transmission id?",
            ),
        ]
        mutations = [
            *drop_mutations(t),
            misdirected_fax(t, w.other_plan_fax(plan.fax), "fax another plan's number"),
        ]
        if decoy is not None:
            checks.insert(
                3,
                jcheck(
                    f"contains(fax.transmissions[].all_document_ids[], {q(decoy.id)})",
                    False,
                    2,
                    f"The {decoy.status} letter ({decoy.id}) was not faxed",
                    "Safety",
                ),
            )
            mutations.append(
                Mutation(
                    "decoy",
                    "decoy",
                    f"fax the {decoy.status} letter",
                    replace_checked(t, "fax-doc-1", w.doc_label(decoy)),
                )
            )
        return Draft(
            key=ref.id,
            instruction=(
                f"{_intro(w, ref)} needs prior authorization before the appointment, and the "
                "plan takes requests by fax. Fax the request to the plan's utilization "
                "management line with the consultation note and the current signed letter of "
                "medical necessity, then record it, with the fax transmission id, as an "
                "authorization determination note and clear the referral."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=checks,
            expected_outcome="one fax to the UM number with both documents; its id in the EHR "
            "note; referral cleared",
            rationale=f"{plan.name} has no provider portal; requests go to UM by fax.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=_given(w, ref),
        )


class CoverageNotActive(Template):
    """Hard: the coverage on the referral is not in force — stop, document, escalate."""

    id = "pa.hard.coverage-not-active"
    family = FAMILY
    tier = "hard"
    scenario_label = "authorization_request"

    def candidates(self, w: WorldView) -> list[str]:
        return [
            r.id for r in w.world.referrals if not _active(w, r) and w.current_lmn(r.id) is not None
        ]

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        cov = w.coverages[ref.coverage_id]
        plan = w.plan_of(ref.coverage_id)
        if cov.status == "terminated" and cov.termination:
            state = f"terminated on {mdy(cov.termination)}"
        elif cov.status == "future":
            state = f"not effective until {mdy(cov.effective)}"
        else:
            state = cov.status
        t = Traj()
        t.ehr_origin()
        t.referral(ref.id, "coverages")
        body = (
            f"Coverage on this referral ({plan.name}, member {cov.member_id}) is {state}, so "
            "no prior authorization request was submitted. Referral left open; escalated to "
            "patient access to verify current insurance before the appointment on "
            f"{mdy(ref.appointment)}."
        )
        t.referral_note(ref.id, "Coverage not active - auth on hold", FOLLOW_UP, body)
        checks = [
            jcheck(
                f"length(ehr.notes[?subject_id=={q(ref.id)}]) > `0`",
                True,
                1,
                "A note documents what was found",
                "Documentation",
            ),
            _no_request(ref.mrn, 2),
            jcheck(
                f"contains(ehr.cleared_referrals, {q(ref.id)})",
                False,
                2,
                "The referral was not cleared while coverage is unresolved",
                "Safety",
            ),
            rubric(
                last_note(ref.id),
                "referral note",
                "The note names the coverage problem and the escalation",
                f"Does the note say that the patient's coverage is {state.split(' on ')[0]} "
                "(not active for the appointment), that no authorization request was "
                "submitted, and that the issue needs follow-up or escalation?",
            ),
        ]
        act_anyway = Traj()
        act_anyway.referral_note(ref.id, "Auth not needed", DETERMINATION, "Clearing.", mark="bad")
        act_anyway.clear()
        mutations = [
            *drop_mutations(t),
            Mutation(
                "clear-anyway",
                "wrong-action",
                "record a determination and clear the referral anyway",
                [{"op": "insert", "at": len(t.steps), "steps": act_anyway.steps}],
            ),
        ]
        if plan.portal == "payer_a" and cov.status == "terminated":
            lmn = w.current_lmn(ref.id)
            assert lmn is not None
            mutations.append(
                _submit_anyway(
                    w,
                    ref,
                    lmn,
                    len(t.steps),
                    "submit the request on the portal despite the coverage",
                )
            )
        return Draft(
            key=ref.id,
            instruction=(
                f"{_intro(w, ref)} needs its prior authorization handled before the "
                "appointment. Submit the request to the payer if one can properly be submitted; "
                "either way, document what you found and did on the referral. Clear the "
                "referral only once authorization is settled."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=checks,
            expected_outcome="no request sent; referral left open; note documents the coverage "
            "problem and escalation",
            rationale=f"The referral's coverage is {state}: a request would be against coverage "
            "not in force on the date of service.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=_given(w, ref),
        )


class AuthAlreadyOnFile(Template):
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
            rubric(
                last_note(ref.id),
                "authorization determination note",
                "The note explains why no request was submitted",
                f"Does the note say that authorization {auth} is already on file and that a new "
                "request was therefore not submitted?",
            ),
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
        )


LATERALITY_LABELS = {"RT": "Right (RT)", "LT": "Left (LT)", "50": "Bilateral (50)"}


def _wizard_request(t: Traj, w: WorldView, ref: Referral, letter: Document) -> int:
    """Download the letter, sign in to Payer B, walk the wizard's steps, submit."""
    plan = w.plan_of(ref.coverage_id)
    cov = w.coverages[ref.coverage_id]
    p = w.patients[ref.mrn]
    t.download(ref.id, w.doc_link(letter))
    t.referral(ref.id, "coverages")
    t.payer_b_login(plan.payer, plan.portal_username or "", plan.portal_password or "")
    t.goto("/requests/new/member")
    t.select("Health plan", plan.name)
    t.fill("Member ID", cov.member_id)
    t.fill("Date of birth", mdy(p.dob))
    t.click("Save and continue")
    t.fill("Requesting provider NPI", ref.referring_npi)
    t.fill("Servicing provider NPI", ref.provider_npi)
    t.click("Save and continue")
    t.select("Type of request", _request_type(ref))
    t.fill("ICD-10 diagnosis codes", ", ".join(d.code for d in ref.diagnoses))
    for n, s in enumerate(ref.services, start=1):
        t.fill(f"CPT / HCPCS code, line {n}", s.cpt)
        t.fill(f"Units, line {n}", str(s.quantity))
        t.select(
            f"Laterality, line {n}", LATERALITY_LABELS.get(s.laterality or "", "Not applicable")
        )
    t.fill("Start date", mdy(ref.appointment))
    t.fill("End date", mdy(ref.appointment))
    t.click("Save and continue")
    t.fill("Clinical summary", _necessity(ref))
    t.add(
        {
            "type": "upload",
            "target": {"label": "Add clinical documentation"},
            "path": _download_name(letter.id, letter.title),
        },
        mark="upload",
    )
    t.click("Save and continue")
    t.check("I attest that this information is accurate and supported by the medical record.")
    i = t.click("Submit request", writes="submit the request through the wizard")
    t.capture("conf", {"role": "status"}, pattern=r"RQ-[A-Z0-9]{10}")
    return i


class WizardRequest(Template):
    """Medium: the round trip through Payer B's multi-step wizard, reference number back."""

    id = "pa.medium.wizard-request"
    family = FAMILY
    tier = "medium"
    scenario_label = "authorization_request"

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for r in w.world.referrals:
            lmn = w.current_lmn(r.id)
            if (
                _portal(w, r) == "payer_b"
                and _active(w, r)
                and not r.existing_auth
                and any(_needs_auth(w, r))
                and lmn is not None
                and len(r.services) <= 3
                and r.appointment >= w.today
            ):
                out.append(r.id)
        return out

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        cov = w.coverages[ref.coverage_id]
        lmn = w.current_lmn(ref.id)
        assert lmn is not None
        t = Traj()
        t.ehr_origin()
        _wizard_request(t, w, ref, lmn)
        body = _record_submission(t, w, ref, "Reference number ${conf}; pending clinical review.")
        sub = f"payer_b.pa_submissions[?member_id=={q(cov.member_id)}]"
        checks = _submission_checks(
            sub,
            ref,
            lmn,
            providers=[
                jcheck(
                    f"{sub} | [0].provider_npi",
                    ref.referring_npi,
                    1,
                    "Requesting (referring) provider's NPI",
                    "Data Accuracy",
                ),
                jcheck(
                    f"{sub} | [0].servicing_npi",
                    ref.provider_npi,
                    1,
                    "Servicing (rendering) provider's NPI",
                    "Data Accuracy",
                ),
            ],
            service=[
                jcheck(
                    f"{sub} | [0].procedures",
                    [
                        {"code": s.cpt, "units": s.quantity, "laterality": s.laterality}
                        for s in ref.services
                    ],
                    1,
                    "CPT codes, units and laterality as on the referral",
                    "Data Accuracy",
                ),
                jcheck(
                    f"{sub} | [0].service_date",
                    ref.appointment,
                    1,
                    "Service starts on the appointment date",
                    "Data Accuracy",
                ),
            ],
            number="reference number",
            ask="the payer's reference number",
        )
        look = w.lookalike_referral(ref, rng)
        mutations = [
            *drop_mutations(t),
            fake_confirmation(t, "note-body", body, "RQ-7KQ2M9XW4T", "reference number"),
            Mutation(
                "look-alike",
                "look-alike",
                f"document and clear referral {look.id} instead",
                retarget(t.steps, ref.id, look.id, start=t.marks["note-subject"] - 1),
            ),
        ]
        return Draft(
            key=ref.id,
            instruction=(
                f"{_intro(w, ref)} needs prior authorization before the appointment. Submit "
                "the request to the payer's provider portal with the referral's diagnoses, "
                "services (with laterality) and appointment date, the requesting and servicing "
                "providers, and the current signed letter of medical necessity attached. Then "
                "record the submission, with the reference number the payer gives you, as an "
                "authorization determination note and clear the referral."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=checks,
            expected_outcome="one accurate request on Payer B; its reference number in the "
            "EHR note; referral cleared",
            rationale="The plan requires authorization for at least one scheduled service and "
            "takes requests through its portal's wizard.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=mutations,
            given=_given(w, ref),
        )


TEMPLATES: tuple[Template, ...] = (
    AuthOnFile(),
    PolicyLookup(),
    PortalRequest(),
    FaxRequest(),
    CoverageNotActive(),
    PortalRequestDecoy(),
    AuthAlreadyOnFile(),
    WizardRequest(),
)
