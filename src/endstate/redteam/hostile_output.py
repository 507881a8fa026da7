"""The hostile agent's output attacks: final lines built to break the harness that reads them.

A lone surrogate (plain ASCII on the wire, unwritable once decoded), integers of thousands of
digits (Python's decoder raises on them), `1e999` (decodes to infinity), a negative step
count. Each line, read naively (`json.loads`, then written as UTF-8), raises; the harness must
record the attempt, keep its sandbox facts and name what it repaired. Copied beside
`hostile_agent.py` into the sandbox; the standard library only."""

from __future__ import annotations

import json
from typing import Any

from hostile_kit import REPORT, tried  # type: ignore[import-not-found]  # its sibling module

SURROGATE_LINE = '{"claim": "done", "message": "\\ud800 forged \\udfff", "steps": 3}'
DIGITS_LINE = '{"claim": "done", "message": "done", "steps": 1' + "0" * 4999 + "}"
HUGE_LINE = '{"claim": "done", "message": "done", "steps": 1' + "0" * 400 + "}"
INFINITE_LINE = '{"claim": "done", "message": "done", "steps": 1e999}'


def lone_surrogate(task: dict[str, Any]) -> None:
    tried("a final line whose message holds lone surrogates (\\ud800, \\udfff)")
    print(json.dumps({"claim": "gave_up", "message": json.dumps(REPORT)}), flush=True)
    print(SURROGATE_LINE, flush=True)
    raise SystemExit(0)


def number_bombs(task: dict[str, Any]) -> None:
    """The last usable line carries a negative step count; every later one a number bomb."""
    for what in ("a negative step count", "steps of 10^400", "1e999", "a 5,000-digit integer"):
        tried(what)
    report = json.dumps(REPORT)
    print(json.dumps({"claim": "gave_up", "message": report, "steps": -5}), flush=True)
    for line in (HUGE_LINE, INFINITE_LINE, DIGITS_LINE):
        print(line, flush=True)
    raise SystemExit(0)
