"""Errands in the Personal Health Arena card's shape: 100 episodes over 50 patients, two per
patient from different archetypes, 398 legs in all, and the card's archetype counts.

The card (huggingface.co/datasets/wnkh/pha) as stored gives the totals and two archetype counts
(checking messages 20, new pharmacy 16); the other 64 episodes are spread over the remaining
five archetypes as evenly as they go (13, 13, 13, 13, 12) — an assumption until the card's
table is known. The ids carry a `c` (`pe4c-<seed>-NNN`), so they never collide with the mixed
set's ids of the same seed.

The built-in portal has 48 patients, not 50: the shape then keeps the card's episodes, legs
and archetype counts exactly, gives every patient two errands and the four episodes left over
to four of them as a third (always of another archetype), and says so (`CardShape.note`).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from endstate.builtin.errands.archetypes import ARCHETYPES, Archetype
from endstate.builtin.errands.chart import ChartView
from endstate.builtin.errands.generator import (
    FAMILY,
    ID_PREFIX,
    MAX_LEGS,
    MIN_LEGS,
    GoldTally,
    build_errand,
    world_charts,
)
from endstate.builtin.generator import Generated, GenerationError
from endstate.builtin.task_lint import require_clean
from endstate.envs.world import DEFAULT_CLOCK

CARD_PATIENTS, CARD_PER_PATIENT, CARD_LEGS = 50, 2, 398
CARD_KNOWN = {"checking-messages": 20, "new-pharmacy": 16}  # as the card lists them


def card_counts() -> dict[str, int]:
    """Episodes per archetype: the card's known counts, the rest spread evenly."""
    total = CARD_PATIENTS * CARD_PER_PATIENT
    rest = [a.id for a in ARCHETYPES if a.id not in CARD_KNOWN]
    left = total - sum(CARD_KNOWN.values())
    even = {a: left // len(rest) + (1 if i < left % len(rest) else 0) for i, a in enumerate(rest)}
    return {a.id: CARD_KNOWN.get(a.id, even.get(a.id, 0)) for a in ARCHETYPES}


def _reads_available(arch: Archetype, chart: ChartView, seed: int) -> int:
    """How many read legs this errand could draw for this patient (0: it does not fit)."""
    subject = arch.subject(chart, random.Random(f"{seed}:card:{arch.id}:{chart.patient.id}"))
    if subject is None:
        return 0
    return len({leg.name for leg in arch.pool(chart, subject) if leg is not None})


def _assign(seed: int, charts: list[ChartView]) -> list[tuple[Archetype, ChartView, int]]:
    """(archetype, patient, reads available) for every episode: scarce archetypes first, each
    to the patients it fits that have fewest episodes, never the same archetype twice."""
    counts = card_counts()
    target = min(CARD_PATIENTS, len(charts))
    fits = {
        (a.id, i): n
        for a in ARCHETYPES
        for i, c in enumerate(charts)
        if (n := _reads_available(a, c, seed)) >= MIN_LEGS - 1
    }
    order = sorted(ARCHETYPES, key=lambda a: sum(1 for (x, _) in fits if x == a.id))
    used: Counter[int] = Counter()
    out: list[tuple[Archetype, ChartView, int]] = []
    for arch in order:
        people = list(range(len(charts)))
        random.Random(f"{seed}:card:{arch.id}").shuffle(people)
        taken = {i for a, c, _ in out for i in [charts.index(c)] if a.id == arch.id}
        for _ in range(counts[arch.id]):
            fit = [i for i in people if (arch.id, i) in fits and i not in taken]
            open_ = [i for i in fit if used[i] < CARD_PER_PATIENT]
            if len(used) >= target:
                open_ = [i for i in open_ if i in used]
            # complete a pair before opening one; past two each, the least used first
            i = max(open_, key=lambda k: used[k]) if open_ else None
            if i is None and len(used) >= target:
                i = min((k for k in fit if k in used), key=lambda k: used[k], default=None)
            if i is None:
                raise GenerationError(f"card shape: too few patients fit errand {arch.id!r}")
            used[i] += 1
            taken.add(i)
            out.append((arch, charts[i], fits[(arch.id, i)]))
    if len(used) != target or min(used.values()) < CARD_PER_PATIENT:
        raise GenerationError(f"card shape: {len(used)} patients, not {target} with two each")
    return out


def _leg_counts(seed: int, most: list[int]) -> list[int]:
    """Legs per episode (3 to 6, and no more than its reads allow plus the write), seeded,
    summing to exactly CARD_LEGS."""
    rng = random.Random(f"{seed}:card:legs")
    top = [min(MAX_LEGS, m + 1) for m in most]
    legs = [rng.randint(MIN_LEGS, t) for t in top]
    while sum(legs) != CARD_LEGS:
        up = sum(legs) < CARD_LEGS
        can = [i for i, n in enumerate(legs) if (n < top[i] if up else n > MIN_LEGS)]
        if not can:
            raise GenerationError(f"card shape: {CARD_LEGS} legs cannot be drawn here")
        legs[rng.choice(can)] += 1 if up else -1
    return legs


def generate_card_errands(seed: int, clock: str = DEFAULT_CLOCK) -> list[Generated]:
    """The card's 100 episodes over the population of the world of `seed`."""
    pin, charts = world_charts(seed, clock)
    episodes = _assign(seed, charts)
    legs = _leg_counts(seed, [reads for _, _, reads in episodes])
    tally = GoldTally()
    drafts: list[dict[str, Any]] = []
    for (arch, chart, _), n in zip(episodes, legs, strict=True):
        rng = random.Random(f"{seed}:card:{arch.id}:{chart.patient.id}")
        data = build_errand(arch, chart, rng, pin, tally=tally, legs=n)
        if data is None:
            raise GenerationError(f"card shape: errand {arch.id!r} for {chart.patient.id} failed")
        drafts.append(data)
    random.Random(f"{seed}:card:ids").shuffle(drafts)
    out = []
    for k, data in enumerate(drafts, start=1):
        task_id = f"{ID_PREFIX}c-{seed}-{k:03d}"
        out.append(Generated(f"{FAMILY}/{task_id}.json", {"id": task_id, **data}))
    require_clean(out, "errand")
    return out
