"""The scheduling lab's corpus: the hand-written starter cards and, for every family, cards
drawn by its template from a seed, written and locked like any corpus endstate ships.

`endstate corpus scheduling --seed S` makes held-out sets: the same templates over another
draw. Splits are by template and policy version (docs/scheduling-lab.md), never by wording.
A drawn case's id names its template version and its draw seed, so a case made by an older
version of a template never shares an id with a newer one; ids once shipped and since
replaced are retired (`retired.py`) and never written again.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from endstate.builtin.generator import Generated, GenerationError, write_corpus
from endstate.builtin.scheduling.audit import case_problems, world_directory
from endstate.builtin.scheduling.families import FAMILIES, draw
from endstate.builtin.scheduling.retired import retired_ids
from endstate.builtin.scheduling.text_lint import lint_world
from endstate.builtin.scheduling.violations import graded
from endstate.corpus.lock import CorpusLock
from endstate.corpus.scheduling_cases import FORMAT, parse_case
from endstate.envs.world import DEFAULT_CLOCK, DEFAULT_SEED

SCHEDULING_SEED = DEFAULT_SEED
PER_FAMILY = 25  # starters included
POLICY_VERSION = "2026.1"
TEMPLATE_VERSION = 3  # of every drawn family's template: in each drawn case's id
STARTERS = Path(__file__).resolve().parent / "starters"
SHOWN = 5  # problems listed in a generation error
SPREAD = "read_only_lookup"  # the family whose gold answers are read: spread evenly


def case_id(family: str, seed: int, n: int) -> str:
    return f"{family.replace('_', '-')}-v{TEMPLATE_VERSION}-s{seed}-{n:02d}"


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
    found = world_directory(world_seed, clock)
    refuse([str(hit) for hit in lint_world(found, world_seed)])
    out: list[Generated] = []
    for family, (template, lookalike) in FAMILIES.items():
        rng = random.Random(f"scheduling-cases:{seed}:{family}")
        for n in range(1, per_family + 1):
            made = case_id(family, seed, n)
            drawn = draw(found, rng, lookalike, n, spread=family == SPREAD)
            body = graded(template(drawn, rng))
            data = {
                "format": FORMAT,
                "case_id": made,
                "family": family,
                "language": "en",
                "policy_version": POLICY_VERSION,
                "template": f"gen:{family}/v{TEMPLATE_VERSION}",
                **body,
                "world": {"seed": world_seed, "clock": clock},
            }
            out.append(Generated(f"{family}/{made}.json", data))
    return audited(out)


def refuse(problems: list[str]) -> None:
    """Fail generation on any problem, naming the first few (each names its case and field)."""
    if problems:
        more = f" (and {len(problems) - SHOWN} more)" if len(problems) > SHOWN else ""
        raise GenerationError(
            f"{len(problems)} problem(s) in the scheduling cases: "
            + "; ".join(problems[:SHOWN])
            + more
        )


def audited(cards: list[Generated]) -> list[Generated]:
    """`cards`, once none has a problem and none takes a retired id."""
    retired = retired_ids()
    refuse(
        [f"{g.data['case_id']}: {p}" for g in cards for p in case_problems(g.data)]
        + [
            f"{g.data['case_id']}: {p.path}: {p.reason}"
            for g in cards
            for p in parse_case(g.path, str(g.data.get("family")), g.data)[1]
        ]
        + [f"{g.data['case_id']}: a retired case id" for g in cards if g.data["case_id"] in retired]
    )
    return cards


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
    made = audited(starter_cards()) if starters else []
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
