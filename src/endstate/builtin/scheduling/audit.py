"""Everything a scheduling case is checked for before it is written or validated, apart from
replaying it: its strings (`text_lint`), the times its words name (`times_named`) and, for
a disambiguation, that it needs one (`identity`). Each problem names the field it is in."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from endstate.builtin.scheduling.identity import identity_problems
from endstate.builtin.scheduling.text_lint import lint_value
from endstate.builtin.scheduling.times_named import time_problems
from endstate.envs.systems.scheduling.directory import Directory, directory


@lru_cache(maxsize=8)
def world_directory(seed: int, clock: str) -> Directory:
    return directory(seed, clock)


def case_problems(card: Mapping[str, Any]) -> list[str]:
    """The problems of one case card (as its JSON reads), against the world it names."""
    world = card.get("world") or {}
    found = world_directory(int(world["seed"]), str(world["clock"]))
    lint = [
        f"{hit.field}: {hit.rule} ({hit.value!r})"
        for hit in lint_value(str(card.get("case_id")), dict(card))
    ]
    return lint + time_problems(card, found, str(world["clock"])) + identity_problems(card, found)
