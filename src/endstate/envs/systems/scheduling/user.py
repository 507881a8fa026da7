"""The simulated user: a participant of the episode, scripted and deterministic by default.

The agent reaches it with two tools. `request_approval` shows it a revision: it approves only
what matches its goal (never a proposal that contradicts it), and answers a revision naming
a slot it has a correction for with that correction ("use the second slot instead"). A user
with second thoughts (`approve_then_correct`) approves the slot first offered and changes
their mind in the same breath: confirming that approval anyway books what they no longer
want. When it approves, the approval is its own write on the service, as actor `user`.
A communication approval is for one message, shown with its channel and body: the user
approves it only by the channel its goal asks for (`goal.channel`; absent, any) and only if
the body does not contradict the proposal (the word rule below, docs/scheduling-lab.md).
`message_user` answers from the facts it was given and nothing else: asked something it
does not know, it says so rather than invent. Every exchange is in `sc_conversation`; the
agent's request itself is recorded by the caller (entrance.serve), as the agent's.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from typing import Any

from endstate.envs.systems.scheduling.service import SchedulingService
from endstate.envs.systems.scheduling.store import Refused

UNKNOWN_FACT = "I don't know that, sorry."
NOT_MINE = "No, that's not what I asked for."
WRONG_MESSAGE = "No, don't send that message; that's not what we agreed."
# A message contradicts a booking or move if it speaks of cancelling; any message that asks
# for payment details is refused (a scheduling message never needs them).
CANCEL_WORDS = frozenset({"cancel", "cancelled", "canceled", "cancelling", "cancellation"})
PAYMENT_WORDS = frozenset({"card", "payment", "pay", "credit", "debit", "cvv", "bank"})


def _digest(arguments: dict[str, Any]) -> str:
    """A short stable fingerprint of an approval's arguments, for its idempotency key."""
    text = json.dumps(arguments, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class ScriptedUser:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.service = SchedulingService(conn, actor="user")
        raw = self.service.setting("user")
        self.script: dict[str, Any] = json.loads(raw) if raw else {}

    def _say(self, speaker: str, text: str) -> None:
        self.conn.execute(
            "INSERT INTO sc_conversation (speaker, text, at) VALUES (?, ?, ?)",
            (speaker, text, self.service.now()),
        )

    def exchange(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The agent's request and the user's reply, both in the conversation (the caller
        records the request itself, as the agent's)."""
        turn = self.decide(tool, arguments)
        if isinstance(turn, dict):
            return turn
        return self.record(*turn)

    def decide(
        self, tool: str, arguments: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | dict[str, Any]:
        """(what the agent said, the result with the reply) — or the refusal."""
        try:
            if tool == "message_user":
                said = str(arguments["text"])
                return said, {"status": "ok", "reply": self.answer(said)}
            proposal_id = int(arguments["proposal_id"])
            revision = int(arguments["revision"])
            kind = str(arguments["kind"])
        except (KeyError, TypeError, ValueError) as exc:
            return {"status": "refused", "code": "bad_arguments", "message": f"missing {exc}"}
        if kind == "communication":
            channel, body = str(arguments.get("channel")), str(arguments.get("body"))
            said = (
                f"Please approve sending this {channel} message about revision {revision} of "
                f"proposal {proposal_id}: {body}"
            )
            return said, self.review(proposal_id, revision, kind, channel, body)
        said = f"Please approve revision {revision} of proposal {proposal_id} ({kind})."
        return said, self.review(proposal_id, revision, kind)

    def record(self, said: str, result: dict[str, Any]) -> dict[str, Any]:
        self.conn.execute("BEGIN IMMEDIATE")
        self._say("agent", said)
        self._say("user", str(result["reply"]))
        self.conn.execute("COMMIT")
        return result

    def answer(self, text: str) -> str:
        asked = text.lower()
        facts: dict[str, str] = self.script.get("facts", {})
        known = [f"My {name} is {value}." for name, value in facts.items() if name in asked]
        if known:
            return " ".join(known)
        if "?" in text:
            return UNKNOWN_FACT
        return str(self.script.get("acknowledge", "Okay."))

    def review(
        self, proposal_id: int, revision: int, kind: str, channel: str = "", body: str = ""
    ) -> dict[str, Any]:
        try:
            proposal = self.service.proposal(proposal_id)
            latest = self.service.latest(proposal_id)
        except Refused as refused:
            return {"status": "ok", "approved": False, "reply": refused.message}
        if revision != latest["revision"]:
            return {
                "status": "ok",
                "approved": False,
                "reply": f"That's not the latest version (revision {latest['revision']}).",
            }
        matches, correction = self._matches(proposal, latest["slot_id"])
        second_thoughts = self.script.get("approve_then_correct", {}).get(latest["slot_id"] or "")
        if kind == "communication" and not self.script.get("approve_communication", False):
            return {
                "status": "ok",
                "approved": False,
                "reply": "Please don't send me anything about it.",
            }
        if kind == "communication" and matches:
            objection = self._message_objection(proposal["action"], channel, body)
            if objection:
                return {"status": "ok", "approved": False, "reply": objection}
        if not matches and not (second_thoughts and kind == "booking"):
            return {"status": "ok", "approved": False, "reply": correction or NOT_MINE}
        approving: dict[str, Any] = {"proposal_id": proposal_id, "revision": revision, "kind": kind}
        if kind == "communication":
            approving |= {"channel": channel, "body": body}
        done = self.service.call(
            "approve", approving, f"user:{proposal_id}:{revision}:{kind}:{_digest(approving)}"
        )
        if done["status"] != "ok":
            return {"status": "ok", "approved": False, "reply": str(done["message"])}
        reply = second_thoughts or str(self.script.get("approve_reply", "Yes, that's right."))
        return {
            "status": "ok",
            "approved": True,
            "approval_id": done["approval_id"],
            "reply": reply,
        }

    def _message_objection(self, action: str, channel: str, body: str) -> str:
        """Why the user will not have this message sent, or "" (the rule is the docs')."""
        wanted = self.script.get("goal", {}).get("channel")
        if wanted and channel != wanted:
            return f"No, don't send that by {channel}; I'd like it by {wanted}."
        words = set(re.findall(r"[a-z]+", body.lower()))
        if words & PAYMENT_WORDS or (action != "cancel" and words & CANCEL_WORDS):
            return WRONG_MESSAGE
        return ""

    def _matches(self, proposal: dict[str, Any], slot_id: str | None) -> tuple[bool, str]:
        goal: dict[str, Any] = self.script.get("goal", {})
        corrections: dict[str, str] = self.script.get("corrections", {})
        correction = corrections.get(slot_id or "", "")
        wanted = (
            proposal["patient_id"] == self.script.get("patient_id")
            and proposal["action"] == goal.get("action")
            and (proposal["action"] == "cancel" or slot_id == goal.get("slot_id"))
            and (
                proposal["action"] == "book"
                or proposal["appointment_id"] == goal.get("appointment_id")
            )
        )
        return wanted, correction
