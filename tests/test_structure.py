"""The shape of the code, held: no import circle between any two modules (deferred and
type-only imports included), no module past 500 lines, no underscore-private name imported
from another module, and `endstate run` taking one flag per part of a run rather than one per
option (under 30)."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import grimp

from endstate.cli.run import run

SRC = Path(__file__).resolve().parents[1] / "src" / "endstate"


def _circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Strongly connected sets of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c.startswith("endstate")), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    part.append(top)
                    if top == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_no_import_circle_anywhere() -> None:
    assert _circles(grimp.build_graph("endstate")) == []


def test_the_circle_finder_finds_a_circle() -> None:
    graph = grimp.ImportGraph()
    for name in ("endstate.a", "endstate.b", "endstate.c"):
        graph.add_module(name)
    graph.add_import(importer="endstate.a", imported="endstate.b")
    graph.add_import(importer="endstate.b", imported="endstate.a")
    graph.add_import(importer="endstate.b", imported="endstate.c")
    assert _circles(graph) == [["endstate.a", "endstate.b"]]


def test_no_module_is_past_500_lines() -> None:
    long = {
        str(p.relative_to(SRC)): n
        for p in SRC.rglob("*.py")
        if (n := len(p.read_text().splitlines())) > 500
    }
    assert long == {}


def test_the_run_command_takes_fewer_than_30_options() -> None:
    options = [p for p in inspect.signature(run).parameters if p != "ctx"]
    assert len(options) < 30, options


def _private_imports(source: str) -> list[str]:
    """`module.name` for each underscore-private name the source imports from endstate."""
    return [
        f"{node.module}.{alias.name}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("endstate")
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def test_no_module_imports_a_private_name() -> None:
    """A helper another module needs is public and named for its job; a leading underscore
    promises the name stays in its module."""
    found = {
        str(p.relative_to(SRC)): names
        for p in SRC.rglob("*.py")
        if (names := _private_imports(p.read_text()))
    }
    assert found == {}


def test_the_private_import_finder_finds_one() -> None:
    source = "from endstate.x import public, _private, __version__\nfrom os import _exit\n"
    assert _private_imports(source) == ["endstate.x._private"]
