"""Requests already on the payer portals: the auths on file, and requests the payer pended.

Real portals are not empty: a referral with an authorization on file has an approved request
behind it, and some requests sit pended because the reviewer asked for a document. A request
for information names one chart document by title and date; the chart holds it signed, with
an unsigned draft of the same title beside it, so answering with "the newest one" is wrong.
"""

from __future__ import annotations

from datetime import date, timedelta

from endstate.envs.world.gen_base import GenBase
from endstate.envs.world.model import Document, PriorRequest, Referral, mdy

PENDED_PER_WORLD = 4
RFI_DAYS = 14  # a request for information is answered within two weeks or closes
_DRAFT_MARK = "DRAFT - NOT SIGNED. Pending"


class PriorRequestsGen(GenBase):
    """The portals' request history; run last, so earlier sections are unchanged by it."""

    def prior_requests(self) -> None:
        w = self.world
        portal_of = {p.id: p.portal for p in w.plans}
        coverages = {c.id: c for c in w.coverages}
        on_a = [r for r in w.referrals if portal_of[coverages[r.coverage_id].plan_id] == "payer_a"]
        for ref in on_a:
            if ref.existing_auth:
                self._approved(ref)
        # A referral registered with a secondary coverage has no request behind it yet.
        pendable = [
            r
            for r in on_a
            if coverages[r.coverage_id].in_force(r.appointment)
            and (first := w.primary_on(r.mrn, r.appointment)) is not None
            and first.id == r.coverage_id
        ]
        for ref in [r for r in pendable if self._can_pend(r)][:PENDED_PER_WORLD]:
            self._pended(ref)

    def _can_pend(self, ref: Referral) -> bool:
        """An active payer A referral that needs authorization, has none, and has a note."""
        plan_id = next(c.plan_id for c in self.world.coverages if c.id == ref.coverage_id)
        rules = {r.cpt: r for r in self.world.payer_rules if r.plan_id == plan_id}
        needs = self.wants_auth(plan_id, ref.services)
        by_site = any(s.cpt in rules and rules[s.cpt].sites for s in ref.services)
        docs = self._docs(ref)
        has_note = any(d.kind == "clinical_note" for d in docs)
        decoy_letter = any(d.kind == "lmn" and (d.status != "final" or not d.signed) for d in docs)
        # Referrals a site-of-service program decides, or with a decoy letter beside the
        # current one, are left to the tasks built on those.
        return needs and has_note and not (by_site or decoy_letter or ref.existing_auth)

    def _docs(self, ref: Referral) -> list[Document]:
        return [d for d in self.world.documents if d.related_id == ref.id]

    def _number(self) -> str:
        alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
        return "PA-" + "".join(self.rng.choice(alphabet) for _ in range(10))

    def _approved(self, ref: Referral) -> None:
        submitted = self.between(ref.created, -1)
        self.world.prior_requests.append(
            PriorRequest(
                number=self._number(),
                portal="payer_a",
                referral_id=ref.id,
                coverage_id=ref.coverage_id,
                submitted=submitted,
                status="approved",
                determination="Approved as requested.",
                auth_number=ref.existing_auth,
            )
        )

    def _pended(self, ref: Referral) -> None:
        """A request pended for the consultation note (or the imaging report where the chart
        has one), with a newer unsigned draft of that document filed beside the signed one."""
        docs = self._docs(ref)
        wanted = next((d for d in docs if d.kind == "imaging"), None)
        wanted = wanted or next(d for d in docs if d.kind == "clinical_note")
        patient = self.world.patient(ref.mrn)
        draft_day = self.day(-1, -1)
        self.doc(
            patient,
            wanted.kind,
            wanted.title,
            draft_day,
            wanted.author,
            ref.id,
            _draft_of(wanted.text),
            status="draft",
            signed=False,
        )
        submitted = self.between(max(ref.created, wanted.date), -1)
        due = (date.fromisoformat(submitted) + timedelta(days=RFI_DAYS)).isoformat()
        due = max(due, (self.today + timedelta(days=3)).isoformat())
        self.world.prior_requests.append(
            PriorRequest(
                number=self._number(),
                portal="payer_a",
                referral_id=ref.id,
                coverage_id=ref.coverage_id,
                submitted=submitted,
                status="info_requested",
                determination=(
                    f"Additional information requested: submit the signed {wanted.title.lower()} "
                    f"dated {mdy(wanted.date)} to support medical necessity."
                ),
                requested_document=wanted.id,
                due=due,
            )
        )


def _draft_of(text: str) -> str:
    """The same document as an unsigned draft: marked, and without its signature line."""
    lines = [ln for ln in text.splitlines() if "signed" not in ln.lower()]
    return f"{_DRAFT_MARK} signature.\n" + "\n".join(lines).rstrip()
