"""Generate a corpus: a fresh world from a seed, and tasks over it from the templates.

Everything is a pure function of (seed, count, clock): every random choice comes from a
`random.Random` keyed by the seed and what it is choosing for, files are written with sorted
keys, and the lock's timestamp is the world's pinned clock — so the same seed gives
byte-identical files, and a different seed gives a different world and different records.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from endstate.builtin.generated import Generated as Generated
from endstate.builtin.generated import GenerationError as GenerationError
from endstate.builtin.retired import fresh_numbers
from endstate.builtin.task_lint import require_clean
from endstate.builtin.templates import (
    BUILTIN_TEMPLATES,
    FAMILIES,
    FAMILY_WEIGHTS,
    TIERS,
    TaskTemplate,
    task_templates,
)
from endstate.builtin.templates.common import Draft, WorldView
from endstate.corpus.lock import LOCK_NAME, CorpusLock, Split, hash_tree, tree_hash
from endstate.corpus.native import FORMAT
from endstate.envs.world import DEFAULT_CLOCK, GENERATOR_VERSION, generate_world
from endstate.errors import EndstateError

# Ids name the family, the seed and the world generator (`pa-20260302-g8-013`): a task made
# again under another generator is another task, never the old id with a new meaning.
ID_PREFIX = {"prior_auth": "pa", "appeals_denials": "dn", "dme": "dme"}
Cell = tuple[str, str]  # (family, tier)


def world_seed_for(seed: int) -> int:
    """The world a corpus seed runs on. The identity, so `--world-seed` is the same number."""
    return seed


def allocate(count: int) -> dict[Cell, int]:
    """Tasks per (family, tier): families 4:4:1 by largest remainder, tiers 1:1:1 within.

    A family's leftover tasks go to a different tier for each family, so the tier totals
    stay as equal as the count allows.
    """
    if count < 1:
        raise GenerationError("count must be at least 1")
    total = sum(FAMILY_WEIGHTS.values())
    exact = {f: count * FAMILY_WEIGHTS[f] / total for f in FAMILIES}
    per_family = {f: int(exact[f]) for f in FAMILIES}
    left = count - sum(per_family.values())
    for f in sorted(FAMILIES, key=lambda f: (-(exact[f] - per_family[f]), FAMILIES.index(f))):
        if left == 0:
            break
        per_family[f] += 1
        left -= 1
    cells: dict[Cell, int] = {}
    for i, family in enumerate(FAMILIES):
        n = per_family[family]
        for j, tier in enumerate(TIERS):
            cells[(family, tier)] = n // len(TIERS) + (1 if (j - i) % len(TIERS) < n % 3 else 0)
    return cells


def _quotas(
    cell: Sequence[TaskTemplate], n: int, available: dict[str, int], where: str
) -> dict[str, int]:
    quota = {t.id: 0 for t in cell}
    while n:
        progressed = False
        for t in cell:
            if n and quota[t.id] < available[t.id]:
                quota[t.id] += 1
                n -= 1
                progressed = True
        if not progressed:
            have = ", ".join(f"{t.id}: {available[t.id]}" for t in cell)
            raise GenerationError(
                f"{where}: the world has too few fitting records ({have}); "
                "use a smaller --count or another --seed"
            )
    return quota


def _task_data(
    draft: Draft, template: TaskTemplate, view: WorldView, task_id: str
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "id": task_id,
        "instruction": draft.instruction,
        "family": template.family,
        "scenario_label": draft.scenario_label,
        "start": {"system": draft.start_system, "path": draft.start_path},
        "tier": template.tier,
        "checks": draft.checks,
        "expected_outcome": draft.expected_outcome,
        "rationale": draft.rationale,
        "template_id": template.id,
        "world": view.pinned,
        "reference": {
            "steps": draft.traj.steps,
            "consequential": sorted(draft.traj.writes),
        },
        "mutations": [m.dump() for m in draft.mutations],
        "given": draft.given,
        "record": draft.key,
        "answer_key": draft.answer,
    }


def chosen_templates(only: Sequence[str] = ()) -> list[TaskTemplate]:
    """Every registered task template, or those `only` names (each must be registered)."""
    registered = task_templates()
    unknown = [i for i in only if i not in registered]
    if unknown:
        raise GenerationError(
            f"unknown task template {unknown[0]!r} (registered: {', '.join(sorted(registered))})"
        )
    return [registered[i] for i in dict.fromkeys(only)] if only else list(registered.values())


def _cells(templates: Sequence[TaskTemplate], count: int, narrowed: bool) -> dict[Cell, int]:
    """Tasks per (family, tier): the family weights, or, for named templates, evenly over theirs."""
    if not narrowed:
        return allocate(count)
    if count < 1:
        raise GenerationError("count must be at least 1")
    keys = sorted(
        {(t.family, t.tier) for t in templates},
        key=lambda k: (FAMILIES.index(k[0]), TIERS.index(k[1])),
    )
    return {k: count // len(keys) + (1 if i < count % len(keys) else 0) for i, k in enumerate(keys)}


def generate(
    seed: int, count: int, clock: str = DEFAULT_CLOCK, only: Sequence[str] = ()
) -> list[Generated]:
    """K tasks over the world of `seed`, spread over templates by family and tier."""
    templates = chosen_templates(only)
    world = generate_world(world_seed_for(seed), clock)
    view = WorldView(world)
    used: set[str] = set()
    drafts: dict[str, list[tuple[TaskTemplate, Draft]]] = {f: [] for f in FAMILIES}
    for (family, tier), n in _cells(templates, count, bool(only)).items():
        if n == 0:
            continue
        cell = sorted((t for t in templates if (t.family, t.tier) == (family, tier)), key=_id)
        pools: dict[str, list[str]] = {}
        for t in cell:
            pool = sorted(set(t.candidates(view)))
            random.Random(f"{seed}:{t.id}").shuffle(pool)
            pools[t.id] = pool
        quota = _quotas(cell, n, {k: len(v) for k, v in pools.items()}, f"{family}/{tier}")
        for t in cell:
            fresh = [k for k in pools[t.id] if k not in used]
            chosen = (fresh + [k for k in pools[t.id] if k in used])[: quota[t.id]]
            for key in chosen:
                used.add(key)
                rng = random.Random(f"{seed}:{t.id}:{key}")
                drafts[family].append((t, t.build(view, key, rng)))
    out: list[Generated] = []
    for family in FAMILIES:
        items = sorted(drafts[family], key=lambda x: (x[0].id, x[1].key))
        # Ids are numbered after a shuffle: neither the id nor its position tells the template.
        random.Random(f"{seed}:ids:{family}").shuffle(items)
        prefix = f"{ID_PREFIX[family]}-{seed}-g{GENERATOR_VERSION}"
        for n, (template, draft) in zip(fresh_numbers(prefix, len(items)), items, strict=True):
            task_id = f"{prefix}-{n:03d}"
            data = _task_data(draft, template, view, task_id)
            out.append(Generated(f"{family}/{task_id}.json", data))
    require_clean(out)
    return out


def _source(seed: int, count: int, only: Sequence[str]) -> str:
    """The command that makes the corpus again, and any task templates not endstate's own."""
    command = f"endstate corpus generate --seed {seed} --count {count}"
    command += "".join(f" --template {i}" for i in only)
    builtin = {t.id for t in BUILTIN_TEMPLATES}
    foreign = sorted(t.id for t in chosen_templates(only) if t.id not in builtin)
    if foreign:
        command += f" (with task templates from installed packages: {', '.join(foreign)})"
    return command


def _id(t: TaskTemplate) -> str:
    return t.id


def write_corpus(
    tasks: Sequence[Generated],
    out: Path,
    *,
    name: str,
    source: str,
    stamp: str,
    force: bool = False,
    split: Split | None = None,
) -> CorpusLock:
    """Write the task files and a lock pinning them; refuses a non-empty directory unless forced."""
    if out.exists() and any(out.iterdir()):
        if not force:
            raise EndstateError(f"{out}: already exists and is not empty (use --force to replace)")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    for task in tasks:
        path = out / task.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(task.text(), encoding="utf-8")
    files = hash_tree(out)
    lock = CorpusLock(
        name=name,
        source=source,
        imported_at=stamp,
        files=files,
        tree_hash=tree_hash(files),
        split=split,
    )
    text = lock.model_dump_json(indent=2, exclude_none=True) + "\n"
    (out / LOCK_NAME).write_text(text, encoding="utf-8")
    return lock


def generate_corpus(
    seed: int,
    count: int,
    out: Path,
    *,
    name: str | None = None,
    force: bool = False,
    only: Sequence[str] = (),
) -> CorpusLock:
    """`endstate corpus generate`: tasks for a seed, written and locked."""
    tasks = generate(seed, count, only=only)
    clock = tasks[0].data["world"]["clock"] if tasks else DEFAULT_CLOCK
    return write_corpus(
        tasks,
        out,
        name=name or f"endstate-generated-s{seed}",
        source=_source(seed, count, only),
        stamp=f"{clock}+00:00",
        force=force,
    )
