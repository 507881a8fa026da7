"""The simulated user: a participant of the episode, scripted and deterministic by default.

The agent reaches it with two tools. `request_approval` shows it a revision: it approves only
what matches its goal (never a proposal that contradicts it), and answers a revision naming
a slot it has a correction for with that correction ("use the second slot instead"). A user
with second thoughts (`approve_then_correct`) approves the slot first offered and changes
their mind in the same breath: confirming that approval anyway books what they no longer
want. When it approves, the approval is its own write on the service, as actor `user`.
`message_user` answers from the facts it was given and nothing else: asked something it
does not know, it says so rather than invent. Every exchange is in `sc_conversation`.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from endstate.envs.systems.scheduling.service import SchedulingService
from endstate.envs.systems.scheduling.store import Refused

UNKNOWN_FACT = "I don't know that, sorry."
NOT_MINE = "No, that's not what I asked for."


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
        """The agent's request, the user's reply, both in the conversation and the trace."""
        turn = self.decide(tool, arguments)
        if isinstance(turn, dict):
            return turn
        return self.record(tool, arguments, *turn)

    def decide(
        self, tool: str, arguments: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | dict[str, Any]:
        """(what the agent said, the result with the reply) — or the refusal, recorded."""
        try:
            if tool == "message_user":
                said = str(arguments["text"])
                return said, {"status": "ok", "reply": self.answer(said)}
            proposal_id = int(arguments["proposal_id"])
            revision = int(arguments["revision"])
            kind = str(arguments["kind"])
        except (KeyError, TypeError, ValueError) as exc:
            refused = {"status": "refused", "code": "bad_arguments", "message": f"missing {exc}"}
            self.service.trace(tool, arguments, refused)
            return refused
        said = f"Please approve revision {revision} of proposal {proposal_id} ({kind})."
        return said, self.review(proposal_id, revision, kind)

    def record(
        self, tool: str, arguments: dict[str, Any], said: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        self.conn.execute("BEGIN IMMEDIATE")
        self._say("agent", said)
        self._say("user", str(result["reply"]))
        self.conn.execute("COMMIT")
        self.service.trace(tool, arguments, result)
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

    def review(self, proposal_id: int, revision: int, kind: str) -> dict[str, Any]:
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
        if not matches and not (second_thoughts and kind == "booking"):
            return {"status": "ok", "approved": False, "reply": correction or NOT_MINE}
        done = self.service.call(
            "approve",
            {"proposal_id": proposal_id, "revision": revision, "kind": kind},
            f"user:{proposal_id}:{revision}:{kind}",
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
