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


NAMED_CORPORA = ("builtin", "builtin:errands", "builtin:scheduling")


def named_corpus(path: Path) -> Path:
    """A corpus argument: `builtin`, `builtin:errands` and `builtin:scheduling` name the
    corpora endstate ships; anything else is a directory (one named so: `./builtin`)."""
    here = Path(__file__).resolve().parent
    if str(path) == "builtin":
        return builtin_corpus_path()
    if str(path) == "builtin:errands":
        return here / "errands" / "corpus"
    if str(path) == "builtin:scheduling":
        return here / "scheduling" / "corpus"
    return path


__all__ = [
    "BUILTIN_COUNT",
    "BUILTIN_NAME",
    "BUILTIN_SEED",
    "NAMED_CORPORA",
    "builtin_corpus_path",
    "named_corpus",
]
