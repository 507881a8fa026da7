"""Hard: the payer pended a request and asked for one document; answer with exactly that one.

The request sits on Payer A's portal, found by the member, not named in the task. Its
reviewer names the document by title and date; the chart holds it signed, with a newer
unsigned draft of the same title beside it. Nothing is decided yet, so the referral stays
on the worklist.
"""

from __future__ import annotations

import random

from endstate.builtin.templates.base import TaskTemplate
from endstate.builtin.templates.common import (
    DETERMINATION,
    Draft,
    Mutation,
    Traj,
    WorldView,
    decoys_unsent,
    drop_mutations,
    jcheck,
    notes_text,
    q,
    replace_attachment,
)
from endstate.builtin.templates.prior_auth.facts import (
    FAMILY,
    answer,
    download_file_name,
    no_request_check,
    referral_given_values,
    referral_intro,
    submit_anyway_mutation,
)
from endstate.envs.world import Document, PriorRequest, Referral, mdy

STATUS_LINK = "Check authorization status"
DOCUMENTS = "Documents"
MESSAGE = "Message to the reviewer (optional)"
SEND = "Send response"


def pended(w: WorldView, referral_id: str) -> PriorRequest | None:
    """The request on file for a referral that waits for information, if any."""
    return next(
        (
            r
            for r in w.world.prior_requests
            if r.referral_id == referral_id and r.status == "info_requested"
        ),
        None,
    )


def _draft_beside(w: WorldView, doc: Document) -> Document | None:
    return next(
        (
            d
            for d in w.docs_by_related[doc.related_id or ""]
            if d.kind == doc.kind and d.title == doc.title and not d.signed
        ),
        None,
    )


class InformationRequest(TaskTemplate):
    """Hard: answer the payer's request for information with the signed document it names."""

    id = "pa.hard.information-request"
    family = FAMILY
    tier = "hard"
    scenario_label = "authorization_request"

    def candidates(self, w: WorldView) -> list[str]:
        out = []
        for r in w.world.referrals:
            req = pended(w, r.id)
            doc = self._requested(w, req) if req else None
            if req and doc and _draft_beside(w, doc) and w.current_lmn(r.id):
                out.append(r.id)
        return out

    def _requested(self, w: WorldView, req: PriorRequest) -> Document | None:
        return next(
            (d for d in w.docs_by_related[req.referral_id] if d.id == req.requested_document), None
        )

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        ref = w.referral(key)
        req = pended(w, ref.id)
        assert req is not None
        doc = self._requested(w, req)
        assert doc is not None
        draft = _draft_beside(w, doc)
        assert draft is not None
        plan = w.plan_of(ref.coverage_id)
        t = Traj()
        t.ehr_origin()
        t.download(ref.id, w.doc_link(doc))
        t.payer_a_login(plan.payer, plan.portal_username or "")
        t.click(STATUS_LINK, role="link")
        t.click(req.number, role="link")
        t.add(
            {
                "type": "upload",
                "target": {"label": DOCUMENTS},
                "path": download_file_name(doc),
            },
            mark="upload",
        )
        t.fill(MESSAGE, f"The signed {doc.title.lower()} dated {mdy(doc.date)} is attached.")
        t.click(SEND, writes="answer the payer's request for information")
        body = (
            f"{plan.payer} pended request {req.number} for more information. Sent the signed "
            f"{doc.title.lower()} dated {mdy(doc.date)} through the portal; the request is back "
            "in clinical review. Referral left open until the payer decides."
        )
        t.referral_note(ref.id, "Information sent to payer", DETERMINATION, body)
        return Draft(
            key=ref.id,
            instruction=(
                f"{referral_intro(w, ref)}: the payer pended the prior-authorization request for "
                "this "
                "referral and asked for more information. Answer the payer's request on its "
                "provider portal with exactly the document it asks for, add a note on the "
                "referral giving the payer's request number and what was sent, and do not "
                "clear the referral until the payer decides."
            ),
            start_system="ehr",
            start_path="/worklist",
            checks=self._checks(ref, req, doc, draft),
            expected_outcome=f"one response on {req.number} carrying {doc.id}; the draft not "
            "sent; no new request; note with the request number; referral still open",
            rationale="A pended request is answered, not resubmitted; the reviewer asked for "
            "one signed document, and a newer unsigned draft of it is not that document.",
            traj=t,
            scenario_label=self.scenario_label,
            mutations=self._mutations(w, ref, t, draft),
            given=referral_given_values(w, ref),
            answer=answer(
                w,
                ref,
                "answer-pended",
                cov=w.coverages[ref.coverage_id],
                attach=[doc],
                never=[draft],
            ),
        )

    def _checks(
        self, ref: Referral, req: PriorRequest, doc: Document, draft: Document
    ) -> list[dict[str, object]]:
        answers = f"payer_a.pa_responses[?request_number=={q(req.number)}]"
        return [
            jcheck(
                f"length({answers})",
                1,
                2,
                f"Exactly one response reached request {req.number}",
                "Task Resolution",
            ),
            jcheck(
                f"contains({answers} | [0].attachments[].document_id || `[]`, {q(doc.id)})",
                True,
                2,
                f"The response carries the signed document the reviewer named ({doc.id})",
                "Data Accuracy",
            ),
            *decoys_unsent([draft], 2),
            no_request_check(ref.mrn),
            jcheck(
                f"contains({notes_text(ref.id)}, {q(req.number)})",
                True,
                1,
                "The referral's note gives the payer's request number",
                "Documentation",
            ),
            jcheck(
                f"contains(ehr.cleared_referrals, {q(ref.id)})",
                False,
                1,
                "The referral stays on the worklist while the request is pending",
                "Task Resolution",
            ),
            jcheck(
                f"contains({notes_text(ref.id)}, {q(mdy(doc.date))})",
                True,
                1,
                "The note names the document sent by its date",
                "Documentation",
            ),
        ]

    def _mutations(self, w: WorldView, ref: Referral, t: Traj, draft: Document) -> list[Mutation]:
        """Send the draft; submit a new request instead; clear the referral anyway."""
        lmn = w.current_lmn(ref.id)
        assert lmn is not None
        clear = Traj()
        clear.clear()
        return [
            *drop_mutations(t),
            Mutation(
                "decoy",
                "decoy",
                "send the newer unsigned draft instead of the signed document",
                replace_attachment(t, w.doc_link(draft), download_file_name(draft)),
            ),
            submit_anyway_mutation(w, ref, lmn, 2, "submit a new request instead of answering"),
            Mutation(
                "clear-anyway",
                "wrong-action",
                "clear the referral though the payer has not decided",
                [{"op": "insert", "at": len(t.steps), "steps": clear.steps}],
            ),
        ]
