"""Case ids the built-in scheduling corpus once shipped and has since replaced.

A baseline, a contamination register or a published score names cases by id; an id that
came back naming another case would make last week's record compare against a case it was
never run on. So a replaced case's id is retired here, with the sha256 its file last had and
why, and the generator refuses to write it again.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

RETIRED = Path(__file__).resolve().parent / "retired.json"


@cache
def retired() -> dict[str, dict[str, str]]:
    """Retired id -> {"sha256": its last file's hash, "why": the retirement's reason}."""
    data = json.loads(RETIRED.read_text())
    return {
        case: {"sha256": digest, "why": batch["why"]}
        for batch in data["batches"]
        for case, digest in batch["cases"].items()
    }


def retired_ids() -> frozenset[str]:
    return frozenset(retired())
