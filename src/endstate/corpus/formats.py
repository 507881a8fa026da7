"""Corpus formats, registered by name: the built-ins and any an installed package declares.

A format claims files by suffix and, where several formats share a suffix, by the decoded
content (a `.json` file that says `"format": "endstate-native-v1"` is native, any other is
hab-v2). The loader asks the formats of a file's suffix in order — lowest `order` first, then
by name — and the first whose `claims` accepts the content parses it; a fallback (hab-v2) has
a high order and claims everything. An outside package adds a format, and with it a new file
suffix, without editing endstate:

    [project.entry-points."endstate.corpus_formats"]
    mine = "my_package.format:FORMAT"      # a CorpusFormat
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from endstate.corpus.model import Task
from endstate.corpus.problems import Problem
from endstate.errors import EndstateError
from endstate.plugins import Registry

ENTRY_POINT_GROUP = "endstate.corpus_formats"

Parsed = tuple[list[Task], list[Problem]]
# (file relative to the corpus root, its family folder or "", the content) -> tasks, problems
FileParser = Callable[[str, str, Any], Parsed]


@dataclass(frozen=True)
class CorpusFormat:
    """One corpus file format: which files it claims and how it reads one into tasks."""

    name: str
    suffixes: tuple[str, ...]  # e.g. (".json",): the files it may claim
    parse: FileParser  # never raises for bad content: it reports problems instead
    # What `claims` and `parse` are given: the file's bytes, or its decoded JSON document.
    content: Literal["bytes", "json"] = "bytes"
    claims: Callable[[Any], bool] | None = None  # None: every file of its suffixes
    order: int = 100  # asked before formats of a higher order; a fallback takes a high one
    summary: str = ""


def _check(item: CorpusFormat) -> None:
    bad = [s for s in item.suffixes if not (s.startswith(".") and len(s) > 1)]
    if not item.suffixes or bad:
        raise EndstateError(
            f"{ENTRY_POINT_GROUP}: format {item.name!r} needs suffixes like '.json', "
            f"not {list(item.suffixes)!r}"
        )


FORMATS: Registry[CorpusFormat] = Registry(
    ENTRY_POINT_GROUP, CorpusFormat, "endstate.corpus.builtin_formats", _check
)


def register_format(item: CorpusFormat) -> CorpusFormat:
    """Add a format; a name already taken is refused (a plug-in cannot shadow a built-in)."""
    return FORMATS.register(item)


def corpus_formats() -> list[CorpusFormat]:
    """Every format in the order they are asked: by `order`, then by name."""
    return sorted(FORMATS.items().values(), key=lambda f: (f.order, f.name))


def _by_suffix() -> dict[str, tuple[CorpusFormat, ...]]:
    """The formats of each suffix, in claim order (a handful: cheap to build per file)."""
    found: dict[str, list[CorpusFormat]] = {}
    for item in corpus_formats():
        for suffix in item.suffixes:
            found.setdefault(suffix, []).append(item)
    return {suffix: tuple(items) for suffix, items in found.items()}


def formats_for(path: Path) -> Sequence[CorpusFormat]:
    """The formats that may claim a file, in the order they are asked; empty: no task file."""
    return _by_suffix().get(path.suffix, ())


def task_suffixes() -> list[str]:
    """Every suffix some format claims, for messages naming what a corpus may hold."""
    return sorted(_by_suffix())
