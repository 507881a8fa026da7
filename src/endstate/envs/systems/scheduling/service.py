"""The scheduling service's request envelope: every tool call the agent or the user makes.

One request is one transaction: its rows, its audit rows and its request record commit
together or not at all. The invariants hold whoever calls: a confirmation names the latest
revision and that revision's booking approval; a communication needs its own approval; an
expired hold cannot be booked; a write retried with its idempotency key happens once. A refused
request is recorded too (status `refused`), so an attempted violation is evidence; so is a
request whose outcome the external system left unknown (status `unknown`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from endstate.envs.systems.scheduling.connector import ConnectorTimeout
from endstate.envs.systems.scheduling.reads import Reads
from endstate.envs.systems.scheduling.store import Refused
from endstate.envs.systems.scheduling.writes import External, Writes

READS = ("find_patient", "list_slots", "list_appointments", "get_proposal", "lookup_external")
WRITES = ("hold_slot", "propose", "revise", "confirm", "send_communication", "approve")
SENSITIVE = frozenset({"dob", "phone", "body"})  # kept in the trace as a short hash


def minimised(arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments as the trace keeps them: sensitive values as a short hash, never as given."""
    return {
        k: (f"sha256:{hashlib.sha256(str(v).encode()).hexdigest()[:12]}" if k in SENSITIVE else v)
        for k, v in sorted(arguments.items())
    }


def refusal(code: str, message: str) -> dict[str, Any]:
    return {"status": "refused", "code": code, "message": message}


class SchedulingService(Reads, Writes):
    """The whole service as one actor sees it; `call` is its only entrance."""

    def call(self, tool: str, arguments: dict[str, Any], key: str | None = None) -> dict[str, Any]:
        """Run one request; the answer is what the caller sees (`status` ok/refused/unknown)."""
        if tool not in READS and tool not in WRITES:
            return refusal("unknown_tool", f"no tool {tool!r}")
        if tool in WRITES and not key:
            missing = refusal(
                "idempotency_key_missing", f"{tool} is a write: send an idempotency_key"
            )
            self.trace(tool, arguments, missing)
            return missing
        if key is not None:
            replay = self._replay(tool, key, arguments)
            if replay is not None:
                return replay
        try:
            return self._run(tool, arguments, key)
        except Refused as refused:
            result = refusal(refused.code, refused.message)
        except ConnectorTimeout as timeout:
            result = {
                "status": "unknown",
                "code": "connector_timeout",
                "message": f"{timeout}: the change may or may not have been made there",
            }
        except TypeError as exc:  # arguments the tool does not take, or lacks
            result = refusal("bad_arguments", str(exc).replace(f"{type(self).__name__}.", ""))
        with self.transaction(tick=False) as at:
            self._record(tool, key, arguments, result, at)
        return result

    def _run(self, tool: str, arguments: dict[str, Any], key: str | None) -> dict[str, Any]:
        extra = {"key": key} if tool == "confirm" else {}
        with self.transaction() as at:
            self._deliver_callbacks()
            done: dict[str, Any] | External = getattr(self, tool)(at=at, **arguments, **extra)
            if not isinstance(done, External):
                result: dict[str, Any] = {"status": "ok"} | done
                self._record(tool, key, arguments, result, at)
                return result
        external_id = done.call()  # its own transaction: the external system's records
        with self.transaction(tick=False) as at:
            result = {"status": "ok"} | done.apply(external_id, at)
            self._record(tool, key, arguments, result, at)
        return result

    def trace(self, tool: str, arguments: dict[str, Any], result: dict[str, Any]) -> None:
        """Record a call the service does not answer itself (one the user answers)."""
        with self.transaction() as at:
            self._record(tool, None, arguments, result, at)

    def _replay(self, tool: str, key: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """The recorded answer to a retried write; None when it must run (new, or unknown)."""
        row = self.conn.execute(
            "SELECT id, arguments, status, result FROM sc_requests "
            "WHERE tool = ? AND idempotency_key = ?",
            (tool, key),
        ).fetchone()
        if row is None:
            return None
        if json.loads(row[1]) != minimised(arguments):
            return refusal("idempotency_key_reused", f"{key!r} was sent with other arguments")
        if row[2] == "unknown":
            # Run it again under the same key: the connector deduplicates by it. The unknown
            # answer stays in the trace, under the key with a suffix.
            self.conn.execute(
                "UPDATE sc_requests SET idempotency_key = idempotency_key || '#' || id "
                "WHERE id = ?",
                (row[0],),
            )
            self.conn.commit()
            return None
        answer: dict[str, Any] = json.loads(row[3])
        return answer

    def _record(
        self, tool: str, key: str | None, arguments: dict[str, Any], result: dict[str, Any], at: str
    ) -> None:
        self.conn.execute(
            "INSERT INTO sc_requests (tool, idempotency_key, arguments, status, result, actor, at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                tool,
                key,
                json.dumps(minimised(arguments)),
                result["status"],
                json.dumps(result, sort_keys=True),
                self.actor,
                at,
            ),
        )

    def _deliver_callbacks(self) -> None:
        """Apply the external system's queued callbacks in arrival order, each once, never an
        older over a newer: an appointment keeps the highest sequence number it applied. A
        callback about a booking the service has not recorded yet waits for it."""
        queued = self.conn.execute(
            "SELECT id, external_id, seq, event FROM sc_external_callbacks "
            "WHERE delivered = 0 ORDER BY id"
        ).fetchall()
        for callback_id, external_id, seq, event in queued:
            known = self.conn.execute(
                "SELECT 1 FROM sc_appointments WHERE external_id = ?", (external_id,)
            ).fetchone()
            if known is None:
                continue  # it waits for the appointment it is about (an unknown outcome's)
            self.conn.execute(
                "UPDATE sc_appointments SET status = ?, external_seq = ? "
                "WHERE external_id = ? AND external_seq < ?",
                (event, seq, external_id, seq),
            )
            self.conn.execute(
                "UPDATE sc_external_callbacks SET delivered = 1 WHERE id = ?", (callback_id,)
            )
