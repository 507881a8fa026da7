"""A lint over every string a scheduling case or its world shows: instructions, the user's
script, message bodies, notes, slot, provider and location labels. A template that renders
an empty value leaves a mark a reader sees at once (a blank, a doubled space, a stray
`{name}` or `None`) and an agent may trip over; generation refuses to write a case with one.

Rules (each hit names the case, the field and the rule):

- `empty`: a string with nothing in it, or a null where a value belongs;
- `edge space`: leading or trailing whitespace;
- `doubled space`: two spaces in a row, or a tab or line break inside a value;
- `space before punctuation`: ` ,` ` .` ` ;` ` :` ` )` ` !` ` ?` or `( ` (a blank fragment);
- `placeholder`: an unfilled `{...}`, or a rendered `None`, `nan`, `NaN`, `null` or
  `undefined` (a float NaN too).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import astuple, dataclass, fields
from typing import Any

from endstate.envs.systems.scheduling.directory import Directory

_DOUBLED = re.compile(r" {2}|[\t\r\n]")
_PUNCT = re.compile(r" [,.;:)!?]|\( ")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|\{\{|\}\}|\b(?:None|nan|NaN|null|undefined)\b")


@dataclass(frozen=True)
class Hit:
    where: str  # the case id, or world:<seed>
    field: str  # where in it: instruction, user.facts.date of birth, reference[3].arguments.body
    rule: str
    value: str

    def __str__(self) -> str:
        return f"{self.where}: {self.field}: {self.rule} ({self.value!r})"


def _text_rules(value: str) -> Iterator[str]:
    if not value.strip():
        yield "empty"
        return
    if value != value.strip():
        yield "edge space"
    if _DOUBLED.search(value):
        yield "doubled space"
    if _PUNCT.search(value):
        yield "space before punctuation"
    if _PLACEHOLDER.search(value):
        yield "placeholder"


def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every key and leaf value under `value`, with its dotted path."""
    if isinstance(value, dict):
        for key, inner in value.items():
            where = f"{path}.{key}" if path else str(key)
            yield f"{where} (key)", str(key)
            yield from _leaves(inner, where)
    elif isinstance(value, list | tuple):
        for n, inner in enumerate(value):
            yield from _leaves(inner, f"{path}[{n}]")
    else:
        yield path, value


def lint_value(where: str, value: Any, path: str = "") -> list[Hit]:
    """Hits in one JSON-like value (a card, a record)."""
    hits = []
    for field, leaf in _leaves(value, path):
        if leaf is None or (isinstance(leaf, float) and math.isnan(leaf)):
            rule = "empty" if leaf is None else "placeholder"
            hits.append(Hit(where, field, rule, repr(leaf)))
        elif isinstance(leaf, str):
            hits += [Hit(where, field, rule, leaf) for rule in _text_rules(leaf)]
    return hits


def lint_case(data: dict[str, Any]) -> list[Hit]:
    """Hits in one case card."""
    return lint_value(str(data.get("case_id") or "<no case_id>"), data)


def lint_world(directory: Directory, seed: int) -> list[Hit]:
    """Hits in the directory a case draws from: patients, providers, slots and locations."""
    where = f"world:{seed}"
    hits = []
    for group in ("patients", "providers", "slots"):
        for record in getattr(directory, group):
            names = [f.name for f in fields(record)]
            label = dict(zip(names, astuple(record), strict=True))
            hits += lint_value(where, label, f"{group}[{label['id']}]")
    for location_id, name in directory.locations:
        hits += lint_value(where, {"id": location_id, "name": name}, f"locations[{location_id}]")
    return hits
