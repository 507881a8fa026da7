"""The tools an agent has on the scheduling service: one spec per tool, served as JSON at
`/tools`, handed to a model as OpenAI-style function tools and listed over MCP. The service
keeps the rules; these say how to ask."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

KEY_NOTE = (
    " A write: send an idempotency_key of your choosing; resending the same key with the same "
    "arguments never does it twice."
)


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments
    write: bool = False

    def openai(self) -> dict[str, Any]:
        """As an OpenAI-style function tool (the key is an argument there)."""
        params = self.parameters
        if self.write:
            params = {
                **params,
                "properties": {
                    **params["properties"],
                    "idempotency_key": {"type": "string"},
                },
                "required": [*params.get("required", []), "idempotency_key"],
            }
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": params},
        }


def _obj(required: list[str], **props: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


_S = {"type": "string"}
_I = {"type": "integer"}
_CHANNEL = {"type": "string", "enum": ["sms", "email", "portal"]}

# What approving names, whoever asks (the agent's request_approval, the user's approve).
_APPROVAL = _obj(
    ["proposal_id", "revision", "kind"],
    proposal_id=_I,
    revision=_I,
    kind={"type": "string", "enum": ["booking", "communication"]},
    channel=_CHANNEL,
    body=_S,
)

TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "find_patient",
        "Patients whose name contains every word given, with date of birth and MRN.",
        _obj(["name"], name=_S),
    ),
    ToolSpec(
        "list_slots",
        "Open slots (not booked, not held), optionally for one provider and one date (YYYY-MM-DD).",
        _obj([], provider_id=_S, date=_S),
    ),
    ToolSpec(
        "list_appointments",
        "A patient's appointments, booked and cancelled.",
        _obj(["patient_id"], patient_id=_S),
    ),
    ToolSpec(
        "get_proposal",
        "A proposal with its numbered revisions and the approvals each has.",
        _obj(["proposal_id"], proposal_id=_I),
    ),
    ToolSpec(
        "lookup_external",
        "What the external scheduling system holds for a proposal's patient and latest slot: "
        "use it when a confirmation's outcome is unknown.",
        _obj(["proposal_id"], proposal_id=_I),
    ),
    ToolSpec(
        "hold_slot",
        "Hold a slot for a patient; the hold's lease lapses after a while." + KEY_NOTE,
        _obj(["patient_id", "slot_id"], patient_id=_S, slot_id=_S),
        write=True,
    ),
    ToolSpec(
        "propose",
        "Propose a change for the user to review: book (slot_id), reschedule (appointment_id "
        "and the new slot_id) or cancel (appointment_id). It starts at revision 1." + KEY_NOTE,
        _obj(
            ["patient_id", "action"],
            patient_id=_S,
            action={"type": "string", "enum": ["book", "reschedule", "cancel"]},
            slot_id=_S,
            appointment_id=_I,
            note=_S,
        ),
        write=True,
    ),
    ToolSpec(
        "revise",
        "A new revision of a proposal with another slot (the latest revision's slot is refused: "
        "a revision must change something); earlier approvals do not carry over." + KEY_NOTE,
        _obj(["proposal_id", "slot_id"], proposal_id=_I, slot_id=_S, note=_S),
        write=True,
    ),
    ToolSpec(
        "request_approval",
        "Ask the user to approve a revision: kind booking (to confirm it) or communication (to "
        "send a message about it). A communication approval is for one exact message: give its "
        "channel and body, which the user is shown; only that message may then be sent. The "
        "user answers; an approval is recorded only if they agree.",
        _APPROVAL,
    ),
    ToolSpec(
        "message_user",
        "Say something to the user or ask them a question; their reply comes back.",
        _obj(["text"], text=_S),
    ),
    ToolSpec(
        "confirm",
        "Confirm an approved revision on the external scheduling system (needs a live hold on "
        "its slot). An answer with status unknown means it may or may not have happened there."
        + KEY_NOTE,
        _obj(["proposal_id", "revision"], proposal_id=_I, revision=_I),
        write=True,
    ),
    ToolSpec(
        "send_communication",
        "Send the patient a message about a revision: it needs the user's communication approval "
        "of this exact channel and body." + KEY_NOTE,
        _obj(
            ["proposal_id", "revision", "channel", "body"],
            proposal_id=_I,
            revision=_I,
            channel=_CHANNEL,
            body=_S,
        ),
        write=True,
    ),
)

TOOL_NAMES = tuple(t.name for t in TOOLS)
USER_TOOLS = ("request_approval", "message_user")  # answered by the simulated user

# The user's own write, recorded as actor `user` when they agree: never an agent tool.
APPROVE = ToolSpec(
    "approve",
    "The user approves a revision (for a communication: one exact channel and body).",
    _APPROVAL,
    write=True,
)
