"""Problems found in corpus files, each naming file, JSON path and reason."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel

Severity = Literal["error", "warning"]


class Problem(BaseModel):
    """One thing wrong with one place in one file."""

    file: str
    path: str = "$"
    reason: str
    severity: Severity = "error"

    def line(self) -> str:
        return f"{self.file}: {self.path}: {self.reason}"


def json_path(loc: Iterable[int | str], root: str = "$") -> str:
    """Render a pydantic-style location tuple as a JSON path (`$.evals[2].query`)."""
    out = root
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def errors(problems: Sequence[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


def warnings(problems: Sequence[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "warning"]
