"""Every string the population holds is filled in and reads as written text: no empty required
field, no leading, trailing or doubled spaces, no template placeholder left unfilled
(`{first}`), no `None` or `nan` where a value should be. The same lint runs over the errands
(builtin/task_lint.py)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from datetime import date
from functools import cache
from typing import Any

from endstate.envs.systems.patient_portal.model import Population
from endstate.envs.world.text_lint import string_problem

# Fields allowed to be empty: a urine test strip's result has no units, a government plan no
# group number.
OPTIONAL = frozenset({("LabTest", "units"), ("Insurance", "group_number")})
# Fields whose text runs over several lines (a message body): each line is linted alone.
MULTILINE = frozenset({("Message", "body")})


def _label(record: Any) -> str:
    who = getattr(record, "patient_id", None)
    key = getattr(record, "id", None) or getattr(record, "loinc", None) or record.seq
    head = f"{who} " if who and who != key else ""
    return f"{head}{type(record).__name__.lower()} {key}"


@cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def record_problems(record: Any) -> Iterator[str]:
    """Each string field of one record that is not filled in as text, named."""
    cls: type = type(record)
    assert is_dataclass(cls)
    kind = cls.__name__
    for name in _names(cls):
        value = getattr(record, name)
        if not isinstance(value, str):
            continue
        why = string_problem(
            value,
            required=(kind, name) not in OPTIONAL,
            multiline=(kind, name) in MULTILINE,
        )
        if why:
            yield f"{_label(record)} field {name} {why}: {value[:60]!r}"


def problems(pop: Population, today: date) -> list[str]:
    return [
        line
        for f in fields(pop)
        for record in getattr(pop, f.name)
        for line in record_problems(record)
    ]
