"""Decoding JSON files that may be hostile: every way one can be bad is one clear reason.

Python's decoder raises four different exceptions for bad input (and RecursionError or
ValueError are not even JSON errors), accepts NaN, Infinity and numbers that overflow to
infinity, keeps the last of duplicate keys without a word, and returns strings holding lone
surrogates that cannot be written back out. Task files are held to the strict reading (any of
those refused); end states to the benchmark's own (Python's), except where the document is
ambiguous (duplicate keys) or cannot be represented at all.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

MAX_TASK_DEPTH = 64  # far beyond any real task file; deep enough to be a bomb, not a task


class JsonRefused(ValueError):
    """The document cannot be used: `reason` says why, `path` (a JSON path) where, if known."""

    def __init__(self, reason: str, path: str = "$") -> None:
        super().__init__(f"{path}: {reason}" if path != "$" else reason)
        self.reason = reason
        self.path = path if len(path) <= 80 else path[:79] + "…"


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise JsonRefused(f"duplicate key {printable(key)!r} in one object")
        obj[key] = value
    return obj


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonRefused(f"number {text[:40]} is too large for a float")
    return value


def _no_constant(name: str) -> Any:
    raise JsonRefused(f"{name} is not a JSON number")


def decode(raw: bytes, *, strict: bool) -> Any:
    """Decode one document. `strict` (task files) also refuses non-finite numbers, lone
    surrogates and nesting deeper than MAX_TASK_DEPTH."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise JsonRefused(f"not valid UTF-8 text (byte {exc.start})") from None
    hooks: dict[str, Any] = {"object_pairs_hook": _no_duplicates}
    if strict:
        hooks |= {"parse_float": _finite_float, "parse_constant": _no_constant}
    try:
        data = json.loads(text, **hooks)
    except JsonRefused:
        raise
    except json.JSONDecodeError as exc:
        raise JsonRefused(
            f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise JsonRefused("nested too deeply to read") from None
    except ValueError as exc:  # Python's own limits, e.g. an integer of over 4,300 digits
        raise JsonRefused(f"unreadable number: {str(exc).split(';')[0]}") from None
    if strict:
        _inspect(data)
    return data


def _inspect(data: Any) -> None:
    """Depth and text of a decoded task document, walked without recursion."""
    stack: list[tuple[Any, int, str]] = [(data, 1, "$")]
    while stack:
        value, depth, where = stack.pop()
        if depth > MAX_TASK_DEPTH:
            raise JsonRefused(f"nested deeper than {MAX_TASK_DEPTH} levels", where)
        if isinstance(value, str):
            if not _encodable(value):
                raise JsonRefused("text holds a lone surrogate (not valid Unicode)", where)
        elif isinstance(value, dict):
            for key, item in value.items():
                if not _encodable(key):
                    raise JsonRefused("a key holds a lone surrogate (not valid Unicode)", where)
                stack.append((item, depth + 1, where + member(key)))
        elif isinstance(value, list):
            stack.extend((item, depth + 1, f"{where}[{i}]") for i, item in enumerate(value))


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")


def member(key: str) -> str:
    """One step of a JSON path: `.name` for a plain name, else `["…"]` with every control
    character, quote and surrogate escaped, so a path always prints as one honest line."""
    if _NAME.fullmatch(key):
        return f".{key}"
    shown = key if len(key) <= 40 else key[:39] + "…"
    return "[" + json.dumps(shown) + "]"


def printable(text: str) -> str:
    """Text safe to print or write as UTF-8: lone surrogates shown as escapes, never raised on."""
    if text.isascii() or _encodable(text):  # isascii: a flag CPython keeps, read at once
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
