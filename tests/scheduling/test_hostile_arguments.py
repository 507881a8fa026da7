"""What an agent sends the scheduling tools is read through one total step: values no trace,
database or state document can hold (a lone surrogate, `NaN`, `1e999`, a 5,000-digit integer,
a nesting bomb) are refused at the gate as the agent's bad request and recorded, and the
episode's end state can still be read and served. Before this gate, each of them made the
service answer 500 or the end state unreadable (the attempt lost as unmeasurable)."""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from endstate.envs.systems.scheduling.app import request_body as http_body
from endstate.envs.systems.scheduling.directory import seed_directory
from endstate.envs.systems.scheduling.schema import DDL
from endstate.envs.systems.scheduling.service import SchedulingService, stored


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(tmp_path / "episode.sqlite", isolation_level=None)
    db.executescript(DDL)
    db.execute("BEGIN")
    seed_directory(db, 7, "2026-08-25T18:00:00")
    db.execute("COMMIT")
    yield db
    db.close()


def _nested(depth: int) -> Any:
    value: Any = "x"
    for _ in range(depth):
        value = [value]
    return value


HOSTILE: list[tuple[str, dict[str, Any], Any, str]] = [
    ("find_patient", {"name": "\ud800"}, None, "lone surrogate"),
    ("find_patient", {"\udfff": "x", "name": "a"}, None, "lone surrogate"),
    ("hold_slot", {"patient_id": "SP0001", "slot_id": "S"}, "k\ud800", "lone surrogate"),
    ("get_proposal", {"proposal_id": math.inf}, None, "not a finite number"),
    ("get_proposal", {"proposal_id": math.nan}, None, "not a finite number"),
    ("get_proposal", {"proposal_id": 10**400}, None, "beyond 64 bits"),
    ("get_proposal", {"proposal_id": -(2**64)}, None, "beyond 64 bits"),
    ("find_patient", {"name": _nested(100)}, None, "nested deeper"),
]


@pytest.mark.parametrize(("tool", "arguments", "key", "why"), HOSTILE)
def test_an_unstorable_value_is_refused_and_traced_and_the_trace_stays_json(
    conn: sqlite3.Connection, tool: str, arguments: dict[str, Any], key: Any, why: str
) -> None:
    answer = SchedulingService(conn).call(tool, arguments, key)
    assert (answer["status"], answer["code"]) == ("refused", "bad_request"), answer
    assert why in answer["message"]
    tool_, key_, args, result = conn.execute(
        "SELECT tool, idempotency_key, arguments, result FROM sc_requests"
    ).fetchone()
    assert tool_ == tool
    # Everything kept of it is valid UTF-8 and strict JSON (what the state document serves).
    for text in (key_ or "", args, result):
        text.encode("utf-8")
    json.dumps(json.loads(args), allow_nan=False)
    json.dumps(json.loads(result), allow_nan=False)


def test_the_trace_keeps_an_unusable_value_as_text() -> None:
    kept = json.loads(stored({"name": "\ud800", "n": math.inf}))
    assert set(kept) == {"_unusable"}
    assert "\\ud800" in kept["_unusable"]


def test_a_refused_unknown_tool_with_a_surrogate_name_is_traced(
    conn: sqlite3.Connection,
) -> None:
    answer = SchedulingService(conn).call("\ud800tool", {}, "key\udfff")
    assert answer["code"] == "unknown_tool"
    tool, key = conn.execute("SELECT tool, idempotency_key FROM sc_requests").fetchone()
    assert tool == "\\ud800tool"
    assert key.startswith("key\\udfff#")


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        (b'{"arguments": {"name": "\\ud800"}}', "lone surrogate"),
        (b'{"arguments": {"name": 1e999}}', "too large for a float"),
        (b'{"arguments": {"name": NaN}}', "not a JSON number"),
        (b'{"arguments": {"name": ' + b"9" * 5000 + b"}}", "unreadable number"),
        (b"[" * 100_000 + b"]" * 100_000, "nested"),
        (b"\xff\xfe", "not valid UTF-8"),
    ],
)
def test_an_http_body_is_decoded_totally(raw: bytes, why: str) -> None:
    refused = http_body(raw)
    assert isinstance(refused, str) and why in refused, refused
