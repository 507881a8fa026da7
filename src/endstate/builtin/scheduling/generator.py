"""The scheduling lab's corpus: the hand-written starter cards and, for every family, cards
drawn by its template from a seed, written and locked like any corpus endstate ships.

`endstate corpus scheduling --seed S` makes held-out sets: the same templates over another
draw. Splits are by template and policy version (docs/scheduling-lab.md), never by wording.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from endstate.builtin.generator import Generated, write_corpus
from endstate.builtin.scheduling.families import FAMILIES, draw
from endstate.corpus.lock import CorpusLock
from endstate.corpus.scheduling_cases import FORMAT
from endstate.envs.systems.scheduling.directory import directory
from endstate.envs.world import DEFAULT_CLOCK, DEFAULT_SEED

SCHEDULING_SEED = DEFAULT_SEED
PER_FAMILY = 25  # starters included
POLICY_VERSION = "2026.1"
STARTERS = Path(__file__).resolve().parent / "starters"


def starter_cards() -> list[Generated]:
    """The hand-written cards, two per family, as they are in `starters/<family>/`."""
    return [
        Generated(path.relative_to(STARTERS).as_posix(), json.loads(path.read_text()))
        for path in sorted(STARTERS.glob("*/*.json"))
    ]


def generate_cases(
    seed: int, per_family: int, world_seed: int = DEFAULT_SEED, clock: str = DEFAULT_CLOCK
) -> list[Generated]:
    """`per_family` drawn cards of each family for a seed (ids name the seed)."""
    found = directory(world_seed, clock)
    out: list[Generated] = []
    for family, (template, lookalike) in FAMILIES.items():
        rng = random.Random(f"scheduling-cases:{seed}:{family}")
        for n in range(1, per_family + 1):
            case_id = f"{family.replace('_', '-')}-s{seed}-{n:02d}"
            body = template(draw(found, rng, lookalike), rng)
            data = {
                "format": FORMAT,
                "case_id": case_id,
                "family": family,
                "language": "en",
                "policy_version": POLICY_VERSION,
                "template": f"gen:{family}/v1",
                **body,
                "world": {"seed": world_seed, "clock": clock},
            }
            out.append(Generated(f"{family}/{case_id}.json", data))
    return out


def generate_scheduling_corpus(
    seed: int,
    per_family: int,
    out: Path,
    *,
    name: str | None = None,
    force: bool = False,
    starters: bool = True,
) -> CorpusLock:
    """`endstate corpus scheduling`: starters (unless a held-out draw) and drawn cards, locked."""
    made = starter_cards() if starters else []
    drawn = per_family - (2 if starters else 0)
    made += generate_cases(seed, max(0, drawn))
    return write_corpus(
        made,
        out,
        name=name or f"endstate-scheduling-s{seed}",
        source=f"endstate corpus scheduling --seed {seed} --per-family {per_family}"
        + ("" if starters else " --no-starters"),
        stamp=f"{DEFAULT_CLOCK}+00:00",
        force=force,
    )
