"""One generated string, read as written text: filled in, no leading, trailing or doubled
spaces, no line break in a one-line field, no template placeholder left unfilled
(`{first}`), no `None` or `nan` where a value should be. Every generator of the suite runs it
over what it writes — the world, the portal's population, the errands, the built-in tasks —
and fails on a hit, naming the record and the field."""

from __future__ import annotations

import re

_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_NULLISH = re.compile(r"\b(?:None|nan|NaN|null|undefined)\b")
# Anything any rule below could object to: most strings are clean, and skip the rest at once.
_SUSPECT = re.compile(r"^\s|\s$|  |[\n\r\t]|\{[^{}]*\}|\b(?:None|nan|NaN|null|undefined)\b")


def string_problem(value: str, *, required: bool = True, multiline: bool = False) -> str | None:
    """What is wrong with one generated string, or None when it reads as written text."""
    if value == "":
        return "is empty" if required else None
    if not _SUSPECT.search(value):
        return None
    if value != value.strip():
        return "has leading or trailing white space"
    lines = value.split("\n") if multiline else [value]
    if not multiline and ("\n" in value or "\r" in value or "\t" in value):
        return "has a line break or tab in a one-line field"
    for line in lines:
        if line != line.rstrip() or line != line.lstrip(" "):
            return "has a line with leading or trailing spaces"
        if "  " in line:
            return "has a doubled space"
    found = _PLACEHOLDER.search(value)
    if found:
        return f"has an unfilled placeholder {found.group()}"
    found = _NULLISH.search(value)
    if found:
        return f"has {found.group()!r} where a value belongs"
    return None
