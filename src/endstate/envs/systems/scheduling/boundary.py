"""What the trace of one episode says about where it first went wrong, by rules
(docs/scheduling-lab.md, "First broken boundary"): the first agent request the service
refused, mapped by its code; a confirmation retried under a new key after an unknown outcome;
a proposal for someone other than the patient the user is. The report completes the rule
with what the checks say; this part needs only the trace."""

from __future__ import annotations

from typing import Any

BOUNDARY_OF_CODE = {
    "no_such_patient": "entity_resolution",
    "no_such_appointment": "entity_resolution",
    "not_approved": "authorization",
    "not_authorized": "authorization",
    "stale_revision": "authorization",
    "communication_not_approved": "authorization",
    "slot_taken": "resource_conflict",
    "lease_expired": "resource_conflict",
    "no_hold": "resource_conflict",
    "proposal_closed": "workflow_resume",
    "already_approved": "workflow_resume",
    # Re-proposing the slot already under review: the agent did not carry the conversation's
    # correction (or any change) into the revision it claims to make.
    "revision_unchanged": "workflow_resume",
    "bad_arguments": "adapter_contract",
    "idempotency_key_missing": "adapter_contract",
    "idempotency_key_reused": "adapter_contract",
    "idempotency_key_invalid": "adapter_contract",
    "unknown_tool": "adapter_contract",
    "bad_request": "adapter_contract",
    "no_such_slot": "adapter_contract",
    "no_such_proposal": "adapter_contract",
}


def trace_boundary(requests: list[dict[str, Any]], user_patient: str | None) -> str | None:
    """The first boundary the agent's own requests show broken, or None."""
    unknown_keys: dict[Any, str] = {}  # proposal -> the key whose outcome was unknown
    for r in requests:
        if r["actor"] != "agent":
            continue
        args = r["arguments"]
        patient = args.get("patient_id")
        if user_patient and patient and patient != user_patient:
            return "entity_resolution"
        if r["status"] == "refused":
            return BOUNDARY_OF_CODE.get(str(r["code"]), "adapter_contract")
        if r["tool"] != "confirm":
            continue
        key = str(r["idempotency_key"] or "").split("#")[0]
        proposal = args.get("proposal_id")
        earlier = unknown_keys.get(proposal)
        if earlier is not None and key != earlier:
            return "external_uncertainty"  # retried blind: a new key after an unknown outcome
        if r["status"] == "unknown":
            unknown_keys[proposal] = key
    return None


def recovered(requests: list[dict[str, Any]], proposals: list[dict[str, Any]]) -> bool | None:
    """After an unknown outcome: whether that proposal ended confirmed with no blind retry
    (None when no outcome was unknown)."""
    unknown = {r["arguments"].get("proposal_id") for r in requests if r["status"] == "unknown"}
    if not unknown:
        return None
    confirmed = {p["id"] for p in proposals if p["status"] == "confirmed"}
    blind = trace_boundary(requests, None) == "external_uncertainty"
    return unknown <= confirmed and not blind
