"""Task ids the built-in corpus once shipped and has since retired (`retired.json`).

A published score, a baseline or a contamination register names tasks by id; an id that came
back naming other work would make an old record compare against a task it was never run on.
So the generator never issues a retired id again: the task that would have taken it is
numbered after every id the family has issued instead.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

RETIRED = Path(__file__).resolve().parent / "retired.json"


@cache
def retired_task_ids() -> frozenset[str]:
    """Every id any release of the built-in corpus (or its errands) has retired."""
    data = json.loads(RETIRED.read_text())
    return frozenset(i for release in data["retired"] for i in release["ids"])


def fresh_numbers(prefix: str, count: int) -> list[int]:
    """The numbers `count` tasks of one family take (`{prefix}-{n:03d}`): 1..count in place,
    but a retired id's place taken by the next number above `count` never retired."""
    gone = retired_task_ids()
    spare = count
    numbers: list[int] = []
    for n in range(1, count + 1):
        if f"{prefix}-{n:03d}" not in gone:
            numbers.append(n)
            continue
        spare += 1
        while f"{prefix}-{spare:03d}" in gone:
            spare += 1
        numbers.append(spare)
    return numbers
