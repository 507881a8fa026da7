"""Whether an end state carries out the derived outcome: what was sent, to whom, with what.

Read from the state document (docs/state-document.md) the way the receiving systems recorded
it — portal submissions, answers to pended requests, appeals, faxes, the EHR's dispositions —
never from anything the agent said:

- `request`: exactly one request for the patient across both portals and the fax, on the
  derived channel (a portal request on the derived coverage; a fax to the plan's UM fax),
  carrying every document the outcome attaches;
- `not-in-force`, `on-file`, `not-required`, and any key of `scope: determination`: no request
  for the patient on any channel;
- `answer-pended`: one answer on the pended request, carrying the document asked for, and no
  new request;
- a claim: the EHR shows the derived disposition; an appeal or reconsideration goes out on
  the plan's appeal channel — exactly once where the key claims a channel, at most once where
  it does not (a task that only triages) — and no other disposition sends anything;
- a DME `send`: one fax for the patient, to the supplier, with the packet; a hold: no fax;
- everywhere: no decoy the outcome lists leaves by any channel.
"""

from __future__ import annotations

from typing import Any

from endstate.builtin.audit.findings import Finding
from endstate.builtin.audit.outcome import Outcome, digits

APPEAL_SENT = ("appeal", "reconsideration")
NOTHING_SENT = ("not-in-force", "on-file", "not-required")


def _rows(state: dict[str, Any], system: str, table: str) -> list[dict[str, Any]]:
    found = state.get(system)
    rows = found.get(table) if isinstance(found, dict) else None
    return [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []


def _attached(row: dict[str, Any]) -> list[str]:
    """Chart document ids a submission, answer, appeal or fax carried."""
    if "all_document_ids" in row or "document_ids" in row:
        ids = row.get("all_document_ids") or row.get("document_ids") or []
        return [str(i) for i in ids if i]
    return [
        str(a["document_id"])
        for a in row.get("attachments") or []
        if isinstance(a, dict) and a.get("document_id")
    ]


def sent_documents(state: dict[str, Any]) -> set[str]:
    """Every chart document that left by any channel."""
    found: set[str] = set()
    for system in ("payer_a", "payer_b"):
        for table in ("pa_submissions", "pa_responses", "appeals"):
            for row in _rows(state, system, table):
                found.update(_attached(row))
    for row in _rows(state, "fax", "transmissions"):
        found.update(_attached(row))
    return found


class _Report:
    """Collects end-state findings for one task."""

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        self.findings: list[Finding] = []

    def add(
        self, outcome: Outcome, name: str, found: Any, wanted: Any, rule: str, detail: str = ""
    ) -> None:
        self.findings.append(
            Finding(
                task_id=self.task_id,
                kind="end-state",
                field=name,
                claimed=found,
                derived=wanted,
                rule=rule,
                record=outcome.record,
                detail=detail,
            )
        )


def embodied(
    task_id: str, key: dict[str, Any], outcomes: dict[str, Outcome], state: dict[str, Any]
) -> list[Finding]:
    """End-state findings for a task's derived outcomes (none: the end state carries them)."""
    report = _Report(task_id)
    sent = sent_documents(state)
    for outcome in outcomes.values():
        decoys = set(outcome.value("never_attach") or []) & sent
        if decoys:
            report.add(outcome, "never_attach", sorted(decoys), [], _rule(outcome, "never_attach"))
        if outcome.family == "prior_auth":
            _prior_auth(report, key, outcome, state)
        elif outcome.family == "appeals_denials":
            _claim(report, key, outcome, state)
        else:
            _order(report, key, outcome, state)
    return report.findings


def _rule(outcome: Outcome, name: str) -> str:
    fact = outcome.facts.get(name)
    return fact.rule if fact is not None else ""


def _missing(row: dict[str, Any], wanted: list[str]) -> list[str]:
    return sorted(set(wanted) - set(_attached(row)))


def _sent(
    state: dict[str, Any], table: str, on_portal: Any, fax_number: str | None, mrn: str
) -> list[tuple[str, dict[str, Any]]]:
    """What went out by channel: rows of a portal `table` that `on_portal` accepts, then
    faxes from the patient's chart or to `fax_number`."""
    found = [
        (system, row)
        for system in ("payer_a", "payer_b")
        for row in _rows(state, system, table)
        if on_portal(row)
    ]
    found += [
        ("fax", row)
        for row in _rows(state, "fax", "transmissions")
        if row.get("patient_mrn") == mrn
        or (fax_number and digits(row.get("fax_number")) == fax_number)
    ]
    return found


def _requests(outcome: Outcome, state: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every prior-authorization request for the patient, by channel."""
    return _sent(
        state,
        "pa_submissions",
        lambda row: row.get("member_mrn") == outcome.mrn,
        outcome.addresses.get("um_fax"),
        outcome.mrn,
    )


def _lacks(report: _Report, outcome: Outcome, row: dict[str, Any], name: str, what: str) -> None:
    """Report the documents of `name` (`attach`, `documents`) a row went out without."""
    wanted = list(outcome.value(name) or [])
    missing = _missing(row, wanted)
    if missing:
        report.add(
            outcome,
            name,
            _attached(row),
            wanted,
            _rule(outcome, name),
            f"the {what} lacks {', '.join(missing)}",
        )


def _prior_auth(
    report: _Report, key: dict[str, Any], outcome: Outcome, state: dict[str, Any]
) -> None:
    decision = outcome.decision
    if decision is None:
        return
    rule = _rule(outcome, "decision")
    requests = _requests(outcome, state)
    channels = [channel for channel, _ in requests]
    if decision in NOTHING_SENT or key.get("scope") == "determination":
        if requests:
            why = "the task only records the decision" if decision == "request" else decision
            report.add(outcome, "requests", channels, [], rule, f"nothing may be sent ({why})")
        return
    if decision == "answer-pended":
        _answer(report, outcome, state, channels, rule)
        return
    channel = outcome.value("channel")
    if len(requests) != 1:
        report.add(outcome, "requests", channels, [channel], rule, "exactly one request")
        return
    got, row = requests[0]
    if got != channel:
        report.add(outcome, "channel", got, channel, _rule(outcome, "channel"))
    elif got == "fax" and digits(row.get("fax_number")) != outcome.addresses.get("um_fax"):
        report.add(
            outcome,
            "fax_number",
            digits(row.get("fax_number")),
            outcome.addresses.get("um_fax"),
            _rule(outcome, "channel"),
            "the plan's utilization-management fax",
        )
    elif got != "fax" and row.get("coverage_id") != outcome.value("coverage"):
        report.add(
            outcome,
            "coverage",
            row.get("coverage_id"),
            outcome.value("coverage"),
            _rule(outcome, "coverage"),
        )
    _lacks(report, outcome, row, "attach", "request")


def _answer(
    report: _Report, outcome: Outcome, state: dict[str, Any], channels: list[str], rule: str
) -> None:
    number = outcome.addresses.get("pended")
    answers = [
        r for r in _rows(state, "payer_a", "pa_responses") if r.get("request_number") == number
    ]
    if channels:
        report.add(outcome, "requests", channels, [], rule, f"answer {number}, send no new request")
    if len(answers) != 1:
        report.add(outcome, "pa_responses", len(answers), 1, rule, f"one answer on {number}")
        return
    _lacks(report, outcome, answers[0], "attach", "answer")


def _appeals(outcome: Outcome, state: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return _sent(
        state,
        "appeals",
        lambda row: row.get("claim_id") == outcome.record,
        outcome.addresses.get("appeals_fax"),
        outcome.mrn,
    )


def _claim(report: _Report, key: dict[str, Any], outcome: Outcome, state: dict[str, Any]) -> None:
    disposition = outcome.decision
    if disposition is None:
        return
    rule = _rule(outcome, "disposition")
    shown = [
        r.get("disposition")
        for r in _rows(state, "ehr", "denial_dispositions")
        if r.get("claim_id") == outcome.record
    ]
    if disposition not in shown:
        report.add(outcome, "disposition", shown[-1] if shown else None, disposition, rule)
    appeals = _appeals(outcome, state)
    channels = [c for c, _ in appeals]
    if disposition not in APPEAL_SENT:
        if appeals:
            report.add(
                outcome, "appeals", channels, [], rule, f"nothing is appealed ({disposition})"
            )
        return
    channel = outcome.value("channel")
    claimed = "channel" in key and "records" not in key
    if claimed and len(appeals) != 1:
        report.add(outcome, "appeals", channels, [channel], rule, "exactly one appeal")
        return
    for got, row in appeals:
        if got != channel:
            report.add(outcome, "channel", got, channel, _rule(outcome, "channel"))
        elif got == "fax" and digits(row.get("fax_number")) != outcome.addresses.get("appeals_fax"):
            report.add(
                outcome,
                "fax_number",
                digits(row.get("fax_number")),
                outcome.addresses.get("appeals_fax"),
                _rule(outcome, "channel"),
                "the plan's appeals fax",
            )
        if "attach" in key:
            _lacks(report, outcome, row, "attach", "appeal")


def _order(report: _Report, key: dict[str, Any], outcome: Outcome, state: dict[str, Any]) -> None:
    decision = outcome.decision
    if decision is None:
        return
    rule = _rule(outcome, "decision")
    to_fax = outcome.addresses.get("supplier_fax", "")
    faxes = [
        row
        for row in _rows(state, "fax", "transmissions")
        if row.get("patient_mrn") == outcome.mrn or digits(row.get("fax_number")) == to_fax
    ]
    numbers = [digits(r.get("fax_number")) for r in faxes]
    if decision != "send":
        if faxes:
            report.add(outcome, "faxes", numbers, [], rule, f"nothing is faxed ({decision})")
        return
    if len(faxes) != 1:
        report.add(outcome, "faxes", numbers, [to_fax], rule, "exactly one fax, to the supplier")
        return
    if numbers[0] != to_fax:
        report.add(outcome, "to_fax", numbers[0], to_fax, _rule(outcome, "to_fax"))
    wanted = list(outcome.value("documents") or [])
    if key.get("scope") == "partial" and isinstance(key.get("documents"), list):
        wanted = [d for d in key["documents"] if d in wanted]
    missing = _missing(faxes[0], wanted)
    if missing:
        report.add(
            outcome,
            "documents",
            _attached(faxes[0]),
            wanted,
            _rule(outcome, "documents"),
            f"the packet lacks {', '.join(missing)}",
        )
