"""A denied claim's disposition and governing deadline, from its remittance and coverages.

The headline reason is the first line's adjustment that is not CO-45 (the fee-schedule
reduction every paid line carries). Then:

- a reason the remittance alone decides: `rules.denials.disposition` with today's date (its
  own clock lapsed → write-off), on the deadline `rules.denials.governing_deadline` names;
- CO-22 (another payer may be primary): the claim's coverage is not the one that pays first
  on the date of service (rules.cob) → `bill-secondary`, with no deadline: the map's appeal
  clock governs the reconsideration, never a claim to another payer (as PR-27's
  `bill-secondary` has none); else `reconsideration` on the appeal deadline, a write-off once
  it has passed;
- PR-27 (coverage ended): another coverage in force on the date of service →
  `bill-secondary`, else `bill-patient`; no clock of this claim governs either;
- CO-197 (no authorization): what decides it (an authorization on file for the date of
  service) is not in the claim's records, so it is not derivable.

A `bill-patient` on a plan whose kind forbids billing the member (rules.cost_sharing) is a
breach, and the disposition is then not derivable. A member share (PR-1) of a patient who also
has Medi-Cal on the date of service is `bill-secondary`: Medi-Cal pays last, and its member is
never billed. An appeal or a reconsideration goes
through the plan's appeal channel: its portal, or its appeals fax.
"""

from __future__ import annotations

from endstate.builtin.audit import chart
from endstate.builtin.audit.outcome import Fact, Outcome, digits, rule, undecided
from endstate.envs.world import Denial, DenialLine, Document, World
from endstate.rules import cob, cost_sharing, coverage, denials, windows

SENT_TO_PAYER = ("appeal", "reconsideration")
COB = rule("cob", *cob.SOURCES)
COST_SHARING = rule("cost_sharing", *cost_sharing.SOURCES)


def headline(denial: Denial) -> DenialLine | None:
    """The line whose reason the claim is triaged on: the first that is not CO-45."""
    return next((line for line in denial.lines if line.carc != "45"), None)


Decided = tuple[str, str | None, str]  # disposition, deadline, the rule that decides


def derive_claim(world: World, denial: Denial) -> Outcome:
    out = Outcome("appeals_denials", denial.claim_id, denial.mrn)
    docs = chart.filed_under(world, denial.claim_id)
    out.facts["never_attach"] = Fact(chart.decoys(docs, denial.mrn), "world: documents.status")
    plan = world.plan(denial.plan_id)
    line = headline(denial)
    if line is None:
        out.facts["disposition"] = undecided(rule("denials"), "no line carries a denial reason")
        return out
    code = f"{line.group}-{line.carc}"
    try:
        action = denials.action_for(line.group, line.carc)
    except denials.UnknownReason as exc:
        out.facts["disposition"] = undecided(rule("denials"), str(exc))
        return out
    if denials.decided_by_reason(line.group, line.carc):
        found: Decided | Fact = _by_reason(world, denial, line, action)
    elif code == "CO-22":
        found = _other_payer(world, denial)
    elif code == "PR-27":
        found = _coverage_ended(world, denial)
    else:
        found = undecided(_playbook(code), action.depends_on)
    if isinstance(found, Fact):
        out.facts["disposition"] = found
        return out
    disposition, deadline, decides = found
    if (
        disposition == "bill-patient"
        and code != "PR-27"
        and not cost_sharing.may_bill_member(plan.kind)
    ):
        why = f"{code} calls for bill-patient, but a {plan.kind} member may not be billed"
        out.breaches.append(Fact(disposition, COST_SHARING, why=why))
        out.facts["disposition"] = undecided(COST_SHARING, why)
        return out
    if disposition == "bill-patient" and code != "PR-27":
        shielded = _medi_cal_beside(world, denial)
        if isinstance(shielded, Fact):
            out.facts["disposition"] = shielded
            return out
        if shielded:
            disposition, decides = "bill-secondary", f"{decides}; {COST_SHARING}"
    out.facts["disposition"] = Fact(disposition, decides)
    out.facts["deadline"] = Fact(deadline, decides, why=_clock(denial, disposition, deadline))
    if disposition in SENT_TO_PAYER:
        _channel(out, world, denial, docs)
    else:
        out.facts["attach"] = Fact([], decides)
    return out


def _playbook(code: str) -> str:
    return rule("denials", code, *denials.SOURCES)


def _by_reason(
    world: World, denial: Denial, line: DenialLine, action: denials.DenialAction
) -> Decided:
    """A reason the remittance decides: the playbook's action, on its own clock."""
    clocks = windows.windows_for(world.plan(denial.plan_id).kind)
    decides = (
        f"{_playbook(f'{line.group}-{line.carc}')}; "
        f"{rule('windows', clocks.appeal_source, clocks.timely_filing_source)}"
    )
    appeal, filing = denial.appeal_deadline, denial.timely_filing_deadline
    today = world.today.isoformat()
    disposition = denials.disposition(line.group, line.carc, appeal, filing, today)
    return disposition, denials.governing_deadline(action, appeal, filing), decides


def _other_payer(world: World, denial: Denial) -> Decided | Fact:
    """CO-22: bill the coverage that pays first, or ask this payer to reconsider."""
    try:
        first = world.primary_on(denial.mrn, denial.service_date)
    except cob.CobUndecided as exc:
        return undecided(COB, str(exc))
    if first is None:
        return undecided(COB, f"no coverage of {denial.mrn} is in force on {denial.service_date}")
    decides = f"{_playbook('CO-22')}; {COB}"
    if first.id != denial.coverage_id:
        return "bill-secondary", None, decides
    deadline = denial.appeal_deadline
    lapsed = deadline < world.today.isoformat()
    return (denials.LAPSED if lapsed else "reconsideration"), deadline, decides


def _coverage_ended(world: World, denial: Denial) -> Decided | Fact:
    """PR-27: bill a coverage in force on the date of service, else the patient."""
    decides = f"{_playbook('PR-27')}; {rule('coverage', coverage.SOURCE)}"
    try:
        order = world.benefit_order(denial.mrn, denial.service_date)
    except cob.CobUndecided as exc:
        return undecided(COB, str(exc))
    if any(c.id == denial.coverage_id for c in order):
        why = f"{denial.coverage_id} is in force on {denial.service_date}, yet denied PR-27"
        return undecided(decides, why)
    return ("bill-secondary" if order else "bill-patient"), None, decides


def _medi_cal_beside(world: World, denial: Denial) -> bool | Fact:
    """Whether another coverage of the patient in force on the date of service is Medi-Cal:
    the member share the claim's plan left then goes to Medi-Cal, not to the member."""
    try:
        order = world.benefit_order(denial.mrn, denial.service_date)
    except cob.CobUndecided as exc:
        return undecided(COB, str(exc))
    others = [world.plan(c.plan_id).kind for c in order if c.id != denial.coverage_id]
    return not cost_sharing.may_bill_member_beside(others)


def _channel(out: Outcome, world: World, denial: Denial, docs: list[Document]) -> None:
    plan = world.plan(denial.plan_id)
    where = f"world: plans[{plan.id}].appeal_channel"
    if plan.appeal_channel == "portal" and plan.portal:
        out.facts["channel"] = Fact(plan.portal, where)
    elif plan.appeal_channel == "portal":
        out.facts["channel"] = undecided(where, f"{plan.id} takes appeals on a portal it lacks")
    else:
        out.facts["channel"] = Fact("fax", where)
    out.addresses["appeals_fax"] = digits(plan.appeals_fax)
    letter = chart.current(docs, "lmn", denial.mrn)
    out.facts["attach"] = Fact([letter.id] if letter else [], "world: documents (lmn)")


def _clock(denial: Denial, disposition: str, deadline: str | None) -> str:
    """Which of the claim's dates governs the disposition, in words a finding can quote."""
    if deadline is None:
        return f"no deadline of this claim governs {disposition}"
    which = "appeal deadline" if deadline == denial.appeal_deadline else "timely-filing limit"
    if disposition == denials.LAPSED:
        return f"the {which} that governs the action passed on {deadline}"
    return f"{disposition} runs on the {which}"
