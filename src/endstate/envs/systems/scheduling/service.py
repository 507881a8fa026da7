"""The scheduling service's request envelope: every tool call the agent or the user makes.

One request is one transaction: its rows, its audit rows and its request record commit
together or not at all. The invariants hold whoever calls: a confirmation names the latest
revision and that revision's booking approval; a communication needs its own approval; an
expired hold cannot be booked; a write retried with its idempotency key happens once. A refused
request is recorded too (status `refused`), so an attempted violation is evidence — the ones
refused at the gate (surface.admit: unknown tool, bad arguments, missing or malformed key)
and a key replayed with other arguments included; so is a request whose outcome the
external system left unknown (status `unknown`).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from endstate.envs.systems.scheduling.connector import ConnectorTimeout
from endstate.envs.systems.scheduling.reads import Reads
from endstate.envs.systems.scheduling.store import Refused
from endstate.envs.systems.scheduling.surface import KEY_CHARS, admit, refusal, unusable
from endstate.envs.systems.scheduling.writes import External, Writes
from endstate.jsonfile import printable

READS = ("find_patient", "list_slots", "list_appointments", "get_proposal", "lookup_external")
WRITES = ("hold_slot", "propose", "revise", "confirm", "send_communication", "approve")
SENSITIVE = frozenset({"dob", "phone", "body"})  # kept in the trace as a short hash
ARGUMENT_BYTES = 2048  # the most of a request's arguments the trace keeps


def _hashed(value: Any) -> str:
    return f"sha256:{hashlib.sha256(str(value).encode()).hexdigest()[:12]}"


def minimised(arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments as the trace keeps them: sensitive values as a short hash, never as given."""
    return {k: (_hashed(v) if k in SENSITIVE else v) for k, v in sorted(arguments.items())}


def _plain(value: Any) -> Any:
    """A value any JSON reader takes back: the refused requests' arguments are traced too, and
    may hold what the gate refuses (a lone surrogate, `NaN`, a 5,000-digit integer)."""
    if unusable(value) is None:
        return value
    return {"_unusable": printable(repr(value)[:ARGUMENT_BYTES])}


def stored(arguments: Any) -> str:
    """The trace's JSON of a request's arguments, whatever was sent: minimised, and cut to
    ARGUMENT_BYTES (the cut says so, with the size and hash of the whole)."""
    plain = _plain(arguments)
    kept = minimised(plain) if isinstance(plain, dict) else {"_not_an_object": plain}
    text = json.dumps(kept, sort_keys=True, default=repr)
    size = len(text.encode())
    if size <= ARGUMENT_BYTES:
        return text
    return json.dumps(
        {
            "_truncated": True,
            "_bytes": size,
            "_sha256": hashlib.sha256(text.encode()).hexdigest(),
            "_prefix": text.encode()[: ARGUMENT_BYTES // 2].decode(errors="ignore"),
        }
    )


class SchedulingService(Reads, Writes):
    """The whole service as one actor sees it; `call` is its only entrance."""

    def call(self, tool: str, arguments: dict[str, Any], key: str | None = None) -> dict[str, Any]:
        """Run one request; the answer is what the caller sees (`status` ok/refused/unknown).
        Every request is recorded, the ones refused before they run included."""
        refused = admit(tool, arguments, key, self.actor)
        if refused is None and tool not in READS and tool not in WRITES:
            refused = refusal("unknown_tool", f"{tool} is answered by the user, not the service")
        if refused is not None:
            self.refuse(tool, arguments, key, refused)
            return refused
        if key is not None:
            replay = self._replay(tool, key, arguments)
            if replay is not None:
                return replay
        try:
            return self._run(tool, arguments, key)
        except Refused as exc:
            result = refusal(exc.code, exc.message)
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

    def refuse(self, tool: Any, arguments: Any, key: Any, result: dict[str, Any]) -> None:
        """Record a request refused before it ran. Its key is kept with a `#<id>` suffix, so
        it never stands for (or replays as) the request that key really names."""
        with self.transaction() as at:
            mark = (
                f"{printable(str(key)[:KEY_CHARS])}#{self.request_id()}"
                if key is not None
                else None
            )
            self._record(printable(str(tool)[:100]), mark, arguments, result, at)

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
        if row[1] != stored(arguments):
            reused = refusal("idempotency_key_reused", f"{key!r} was sent with other arguments")
            self.refuse(tool, arguments, key, reused)
            return reused
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
        self, tool: str, key: str | None, arguments: Any, result: dict[str, Any], at: str
    ) -> None:
        self.conn.execute(
            "INSERT INTO sc_requests (tool, idempotency_key, arguments, status, result, actor, at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                tool,
                key,
                stored(arguments),
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
