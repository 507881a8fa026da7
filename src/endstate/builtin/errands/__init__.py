"""Patient errands: the built-in errand corpus (one fixed seed's output, committed under
`corpus/` and pinned by its lock) and the generator that makes held-out sets from any seed."""

from __future__ import annotations

from pathlib import Path

from endstate.builtin import named_corpus
from endstate.envs.world import DEFAULT_SEED

ERRANDS_SEED = DEFAULT_SEED  # the errands run on the default embedded world's portal
ERRANDS_COUNT = 63
ERRANDS_NAME = "endstate-errands"


def errands_corpus_path() -> Path:
    """Where the committed errand corpus lives (inside the installed package)."""
    return named_corpus(Path("builtin:errands"))


__all__ = ["ERRANDS_COUNT", "ERRANDS_NAME", "ERRANDS_SEED", "errands_corpus_path"]
