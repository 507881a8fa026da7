"""`endstate corpus errands`: a seed's errands in the shape asked for, written and locked —
the usual mix over the archetypes (generator.py) or the dataset card's shape (shape.py)."""

from __future__ import annotations

from pathlib import Path

from endstate.builtin.errands.generator import generate_errands
from endstate.builtin.errands.shape import generate_card_errands
from endstate.builtin.generator import GenerationError, write_corpus
from endstate.corpus.lock import CorpusLock

SHAPES = ("mix", "card")


def generate_errand_corpus(
    seed: int,
    count: int,
    out: Path,
    *,
    name: str | None = None,
    force: bool = False,
    shape: str = "mix",
) -> CorpusLock:
    """`endstate corpus errands`: errands for a seed, written and locked. `shape` "mix" is
    `count` errands spread over the archetypes; "card" the Personal Health Arena card's
    (`shape.py`; `count` does not apply)."""
    if shape not in SHAPES:
        raise GenerationError(f"--shape {shape!r}: expected one of {', '.join(SHAPES)}")
    if shape == "card":
        tasks = generate_card_errands(seed)
        how = f"--seed {seed} --shape card"
    else:
        tasks = generate_errands(seed, count)
        how = f"--seed {seed} --count {count}"
    clock = tasks[0].data["world"]["clock"]
    return write_corpus(
        tasks,
        out,
        name=name or f"endstate-errands-s{seed}" + ("-card" if shape == "card" else ""),
        source=f"endstate corpus errands {how}",
        stamp=f"{clock}+00:00",
        force=force,
    )
