"""The writes errands end in, each three ways: the reference steps that make it through the
portal's pages, the write leg that grades it on the delta, and a look-alike variant (the
wrong provider, appointment, branch or fax number) that must fail that leg."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from endstate.builtin.errands.chart import ChartView, provider_label
from endstate.builtin.templates.common import Traj
from endstate.envs.systems.patient_portal import controls as pp
from endstate.envs.systems.patient_portal.model import Appointment, Message, Pharmacy, Provider

ORIGIN = "pp"  # the captured portal origin, as ${pp} in later steps


@dataclass
class WriteLeg:
    """One write leg: its check, and the edits that aim the reference's write elsewhere."""

    name: str
    check: dict[str, Any]
    lookalike: list[dict[str, Any]] = field(default_factory=list)
    lookalike_why: str = ""


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


def _leg(name: str, page: str, expect: list[dict[str, Any]], what: str) -> dict[str, Any]:
    return {
        "type": "delta",
        "leg": name,
        "expect": expect,
        "points": 1,
        "description": what,
        "category": f"write:{page}",
    }


def _one_message(
    traj: Traj, c: ChartView, to: Provider, leg: str, match: dict[str, Any], what: str
) -> WriteLeg:
    """Exactly one message sent, matching `match`; its look-alike goes to a similar name."""
    check = _leg(
        leg,
        "/messages",
        [
            {"table": "pp_sent_messages", "op": "added", "match": match},
            {"table": "pp_sent_messages", "op": "added", "count": 1},
        ],
        f"{what}, sent to {provider_label(to)}",
    )
    other = c.lookalike(to)
    return WriteLeg(
        leg,
        check,
        _replace_option(traj, "recipient", provider_label(other)),
        f"the message goes to {provider_label(other)}, a look-alike name",
    )


def send_message(traj: Traj, c: ChartView, to: Provider, subject: str, body: str) -> WriteLeg:
    traj.goto(f"${{{ORIGIN}}}/messages/new")
    _select(traj, pp.RECIPIENT, provider_label(to), "recipient")
    traj.fill(pp.SUBJECT, subject)
    traj.fill(pp.MESSAGE, body)
    traj.click(pp.SEND, writes="send the message")
    return _one_message(traj, c, to, "message_sent", {"provider_id": to.id}, "one message")


def reply(traj: Traj, c: ChartView, m: Message, body: str) -> WriteLeg:
    to = c.provider(m.provider_id)
    traj.goto(f"${{{ORIGIN}}}/messages/{m.id}")
    traj.click(pp.REPLY, role="link")
    _select(traj, pp.RECIPIENT, provider_label(to), "recipient")
    traj.fill(pp.MESSAGE, body)
    traj.click(pp.SEND, writes="send the reply")
    match = {"in_reply_to": m.id, "provider_id": to.id}
    return _one_message(traj, c, to, "reply_sent", match, f"one reply to {m.id}")


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
