"""Every string a generated task carries is filled in and reads as written text
(envs/world/text_lint.py): the instruction, the scenario label, the outcome and rationale, the
answer contract, each check's description and gold, what the reference types into the pages
and each mutation's account. A task with an empty field, stray or doubled spaces, an unfilled
`{placeholder}`, `None` or `nan` is never written — built-in task or errand; the problem names
the task and the field."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from endstate.builtin.generated import Generated, GenerationError
from endstate.envs.world.text_lint import string_problem
from endstate.errors import listed

# Step values the reference fills in may hold a captured value, `${conf}`: the trajectory's
# own placeholder, filled when the reference is replayed, and stays out of the lint.
_CAPTURE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def _strings(task: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(field path, value) of every generated string the lint reads."""
    for key in ("instruction", "scenario_label", "expected_outcome", "rationale", "record"):
        yield key, task.get(key)
    for i, given in enumerate(task.get("given", [])):
        yield f"given[{i}]", given
    for i, f in enumerate(task.get("answer_fields", [])):
        yield f"answer_fields[{i}].description", f.get("description")
    for i, check in enumerate(task.get("checks", [])):
        yield f"checks[{i}].description", check.get("description")
        gold = check.get("expected", check.get("expected_value"))
        if isinstance(gold, str):
            yield f"checks[{i}].expected", gold
        elif isinstance(gold, list):
            for j, item in enumerate(gold):
                yield f"checks[{i}].expected[{j}]", item
    for i, step in enumerate(task.get("reference", {}).get("steps", [])):
        for key in ("value", "option"):
            if isinstance(step.get(key), str):
                yield f"reference.steps[{i}].{key}", step[key]
    for i, m in enumerate(task.get("mutations", [])):
        yield f"mutations[{i}].why", m.get("why")


def task_problems(task: dict[str, Any]) -> list[str]:
    """Each string field of one generated task that is not filled in as text, named."""
    out: list[str] = []
    for path, value in _strings(task):
        if value is None:
            out.append(f"{task.get('id', '?')}: {path} is missing")
            continue
        if not isinstance(value, str):
            continue
        multiline = path.startswith("reference.steps")
        why = string_problem(_CAPTURE.sub("x", value), multiline=multiline)
        if why:
            out.append(f"{task.get('id', '?')}: {path} {why}: {value[:60]!r}")
    return out


def require_clean(tasks: Sequence[Generated], what: str = "task") -> None:
    """Refuse tasks whose strings are not filled in as text, naming each field."""
    found = [line for g in tasks for line in task_problems(g.data)]
    if found:
        raise GenerationError(
            f"{len(found)} {what} strings are not filled in as text:\n" + listed(found)
        )
