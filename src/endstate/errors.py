"""User-facing errors: each carries one line that names the file, field or value at fault."""

from __future__ import annotations


class EndstateError(Exception):
    """An error the CLI reports as one clear line (never a traceback)."""


class CorpusError(EndstateError):
    """A corpus cannot be read, parsed or trusted (lock mismatch)."""


class StateError(EndstateError):
    """A state document cannot be read as JSON."""


class JudgeError(EndstateError):
    """A judge call failed; its check stays ungraded."""
