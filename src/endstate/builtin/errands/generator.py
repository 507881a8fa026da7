"""Generate patient errands: archetypes × patients of the portal's population, 3–6 legs each.

A pure function of (seed, count, clock), like the built-in corpus: every choice comes from a
`random.Random` keyed by the seed and what it chooses for. Errands spread over the archetypes
evenly and over patients as widely as the count allows (the least-used fitting patient first).
Each errand draws a seeded number of legs (3–6, the write last) from its archetype's pool, in
seeded order, and only legs that resolve against that patient's record.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import asdict
from functools import lru_cache
from typing import Any

from endstate.builtin.errands.actions import WriteLeg, collateral_harm, sign_in
from endstate.builtin.errands.archetypes import ARCHETYPES, Archetype
from endstate.builtin.errands.chart import ChartView
from endstate.builtin.errands.legs import ReadLeg
from endstate.builtin.generator import Generated, GenerationError
from endstate.builtin.task_lint import require_clean
from endstate.builtin.templates.common import Mutation, Traj
from endstate.corpus.native import FORMAT
from endstate.envs.systems.patient_portal.checks import IncoherentPopulation
from endstate.envs.systems.patient_portal.model import Population
from endstate.envs.systems.patient_portal.population import population
from endstate.envs.world import DEFAULT_CLOCK, generate_world
from endstate.scoring.answer_match import normalize_text

FAMILY = "patient_errands"
# The errands' version, carried in every id (pe2-<seed>-001): bumped whenever a seed's
# errands change what they ask, what their golds are or the world they pin, so an id once
# published is retired, never reused for another errand (a baseline keyed by id cannot
# compare two different tasks).
# 1: pe-<seed>-NNN; 2: the population follows the payer and clinical rules, instructions
# never spell out the look-alike they ask the agent to find; 3: exclusive write legs (no
# collateral harm), messages graded on the facts they carry, golds no constant can guess
# (the normal-range leg replaced by a result count), lab values within their printed rounding;
# 4: the same errands pinned to world generator 8 (the portal population is unchanged).
ERRANDS_VERSION = 4
ID_PREFIX = f"pe{ERRANDS_VERSION}"
MIN_LEGS, MAX_LEGS = 3, 6
TIER_BY_LEGS = {3: "easy", 4: "medium", 5: "hard", 6: "hard"}
START = "/home"


@lru_cache(maxsize=4)
def population_sha256_for(seed: int, clock: str) -> str:
    """The hash of the population of (seed, clock), computed once: validation asks per errand."""
    return population_sha256(population(seed, clock))


def population_sha256(pop: Population) -> str:
    """The population's content hash: an errand's gold answers are only true of these rows."""
    body = json.dumps(asdict(pop), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()


class GoldTally:
    """How often each read field's gold has been drawn so far, so no field's gold becomes a
    constant a blind answerer could guess: a leg is drawn only while its gold stays at most
    a third of its field's legs (or, under three legs, differs from every other)."""

    def __init__(self) -> None:
        self.golds: dict[str, Counter[str]] = {}

    def allows(self, leg: ReadLeg) -> bool:
        seen = self.golds.get(leg.field, Counter())
        return seen[gold_key(leg.expected)] + 1 <= max(1, (seen.total() + 1) // GOLD_SHARE)

    def add(self, legs: list[ReadLeg]) -> None:
        for leg in legs:
            self.golds.setdefault(leg.field, Counter())[gold_key(leg.expected)] += 1


GOLD_SHARE = 3  # no gold may be more than 1/GOLD_SHARE of its field's legs


def gold_key(gold: Any) -> str:
    """A gold as a constant answer would hit it: text normalised, a list as a set."""
    if isinstance(gold, list):
        items = sorted({normalize_text(str(x)) for x in gold} - {"", "none"})
        return json.dumps(items)
    if isinstance(gold, str):
        return normalize_text(gold)
    return json.dumps(round(float(gold), 6))


def _draft_legs(
    arch: Archetype,
    chart: ChartView,
    subject: Any,
    rng: random.Random,
    must: str | None,
    tally: GoldTally,
    legs: int | None = None,
) -> list[ReadLeg] | None:
    every = list({leg.name: leg for leg in arch.pool(chart, subject) if leg is not None}.values())
    pool = [leg for leg in every if leg.name == must or tally.allows(leg)]
    if legs is not None and len(pool) < legs - 1:  # a set number of legs: variety yields
        pool += [leg for leg in every if leg not in pool][: legs - 1 - len(pool)]
    if len(pool) < (legs or MIN_LEGS) - 1:
        return None
    n = legs or rng.randint(MIN_LEGS, min(MAX_LEGS, len(pool) + 1))
    drawn = rng.sample(pool, n - 1)
    if must is not None and must not in [leg.name for leg in drawn]:
        wanted = [leg for leg in pool if leg.name == must]
        if not wanted:
            return None
        drawn[rng.randrange(len(drawn))] = wanted[0]
    return drawn


def _instruction(arch: Archetype, chart: ChartView, subject: Any, reads: list[ReadLeg]) -> str:
    p = chart.patient
    parts = [
        f"Hi, this is {p.first} {p.last}.",
        arch.reason(chart, subject),
        *[leg.ask for leg in reads],
        arch.action_ask(chart, subject),
        f"You can sign in to my patient portal as {p.username} with the password {p.password}.",
    ]
    return " ".join(parts)


def _mutations(
    traj: Traj, reads: list[ReadLeg], answer: dict[str, Any], write: WriteLeg, chart: ChartView
) -> list[Mutation]:
    done = len(traj.steps) - 1
    out = [
        Mutation(
            f"wrong-{leg.field}",
            "wrong-value",
            f"{leg.field} answered {leg.wrong!r} instead of {leg.expected!r}",
            [{"op": "replace", "at": done, "step": _done({**answer, leg.field: leg.wrong})}],
        )
        for leg in reads
    ]
    out.append(
        Mutation(
            "no-answer",
            "wrong-value",
            "the final message says it is done but holds no JSON answer",
            [{"op": "replace", "at": done, "step": {"type": "done", "message": "All done."}}],
        )
    )
    last_write = max(traj.writes)
    out.append(Mutation("drop-write", "drop-step", "the write is never made", [_drop(last_write)]))
    if write.lookalike:
        out.append(Mutation("look-alike", "look-alike", write.lookalike_why, write.lookalike))
    if write.vague:
        why = "the message goes to the right person but says nothing the errand needs"
        out.append(Mutation("vague-message", "wrong-value", why, write.vague))
    out.append(
        Mutation(
            "collateral-harm",
            "wrong-action",
            "the errand is done and answered right, but every other upcoming appointment is "
            "cancelled, the pharmacy changed (where the errand does not change it) and a "
            "nonsense message sent as well",
            [{"op": "insert", "at": done, "steps": _harm(chart, write)}],
        )
    )
    return out


def _harm(chart: ChartView, write: WriteLeg) -> list[dict[str, Any]]:
    """The collateral-harm steps for this errand: they spare what the errand itself changes."""
    first = write.check["expect"][0]
    spared = {first["match"]["id"]} if write.name == "appointment_cancelled" else set()
    return collateral_harm(chart, spared, pharmacy=write.name != "pharmacy_changed")


def _done(answer: dict[str, Any]) -> dict[str, Any]:
    return {"type": "done", "message": json.dumps(answer, ensure_ascii=False)}


def _drop(at: int) -> dict[str, Any]:
    return {"op": "drop", "at": at}


def build_errand(
    arch: Archetype,
    chart: ChartView,
    rng: random.Random,
    pin: dict[str, Any],
    must: str | None = None,
    tally: GoldTally | None = None,
    legs: int | None = None,
) -> dict[str, Any] | None:
    """One errand's native task data (without its id), or None where it does not resolve;
    `must` names a leg it has to draw, `legs` how many legs it has (default: a seeded 3–6)."""
    subject = arch.subject(chart, rng)
    if subject is None:
        return None
    tally = tally if tally is not None else GoldTally()
    reads = _draft_legs(arch, chart, subject, rng, must, tally, legs)
    if reads is None:
        return None
    tally.add(reads)
    traj = Traj()
    sign_in(traj, chart.patient.username, chart.patient.password)
    write = arch.act(traj, chart, subject, rng)
    answer = {leg.field: leg.expected for leg in reads}
    traj.add(_done(answer))
    legs = len(reads) + 1
    return {
        "format": FORMAT,
        "instruction": _instruction(arch, chart, subject, reads),
        "family": FAMILY,
        "scenario_label": arch.title,
        "start": {"system": "patient_portal", "path": START},
        "tier": TIER_BY_LEGS[legs],
        "answer_fields": [{"name": leg.field, "description": leg.describe} for leg in reads],
        "checks": [*(leg.check() for leg in reads), write.check],
        "expected_outcome": f"{legs} legs: {', '.join([*(r.name for r in reads), write.name])}",
        "rationale": f"errand '{arch.id}' for patient {chart.patient.id}",
        "template_id": f"errand.{arch.id}",
        "world": pin,
        "reference": {"steps": traj.steps, "consequential": sorted(traj.writes)},
        "mutations": [m.dump() for m in _mutations(traj, reads, answer, write, chart)],
        "given": [chart.patient.username],
        "record": chart.patient.id,
    }


def _hardest(arch: Archetype, charts: list[ChartView]) -> int | None:
    """The patient whose record makes this errand's page hardest (ties: the first)."""
    if arch.hardest is None:
        return None
    key = arch.hardest[0]
    return max(range(len(charts)), key=lambda i: (key(charts[i]), -i))


def _per_archetype(count: int) -> dict[str, int]:
    n = len(ARCHETYPES)
    return {a.id: count // n + (1 if i < count % n else 0) for i, a in enumerate(ARCHETYPES)}


def world_charts(seed: int, clock: str) -> tuple[dict[str, Any], list[ChartView]]:
    """The world pin errands carry, and every patient's chart, for the world of `seed`."""
    world = generate_world(seed, clock)
    try:
        pop = population(world.seed, world.clock)
    except IncoherentPopulation as e:
        raise GenerationError(str(e)) from None
    pin = {
        "id": world.id,
        "sha256": world.sha256,
        "seed": world.seed,
        "clock": world.clock,
        "population_sha256": population_sha256(pop),
    }
    return pin, [ChartView(pop, p, world.clock) for p in pop.patients]


def generate_errands(seed: int, count: int, clock: str = DEFAULT_CLOCK) -> list[Generated]:
    """`count` errands over the population of the world of `seed`."""
    if count < 1:
        raise GenerationError("count must be at least 1")
    pin, charts = world_charts(seed, clock)
    used: Counter[str] = Counter()
    tally = GoldTally()
    drafts: list[tuple[str, str, dict[str, Any]]] = []
    wanted = _per_archetype(count)
    for arch in ARCHETYPES:
        want = wanted[arch.id]
        order = list(range(len(charts)))
        random.Random(f"{seed}:errand:{arch.id}").shuffle(order)
        order.sort(key=lambda i: used[charts[i].patient.id])
        hardest = _hardest(arch, charts)
        if hardest is not None:
            order.remove(hardest)
            order.insert(0, hardest)
        made = 0
        for i in order:
            if made == want:
                break
            chart = charts[i]
            rng = random.Random(f"{seed}:errand:{arch.id}:{chart.patient.id}")
            must = arch.hardest[1] if arch.hardest is not None and i == hardest else None
            data = build_errand(arch, chart, rng, pin, must, tally)
            if data is not None:
                used[chart.patient.id] += 1
                drafts.append((arch.id, chart.patient.id, data))
                made += 1
        if made < want:
            raise GenerationError(
                f"errand {arch.id!r}: only {made} patients fit, {want} asked; "
                "use a smaller --count or another --seed"
            )
    drafts.sort(key=lambda d: (d[0], d[1]))
    random.Random(f"{seed}:errand-ids").shuffle(drafts)
    out = []
    for n, (_, _, data) in enumerate(drafts, start=1):
        task_id = f"{ID_PREFIX}-{seed}-{n:03d}"
        out.append(Generated(f"{FAMILY}/{task_id}.json", {"id": task_id, **data}))
    require_clean(out, "errand")
    return out
