"""Problems found in corpus files, each naming file, JSON path and reason."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel

from endstate.jsonfile import member

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
        out += f"[{part}]" if isinstance(part, int) else member(part)
    return out


# Task ids name files (`<id>.json` states), folders and URLs: nothing that can climb out of a
# folder, hide in a terminal or be empty.
SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+-]{0,199}")


def id_problem(file: str, path: str, value: str) -> Problem | None:
    """An error if a task id is unsafe to use as a file name, folder or URL part."""
    if SAFE_ID.fullmatch(value) and ".." not in value:
        return None
    return Problem(
        file=file,
        path=path,
        reason=f"unsafe task id {value[:60]!r}: use 1-200 letters, digits and . _ : @ + - "
        "(starting with a letter or digit, no '..')",
    )


def errors(problems: Sequence[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "error"]


def warnings(problems: Sequence[Problem]) -> list[Problem]:
    return [p for p in problems if p.severity == "warning"]
