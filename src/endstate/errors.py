"""User-facing errors: each carries one line that names the file, field or value at fault."""

from __future__ import annotations

from pydantic import ValidationError


def first_problem(exc: ValidationError) -> str:
    """A validation error as one line, `field.path: message`, naming its first problem (`$`:
    the document itself)."""
    first = exc.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or "$"
    return f"{loc}: {first['msg']}"


def listed(lines: list[str], shown: int = 30) -> str:
    """Problems one per line, the first `shown` of them, then how many more there are: a
    generator refusing its output names every fault it can without flooding the screen."""
    more = f"\n... and {len(lines) - shown} more" if len(lines) > shown else ""
    return "\n".join(lines[:shown]) + more


class EndstateError(Exception):
    """An error the CLI reports as one clear line (never a traceback)."""


class CorpusError(EndstateError):
    """A corpus cannot be read, parsed or trusted (lock mismatch)."""


class StateError(EndstateError):
    """A state document cannot be read as JSON."""


class JudgeError(EndstateError):
    """A judge call failed; its check stays ungraded."""
