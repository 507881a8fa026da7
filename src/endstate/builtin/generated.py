"""What generating a corpus yields, and how it refuses: kept apart from the generator so the
checks it runs on what it made (task_lint.py) need not import it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from endstate.errors import EndstateError


class GenerationError(EndstateError):
    """The world cannot supply the tasks asked for."""


@dataclass
class Generated:
    """One generated task: where it goes in the corpus, and its file content."""

    path: str
    data: dict[str, Any]

    def text(self) -> str:
        return json.dumps(self.data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
