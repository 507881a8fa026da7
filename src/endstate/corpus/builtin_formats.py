"""The built-in corpus formats, registered on import (`endstate.corpus.formats` loads this
module by name): PHA rows, scheduling cases, endstate's native tasks, and hab-v2, the
fallback for any other `.json` file."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from endstate.corpus import hab_v2, native, pha, scheduling_cases
from endstate.corpus.formats import CorpusFormat, Parsed, register_format
from endstate.corpus.model import Task
from endstate.corpus.problems import Problem

OneTask = Callable[[str, str, Any], tuple[Task | None, list[Problem]]]


def _one(parse: OneTask) -> Callable[[str, str, Any], Parsed]:
    """A parser of one task per file, as a parser of a file's tasks."""

    def parse_file(file: str, family: str, data: Any) -> Parsed:
        task, found = parse(file, family, data)
        return ([task] if task is not None else []), found

    return parse_file


register_format(
    CorpusFormat(
        pha.FORMAT, pha.SUFFIXES, pha.parse_file, order=10,
        summary="Personal Health Arena rows, one task each",
    )
)  # fmt: skip
register_format(
    CorpusFormat(
        scheduling_cases.FORMAT, (".json",), _one(scheduling_cases.parse_case), "json",
        scheduling_cases.is_case, order=20, summary="a scheduling case",
    )
)  # fmt: skip
register_format(
    CorpusFormat(
        native.FORMAT, (".json",), _one(native.parse_task), "json", native.is_native, order=30,
        summary="an endstate native task",
    )
)  # fmt: skip
register_format(
    CorpusFormat(
        hab_v2.FORMAT, (".json",), _one(hab_v2.parse_task), "json", order=1000,
        summary="a hab-v2 task: any other .json file",
    )
)  # fmt: skip
