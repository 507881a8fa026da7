"""Every string an errand carries is filled in and reads as written text (the portal
population's own lint: patient_portal/checks/text.py): the instruction, the scenario label,
the answer contract, each leg's question and gold, what the reference types into the pages
and each mutation's account. An errand with an empty field, stray or doubled spaces, an
unfilled `{placeholder}`, `None` or `nan` is never written; the problem names the task and
the field."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from endstate.envs.systems.patient_portal.checks.text import string_problem

# Step values the reference fills in may hold the captured origin, `${pp}`: it is the trace's
# own placeholder, filled when the reference is replayed, and stays out of the lint.
_CAPTURE = "${pp}"


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
        gold = check.get("expected")
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


def errand_problems(task: dict[str, Any]) -> list[str]:
    """Each string field of one errand that is not filled in as text, named."""
    out: list[str] = []
    for path, value in _strings(task):
        if value is None:
            out.append(f"{task.get('id', '?')}: {path} is missing")
            continue
        if not isinstance(value, str):
            continue
        multiline = path.startswith("reference.steps")
        why = string_problem(value.replace(_CAPTURE, ""), multiline=multiline)
        if why:
            out.append(f"{task.get('id', '?')}: {path} {why}: {value[:60]!r}")
    return out
