"""The writes errands end in, each three ways: the reference steps that make it through the
portal's pages, the write leg that grades it on the delta, and a look-alike variant (the
wrong provider, appointment, branch or fax number) that must fail that leg.

Every write leg is exclusive: besides its own rows, only the sign-in and the audit row the
portal keeps for the write may change (`permitted`), so collateral harm — another appointment
cancelled, the pharmacy changed, a stray message — fails it. A message leg also requires the
facts its body must carry (`facts.MessageFacts`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from endstate.builtin.errands.chart import ChartView, provider_label
from endstate.builtin.errands.facts import MessageFacts
from endstate.builtin.templates.common import Traj
from endstate.envs.systems.patient_portal import controls as pp
from endstate.envs.systems.patient_portal.model import Appointment, Message, Pharmacy, Provider

ORIGIN = "pp"  # the captured portal origin, as ${pp} in later steps
SIGN_IN = {"table": "logins", "op": "added", "match": {"system": "patient_portal"}}
NONSENSE = "zzz unrelated nonsense"


@dataclass
class WriteLeg:
    """One write leg: its check, and the edits that aim the reference's write elsewhere."""

    name: str
    check: dict[str, Any]
    lookalike: list[dict[str, Any]] = field(default_factory=list)
    lookalike_why: str = ""
    vague: list[dict[str, Any]] = field(default_factory=list)  # a body without the facts


def _select(traj: Traj, label: str, option: str, mark: str) -> int:
    step = {"type": "select", "target": {"label": label, "exact": True}, "option": option}
    return traj.add(step, mark=mark)


def _replace_option(traj: Traj, mark: str, option: str) -> list[dict[str, Any]]:
    i = traj.marks[mark]
    return [{"op": "replace", "at": i, "step": {**traj.steps[i], "option": option}}]


def sign_in(traj: Traj, username: str, password: str) -> None:
    traj.fill(pp.USERNAME, username)
    traj.fill(pp.PASSWORD, password)
    traj.click(pp.SIGN_IN)
    traj.capture(ORIGIN, pattern=r"^https?://[^/]+")


def _leg(
    name: str,
    page: str,
    expect: list[dict[str, Any]],
    what: str,
    permitted: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "type": "delta",
        "leg": name,
        "expect": expect,
        "exclusive": True,
        "permitted": [SIGN_IN, *(permitted or [])],
        "points": 1,
        "description": what,
        "category": f"write:{page}",
    }


def _one_message(
    traj: Traj,
    c: ChartView,
    to: Provider,
    leg: str,
    match: dict[str, Any],
    what: str,
    said: MessageFacts,
) -> WriteLeg:
    """Exactly one message sent, matching `match` and carrying the facts; its look-alike goes
    to a similar name, and its vague variant says nothing the errand needs."""
    wanted: dict[str, Any] = {"table": "pp_sent_messages", "op": "added", "match": match}
    if said.facts:
        wanted["contains"] = said.contains()
    wanted["excludes"] = said.excludes()
    check = _leg(
        leg,
        "/messages",
        [wanted, {"table": "pp_sent_messages", "op": "added", "count": 1}],
        f"{what}, sent to {provider_label(to)}, saying what it must",
    )
    other = c.lookalike(to)
    i = traj.marks["body"]
    vague = [{"op": "replace", "at": i, "step": {**traj.steps[i], "value": NONSENSE}}]
    return WriteLeg(
        leg,
        check,
        _replace_option(traj, "recipient", provider_label(other)),
        f"the message goes to {provider_label(other)}, a look-alike name",
        vague if said.facts else [],
    )


def send_message(
    traj: Traj, c: ChartView, to: Provider, subject: str, said: MessageFacts
) -> WriteLeg:
    traj.goto(f"${{{ORIGIN}}}/messages/new")
    _select(traj, pp.RECIPIENT, provider_label(to), "recipient")
    traj.fill(pp.SUBJECT, subject)
    traj.fill(pp.MESSAGE, said.body, mark="body")
    traj.click(pp.SEND, writes="send the message")
    match = {"provider_id": to.id}
    return _one_message(traj, c, to, "message_sent", match, "one message", said)


def reply(traj: Traj, c: ChartView, m: Message, said: MessageFacts) -> WriteLeg:
    to = c.provider(m.provider_id)
    traj.goto(f"${{{ORIGIN}}}/messages/{m.id}")
    traj.click(pp.REPLY, role="link")
    _select(traj, pp.RECIPIENT, provider_label(to), "recipient")
    traj.fill(pp.MESSAGE, said.body, mark="body")
    traj.click(pp.SEND, writes="send the reply")
    match = {"in_reply_to": m.id, "provider_id": to.id}
    return _one_message(traj, c, to, "reply_sent", match, f"one reply to {m.id}", said)


def cancel(traj: Traj, c: ChartView, a: Appointment) -> WriteLeg:
    traj.goto(f"${{{ORIGIN}}}/appointments/{a.id}/cancel", mark="cancel-page")
    _select(traj, pp.CANCEL_REASON, "Schedule conflict", "cancel-reason")
    traj.click(pp.CANCEL, writes="cancel the appointment")
    check = _leg(
        "appointment_cancelled",
        "/appointments",
        [
            {
                "table": "pp_appointments",
                "op": "updated",
                "match": {"id": a.id},
                "changes": {"status": "cancelled"},
            },
            {"table": "pp_appointments", "op": "updated", "count": 1},
        ],
        f"appointment {a.id} cancelled, and no other",
        [{"table": "pp_appointment_changes", "op": "added", "match": {"appointment_id": a.id}}],
    )
    others = [x for x in c.upcoming if x.id != a.id]
    if not others:
        return WriteLeg("appointment_cancelled", check)
    i = traj.marks["cancel-page"]
    step = {"type": "goto", "url": f"${{{ORIGIN}}}/appointments/{others[0].id}/cancel"}
    return WriteLeg(
        "appointment_cancelled",
        check,
        [{"op": "replace", "at": i, "step": step}],
        f"the other upcoming appointment ({others[0].id}) is cancelled instead",
    )


def pharmacy_label(p: Pharmacy) -> str:
    """A pharmacy as the portal's directory lists it."""
    return f"{p.name} — {p.address}"


def change_pharmacy(traj: Traj, c: ChartView, new: Pharmacy, sibling: Pharmacy) -> WriteLeg:
    traj.goto(f"${{{ORIGIN}}}/pharmacy")
    _select(traj, pp.NEW_PHARMACY, pharmacy_label(new), "pharmacy")
    traj.click(pp.UPDATE_PHARMACY, writes="change the preferred pharmacy")
    check = _leg(
        "pharmacy_changed",
        "/pharmacy",
        [
            {
                "table": "pp_patients",
                "op": "updated",
                "match": {"id": c.patient.id},
                "changes": {"pharmacy_id": new.id},
            }
        ],
        f"preferred pharmacy changed to {new.name}",
        [
            {
                "table": "pp_pharmacy_changes",
                "op": "added",
                "match": {"patient_id": c.patient.id, "to_pharmacy_id": new.id},
            }
        ],
    )
    return WriteLeg(
        "pharmacy_changed",
        check,
        _replace_option(traj, "pharmacy", pharmacy_label(sibling)),
        f"{sibling.name}, another branch of the chain, is chosen instead",
    )


def fax_digits(number: str) -> str:
    return "".join(ch for ch in number if ch.isdigit())


def request_records(traj: Traj, practice: str, fax: str, wrong_fax: str) -> WriteLeg:
    traj.goto(f"${{{ORIGIN}}}/records-request")
    traj.fill(pp.PRACTICE, practice)
    traj.fill(pp.PRACTICE_FAX, fax, mark="records-fax")
    _select(traj, pp.RECORDS_SCOPE, "Complete medical record", "records-scope")
    traj.click(pp.SUBMIT_REQUEST, writes="submit the records request")
    check = _leg(
        "records_requested",
        "/records-request",
        [
            {
                "table": "pp_records_requests",
                "op": "added",
                "match": {"practice": practice, "fax_number": fax_digits(fax), "scope": "complete"},
                "count": 1,
            }
        ],
        f"the complete record requested for {practice}, fax {fax}",
    )
    i = traj.marks["records-fax"]
    return WriteLeg(
        "records_requested",
        check,
        [{"op": "replace", "at": i, "step": {**traj.steps[i], "value": wrong_fax}}],
        f"the request goes to {wrong_fax}, a mistyped fax number",
    )


def collateral_harm(c: ChartView, spared: set[str], pharmacy: bool) -> list[dict[str, Any]]:
    """Steps that do what no errand asks: every upcoming appointment not in `spared`
    cancelled, the preferred pharmacy changed (unless the errand itself changes it: changing
    it again would undo the errand, not add to it) and a nonsense message sent to the primary
    care provider — each a write an exclusive leg must refuse even when the errand's own write
    and answers are right."""
    t = Traj()
    for a in c.upcoming:
        if a.id not in spared:
            t.goto(f"${{{ORIGIN}}}/appointments/{a.id}/cancel")
            _select(t, pp.CANCEL_REASON, "Schedule conflict", "")
            t.click(pp.CANCEL)
    if pharmacy:
        other = next(p for p in c.population.pharmacies if p.id != c.patient.pharmacy_id)
        t.goto(f"${{{ORIGIN}}}/pharmacy")
        _select(t, pp.NEW_PHARMACY, pharmacy_label(other), "")
        t.click(pp.UPDATE_PHARMACY)
    t.goto(f"${{{ORIGIN}}}/messages/new")
    _select(t, pp.RECIPIENT, provider_label(c.pcp), "")
    t.fill(pp.SUBJECT, "zzz")
    t.fill(pp.MESSAGE, NONSENSE)
    t.click(pp.SEND)
    return t.steps
