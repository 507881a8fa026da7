"""endstate's own corpus: tasks generated from templates over the embedded world, validated.

The built-in corpus is one fixed seed's output, committed under `corpus/` and pinned by its
lock; `endstate corpus generate` makes fresh, held-out instances from any other seed.
"""

from __future__ import annotations

from pathlib import Path

from endstate.envs.world import DEFAULT_SEED

BUILTIN_SEED = DEFAULT_SEED  # the built-in corpus runs on the default embedded world
BUILTIN_COUNT = 63
BUILTIN_NAME = "endstate-builtin"


def builtin_corpus_path() -> Path:
    """Where the committed built-in corpus lives (inside the installed package)."""
    return Path(__file__).resolve().parent / "corpus"


__all__ = ["BUILTIN_COUNT", "BUILTIN_NAME", "BUILTIN_SEED", "builtin_corpus_path"]
