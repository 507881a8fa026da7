"""Every string of the world reads as written text (envs/world/text_lint.py): names, addresses,
plan and policy texts, notes, letters and reports, claim notes and histories. Generation fails
on an empty required field, a stray or doubled space, an unfilled placeholder or a `None`
where a value belongs, naming the record and the field."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import fields, is_dataclass
from typing import Any

from endstate.envs.world.model import World
from endstate.envs.world.text_lint import string_problem

# Fields a record may leave empty: a government plan has no group number, a coverage held by
# the member themself names no parent's birthday, a plan without appeal form or fax of its own.
OPTIONAL = frozenset(
    {
        ("Coverage", "group_number"),
        ("Coverage", "subscriber_birthday"),
        ("Plan", "appeals_fax"),
        ("Plan", "appeal_form"),
        ("Service", "site"),
    }
)
# Texts of several lines (documents, policies): each line is read alone, and their layout —
# an indented list, columns of a report's header set apart by runs of spaces — is not a slip.
MULTILINE = frozenset({("Document", "text"), ("PayerRule", "policy_text")})
_COLUMNS = re.compile(r"(?<=\S) {2,}(?=\S)")


def _laid_out(text: str) -> str:
    """A laid-out text as its words alone: indentation and column gaps taken out, so the lint
    reads what could really be wrong (a trailing space, a placeholder, a `None`)."""
    return "\n".join(_COLUMNS.sub(" ", line.lstrip(" ")) for line in text.split("\n"))


def text_problems(world: World) -> list[str]:
    out: list[str] = []
    for section in fields(world):
        value = getattr(world, section.name)
        if isinstance(value, list):
            for i, record in enumerate(value):
                out += list(_record(f"{section.name}[{i}]", record))
    return out


def _label(path: str, record: Any) -> str:
    key = next(
        (getattr(record, k) for k in ("id", "claim_id", "mrn", "npi") if hasattr(record, k)),
        None,
    )
    return f"{key} ({path})" if isinstance(key, str) else path


def _record(path: str, record: Any) -> Iterator[str]:
    if not is_dataclass(record):
        if isinstance(record, dict):  # a claim's history and notes
            for k, v in record.items():
                if isinstance(v, str) and (why := string_problem(v)):
                    yield f"{path}.{k} {why}: {v[:60]!r}"
        return
    kind = type(record).__name__
    for f in fields(record):
        value = getattr(record, f.name)
        if isinstance(value, str):
            multiline = (kind, f.name) in MULTILINE
            why = string_problem(
                _laid_out(value) if multiline else value,
                required=(kind, f.name) not in OPTIONAL,
                multiline=multiline,
            )
            if why:
                yield f"{_label(path, record)} field {f.name} {why}: {value[:60]!r}"
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, str):
                    if why := string_problem(item):
                        yield f"{_label(path, record)} field {f.name}[{i}] {why}: {item[:60]!r}"
                else:
                    yield from _record(f"{_label(path, record)}.{f.name}[{i}]", item)
