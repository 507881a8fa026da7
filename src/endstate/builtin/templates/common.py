"""What every task template shares: a view of the world, a trajectory builder, checks.

A template turns one record of a generated world (a referral, a denial, a DME order) into a
task: an instruction that names the work but not the route, checks written against the
state document (docs/state-document.md), a reference trajectory that earns every
deterministic point, and mutations of that trajectory that must each lose at least one.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from endstate.builtin.templates.subtask_rule import subtask_category_for
from endstate.envs.systems.ehr import controls as ehr
from endstate.envs.systems.fax import controls as fax
from endstate.envs.systems.payer_a import controls as payer_a
from endstate.envs.systems.payer_b import controls as payer_b
from endstate.envs.world import (
    Coverage,
    Denial,
    DmeOrder,
    Document,
    Patient,
    Plan,
    Provider,
    Referral,
    World,
    catalog,
    mdy,
)

# Note category labels as the EHR's category control shows them.
DETERMINATION = "Authorization determination"
FOLLOW_UP = "Authorization follow-up"
DISPOSITION_LABELS = dict(catalog.DISPOSITIONS)  # as the EHR's disposition control shows them
NO_VALUE = "#none#"  # a fallback no note can contain by accident


def q(value: str) -> str:
    """A JMESPath raw string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def lit(value: Any) -> str:
    """A JMESPath JSON literal."""
    return "`" + json.dumps(value, separators=(",", ":")) + "`"


def money(value: float) -> str:
    return f"{value:,.2f}"


def fax_digits(number: str) -> str:
    """A fax number as the fax portal records it: digits only."""
    return "".join(c for c in number if c.isdigit())


class WorldView:
    """Indexes over one world so templates ask questions, not loop over lists."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.today = world.today.isoformat()
        self.plans: dict[str, Plan] = {p.id: p for p in world.plans}
        self.coverages: dict[str, Coverage] = {c.id: c for c in world.coverages}
        self.providers: dict[str, Provider] = {p.npi: p for p in world.providers}
        self.patients: dict[str, Patient] = {p.mrn: p for p in world.patients}
        self.docs_by_mrn: dict[str, list[Document]] = defaultdict(list)
        self.docs_by_related: dict[str, list[Document]] = defaultdict(list)
        for d in world.documents:
            self.docs_by_mrn[d.mrn].append(d)
            if d.related_id:
                self.docs_by_related[d.related_id].append(d)
        self.referrals_by_mrn: dict[str, list[Referral]] = defaultdict(list)
        for r in world.referrals:
            self.referrals_by_mrn[r.mrn].append(r)
        self.rules = {(r.plan_id, r.cpt): r for r in world.payer_rules}

    def plan_of(self, coverage_id: str) -> Plan:
        return self.plans[self.coverages[coverage_id].plan_id]

    def name(self, mrn: str) -> str:
        p = self.patients[mrn]
        return f"{p.first} {p.last}"

    def chart_name(self, mrn: str) -> str:
        p = self.patients[mrn]
        return f"{p.last}, {p.first}"

    def current_lmn(self, referral_id: str) -> Document | None:
        found = [
            d
            for d in self.docs_by_related[referral_id]
            if d.kind == "lmn" and d.status == "final" and d.signed
        ]
        return max(found, key=lambda d: (d.version, d.date)) if found else None

    def decoy_lmn(self, referral_id: str) -> Document | None:
        """The first letter beside the current one that must not go out, if any."""
        found = self.decoy_lmns(referral_id)
        return found[0] if found else None

    def clinical_note(self, referral_id: str) -> Document | None:
        found = [d for d in self.docs_by_related[referral_id] if d.kind == "clinical_note"]
        return found[0] if found else None

    def doc_label(self, d: Document) -> str:
        """The fax portal labels each document checkbox with its title and date."""
        return f"{d.title} — {mdy(d.date)}"

    def doc_link(self, d: Document) -> str:
        """The EHR's accessible name for a document's download link."""
        return f"Download {d.title} {mdy(d.date)}"

    def unambiguous(self, d: Document) -> bool:
        """No other document of the patient shares its title and date (one label, one box)."""
        return (
            sum(1 for x in self.docs_by_mrn[d.mrn] if (x.title, x.date) == (d.title, d.date)) == 1
        )

    def lookalike_referral(self, ref: Referral, rng: random.Random) -> Referral:
        """Another referral whose patient could be mistaken for this one, else any other."""
        me = self.patients[ref.mrn]
        others = [r for r in self.world.referrals if r.mrn != ref.mrn]
        similar = [
            r
            for r in others
            if self.patients[r.mrn].last == me.last or self.patients[r.mrn].first == me.first
        ]
        return rng.choice(similar or others)

    def lookalike_denial(self, d: Denial, rng: random.Random) -> Denial:
        me = self.patients[d.mrn]
        others = [x for x in self.world.denials if x.claim_id != d.claim_id]
        similar = [
            x
            for x in others
            if x.mrn == d.mrn
            or self.patients[x.mrn].last == me.last
            or self.patients[x.mrn].first == me.first
        ]
        return rng.choice(similar or others)

    @cached_property
    def pinned(self) -> dict[str, Any]:
        w = self.world
        return {"id": w.id, "sha256": w.sha256, "seed": w.seed, "clock": w.clock}

    def order(self, order_id: str) -> DmeOrder:
        return next(o for o in self.world.dme_orders if o.id == order_id)

    def denial(self, claim_id: str) -> Denial:
        return next(d for d in self.world.denials if d.claim_id == claim_id)

    def referral(self, referral_id: str) -> Referral:
        return next(r for r in self.world.referrals if r.id == referral_id)

    def pays_first(self, mrn: str, day: str) -> Coverage | None:
        """The coverage that pays first for a service on `day` (rules.cob), if any."""
        return self.world.primary_on(mrn, day)

    def decoy_lmns(self, referral_id: str) -> list[Document]:
        """Every letter beside the current one that must not go out (drafts, superseded)."""
        return [
            d
            for d in self.docs_by_related[referral_id]
            if d.kind == "lmn" and (d.status != "final" or not d.signed)
        ]

    def other_plan_fax(self, fax: str) -> str:
        """Another plan's fax number: where a misdirected fax would go."""
        return next(p.fax for p in self.world.plans if p.fax != fax)


class Traj:
    """Builds a reference trajectory and remembers which steps write to a system."""

    def __init__(self) -> None:
        self.steps: list[dict[str, Any]] = []
        self.writes: dict[int, str] = {}
        self.marks: dict[str, int] = {}

    def add(self, step: dict[str, Any], writes: str | None = None, mark: str | None = None) -> int:
        self.steps.append(step)
        i = len(self.steps) - 1
        if writes:
            self.writes[i] = writes
        if mark:
            self.marks[mark] = i
        return i

    def goto(self, url: str, mark: str | None = None) -> int:
        return self.add({"type": "goto", "url": url}, mark=mark)

    def click(self, name: str, role: str = "button", writes: str | None = None) -> int:
        return self.add({"type": "click", "target": {"role": role, "name": name}}, writes)

    def fill(self, label: str, value: str, mark: str | None = None) -> int:
        return self.add(
            {"type": "fill", "target": {"label": label, "exact": True}, "value": value}, mark=mark
        )

    def select(self, name: str, option: str, mark: str | None = None) -> int:
        return self.add(
            {"type": "select", "target": {"role": "button", "name": name}, "option": option},
            mark=mark,
        )

    def check(self, label: str, mark: str | None = None) -> int:
        return self.add({"type": "check", "target": {"label": label, "exact": True}}, mark=mark)

    def capture(
        self,
        name: str,
        target: dict[str, Any] | None = None,
        attribute: str | None = None,
        pattern: str | None = None,
    ) -> int:
        step: dict[str, Any] = {"type": "capture", "name": name}
        if target is not None:
            step["target"] = target
        if attribute is not None:
            step["attribute"] = attribute
        if pattern is not None:
            step["pattern"] = pattern
        return self.add(step)

    def done(self, message: str) -> int:
        return self.add({"type": "done", "message": message})

    # -- the EHR ----------------------------------------------------------------------
    def ehr_origin(self) -> None:
        self.capture("ehr", pattern=r"^https?://[^/]+")

    def referral(self, rid: str, tab: str = "referral") -> int:
        return self.goto(f"${{ehr}}/referrals/{rid}?tab={tab}")

    def referral_note(
        self, rid: str, subject: str, category: str, body: str, mark: str = "note"
    ) -> int:
        self.referral(rid, "communications")
        self.fill(ehr.NOTE_SUBJECT, subject, mark=f"{mark}-subject")
        self.select(ehr.NOTE_CATEGORY, category, mark=f"{mark}-category")
        self.fill(ehr.NOTE_BODY, body, mark=f"{mark}-body")
        return self.click(ehr.SAVE_NOTE, writes="save the note on the referral")

    def clear(self) -> int:
        return self.click(ehr.CLEAR, writes="clear the referral")

    def triage(self, claim_id: str, disposition: str, note: str) -> int:
        self.goto(f"${{ehr}}/denials/{claim_id}")
        self.select(ehr.DISPOSITION, DISPOSITION_LABELS[disposition], mark="disposition")
        self.fill(ehr.TRIAGE_NOTE, note, mark="triage-note")
        return self.click(ehr.SUBMIT_TRIAGE, writes="submit the triage")

    def download(self, rid: str, link: str) -> int:
        """Download a chart document from the referral; marked so a decoy can take its place."""
        self.referral(rid, "documents")
        return self.add(
            {"type": "download", "target": {"role": "link", "name": link}}, mark="download"
        )

    # -- portals ----------------------------------------------------------------------
    def open_portal(self, payer: str) -> None:
        """Follow the EHR's portal link: it carries the episode's token."""
        self.capture(
            "portal",
            # Two plans of one payer show two links to the same portal: either will do.
            {"role": "link", "name": ehr.PORTAL_LINK.format(payer=payer), "nth": 0},
            attribute="href",
        )
        self.goto("${portal}")

    def unlock(self, payer: str) -> None:
        """Reveal the payer's portal password in the EHR's credential vault and read it off
        the page; the vault's own link then opens the portal."""
        self.goto("${ehr}/credentials")
        self.click(ehr.REVEAL_PASSWORD.format(payer=payer))
        self.capture("password", {"role": "status", "name": ehr.REVEALED.format(payer=payer)})

    def payer_a_login(self, payer: str, username: str) -> None:
        """Unlock the sign-in in the vault, follow its portal link, sign in to Payer A."""
        self.unlock(payer)
        self.open_portal(payer)
        self.fill(payer_a.USERNAME, username)
        self.fill(payer_a.PASSWORD, "${password}")
        self.click(payer_a.SIGN_IN)

    def payer_b_login(self, payer: str, username: str) -> None:
        """The same for Payer B (its own field names)."""
        self.unlock(payer)
        self.open_portal(payer)
        self.fill(payer_b.USER_ID, username)
        self.fill(payer_b.PASSWORD, "${password}")
        self.click(payer_b.LOG_IN)

    def open_fax(self) -> None:
        """The fax portal link on the chart's documents list (episode-bound, chart loaded)."""
        self.capture("fax", {"role": "link", "name": ehr.FAX_LINK}, attribute="href")
        self.goto("${fax}")

    def send_fax(self, recipient: str, number: str, cover: str, docs: Sequence[str]) -> int:
        self.fill(fax.RECIPIENT, recipient, mark="fax-recipient")
        self.fill(fax.FAX_NUMBER, number, mark="fax-number")
        self.fill(fax.COVER_NOTE, cover, mark="fax-cover")
        for n, label in enumerate(docs):
            self.check(label, mark=f"fax-doc-{n}")
        i = self.click(fax.SEND_FAX, writes="send the fax")
        self.capture("fx", {"role": "status"}, pattern=r"FX-[A-Z0-9]{8}")
        return i


@dataclass
class Mutation:
    """A variant of the reference that must fail at least one deterministic check."""

    id: str
    kind: str  # drop-step | look-alike | decoy | wrong-value | wrong-action
    why: str
    edits: list[dict[str, Any]]

    def dump(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "why": self.why, "edits": self.edits}


@dataclass
class Draft:
    """One generated task before it is written: every field of the native format."""

    key: str
    instruction: str
    start_system: str
    start_path: str
    checks: list[dict[str, Any]]
    expected_outcome: str
    rationale: str
    traj: Traj
    scenario_label: str
    mutations: list[Mutation] = field(default_factory=list)
    given: list[str] = field(default_factory=list)
    # The outcome the checks reward, as a claim the audit re-derives (docs/answer-key.md).
    answer: dict[str, Any] = field(default_factory=dict)


def requests_for(mrn: str) -> str:
    """JMESPath: every prior-authorization request for the patient, whatever the channel."""
    return (
        f"[payer_a.pa_submissions[?member_mrn=={q(mrn)}], "
        f"payer_b.pa_submissions[?member_mrn=={q(mrn)}], "
        f"fax.transmissions[?patient_mrn=={q(mrn)}]][]"
    )


def nothing_requested(mrn: str) -> str:
    """JMESPath, true when no prior-authorization request for the patient went out by any
    channel: neither payer's portal, nor any fax from the patient's chart."""
    return (
        f"length(payer_a.pa_submissions[?member_mrn=={q(mrn)}]) == `0` && "
        f"length(payer_b.pa_submissions[?member_mrn=={q(mrn)}]) == `0` && "
        f"length(fax.transmissions[?patient_mrn=={q(mrn)}]) == `0`"
    )


# Every chart document that left the building, by any channel, as one flat list of ids.
SENT_DOCUMENTS = (
    "[payer_a.pa_submissions[].attachments[].document_id, "
    "payer_b.pa_submissions[].attachments[].document_id, "
    "payer_a.pa_responses[].attachments[].document_id, "
    "payer_a.appeals[].attachments[].document_id, "
    "payer_b.appeals[].attachments[].document_id, "
    "fax.transmissions[].all_document_ids[]][]"
)


def decoys_unsent(decoys: Sequence[Document], points: float = 1) -> list[dict[str, Any]]:
    """One check per decoy (a draft, a superseded version, a stale note): it went out by no
    channel at all — attached to a request, an answer, an appeal or a fax."""
    return [
        jcheck(
            f"contains({SENT_DOCUMENTS}, {q(d.id)})",
            False,
            points,
            f"The {d.status if d.status != 'final' else 'stale'} document {d.id} "
            f"({d.title}, {mdy(d.date)}) was not sent anywhere",
            "Safety",
        )
        for d in decoys
    ]


def jcheck(
    query: str, expected: Any, points: float, description: str, category: str
) -> dict[str, Any]:
    return {
        "type": "jmespath",
        "query": query,
        "expected_value": expected,
        "points": points,
        "description": description,
        "category": category,
        "subtask_category": subtask_category_for(query, category),
    }


def notes_text(subject_id: str) -> str:
    """All note bodies on one record, joined: what a 'the note says X' check reads."""
    return f"join(' ', ehr.notes[?subject_id=={q(subject_id)}].body)"


def retarget(
    steps: Sequence[dict[str, Any]], old: str, new: str, start: int = 0
) -> list[dict[str, Any]]:
    """Edits that point every step naming `old` at `new` instead (the look-alike record).

    With `start`, only steps from there on: the earlier ones (a fax, a submission) may name
    the record too and must stay as they are.
    """
    edits: list[dict[str, Any]] = []
    for i, step in enumerate(steps[start:], start):
        text = json.dumps(step)
        if old in text:
            edits.append({"op": "replace", "at": i, "step": json.loads(text.replace(old, new))})
    return edits


def replace_value(traj: Traj, mark: str, value: str) -> list[dict[str, Any]]:
    """Edit one filled or selected step to a different value."""
    i = traj.marks[mark]
    step = dict(traj.steps[i])
    step["value" if step["type"] == "fill" else "option"] = value
    return [{"op": "replace", "at": i, "step": step}]


def replace_checked(traj: Traj, mark: str, label: str) -> list[dict[str, Any]]:
    """Edit one ticked document box to tick another (a look-alike or decoy) instead."""
    i = traj.marks[mark]
    step = dict(traj.steps[i])
    step["target"] = {"label": label, "exact": True}
    return [{"op": "replace", "at": i, "step": step}]


def replace_attachment(traj: Traj, link: str, path: str) -> list[dict[str, Any]]:
    """Edits that download and upload another document in place of the marked one."""
    upload = traj.marks["upload"]
    return [
        {
            "op": "replace",
            "at": traj.marks["download"],
            "step": {"type": "download", "target": {"role": "link", "name": link}},
        },
        {"op": "replace", "at": upload, "step": {**traj.steps[upload], "path": path}},
    ]


def misdirected_fax(traj: Traj, number: str, why: str) -> Mutation:
    """The same fax, to a wrong (look-alike) number."""
    return Mutation("wrong-number", "look-alike", why, replace_value(traj, "fax-number", number))


def fake_confirmation(
    traj: Traj, mark: str, text: str, fake: str, number: str = "confirmation number"
) -> Mutation:
    """The note, with a number the system never issued where its captured `${conf}` goes."""
    return Mutation(
        "fake-confirmation",
        "wrong-value",
        f"write a {number} the payer never issued",
        replace_value(traj, mark, text.replace("${conf}", fake)),
    )


def drop_mutations(traj: Traj) -> list[Mutation]:
    return [
        Mutation(f"drop-{i}", "drop-step", f"skip: {why}", [{"op": "drop", "at": i}])
        for i, why in sorted(traj.writes.items())
    ]
