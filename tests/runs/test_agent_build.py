"""An agent's build is pinned by its content: one byte of its program, or another version of a
package its interpreter carries, and `--pin` refuses naming what changed; the same build is
accepted. Model agents are pinned by model, endpoint, decoding and prompt."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from endstate.agent_build import build_changes, describe_build
from endstate.agents import build_fingerprint
from endstate.agents.build_fingerprint import (
    agent_build,
    command_build,
    program_tree,
)
from endstate.agents.registry import make_agent
from endstate.errors import EndstateError
from endstate.runs.session import RunOptions, RunResult, execute

AGENT = "import json, sys\njson.load(sys.stdin)\nprint(json.dumps({'claim': 'done', 'message': 'ok'}))\n"


def _dist(site: Path, version: str) -> None:
    """A distribution as pip leaves it: a dist-info folder with its metadata."""
    for old in site.glob("toypkg-*.dist-info"):
        (old / "METADATA").unlink()
        old.rmdir()
    info = site / f"toypkg-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: toypkg\nVersion: {version}\n")


def run(corpus: Path, spec: str, out: Path, pin: Path | None = None) -> RunResult:
    agent = make_agent(spec, {"isolation": "none"})
    opts = RunOptions(corpus=corpus, agent=agent, agent_spec=spec, out=out, pin=pin)
    return asyncio.run(execute(opts))


def test_a_changed_byte_or_package_makes_the_pin_refuse_naming_it(
    embedded_corpus: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    _dist(site, "1.0")
    installed = build_fingerprint.package_dirs()
    monkeypatch.setattr(build_fingerprint, "package_dirs", lambda: [*installed, str(site)])
    program = tmp_path / "agent"
    program.mkdir()
    script = program / "agent.py"
    script.write_text(AGENT)
    (program / "__pycache__").mkdir()
    (program / "__pycache__" / "agent.cpython-311.pyc").write_bytes(b"ignored")
    spec = f"command:{sys.executable} {script}"
    corpus = embedded_corpus(1)
    first = run(corpus, spec, tmp_path / "runs")
    build = first.manifest.agent.build
    assert build is not None and build.program is not None and build.interpreter is not None
    assert list(build.program.files) == ["agent/agent.py"]  # the cache is left out
    assert build.interpreter.distributions["toypkg"] == "1.0"
    assert "program tree sha256" in first.report and "agent build:" in first.report
    pin = first.store.manifest_path

    again = run(corpus, spec, tmp_path / "runs", pin=pin)  # the same build: accepted
    assert again.manifest.agent.build == build

    script.write_text(AGENT.replace("'ok'", "'ok!'"))  # one byte more
    with pytest.raises(EndstateError, match=r"program file agent/agent\.py changed"):
        run(corpus, spec, tmp_path / "runs", pin=pin)
    script.write_text(AGENT)
    _dist(site, "2.0")
    with pytest.raises(EndstateError, match=r"package toypkg changed \(1\.0 -> 2\.0\)"):
        run(corpus, spec, tmp_path / "runs", pin=pin)


def test_the_program_tree_is_bounded_and_names_its_files(tmp_path: Path) -> None:
    root = tmp_path / "prog"
    root.mkdir()
    (root / "a.py").write_text("a = 1\n")
    (root / "b.txt").write_text("b\n")
    tree = program_tree([root], ignore=("*.txt",))
    assert list(tree.files) == ["prog/a.py"] and tree.bytes == 6
    with pytest.raises(EndstateError, match=r"more than 1 files.*build_root=DIR"):
        program_tree([root], ignore=(), max_files=1)
    before = command_build(["/bin/sh", str(root / "a.py")])
    (root / "c.py").write_text("c = 3\n")
    after = command_build(["/bin/sh", str(root / "a.py")])
    assert build_changes(before, after) == [
        "agent build: program file prog/c.py added (" + f"{after.program.files['prog/c.py']})"
    ]  # type: ignore[union-attr]
    assert before.interpreter is not None and before.interpreter.executable.endswith("sh")


def test_a_model_agent_is_pinned_by_model_endpoint_decoding_and_prompt() -> None:
    a = agent_build(make_agent("llm:m", {"base_url": "http://127.0.0.1:9/v1"}))
    b = agent_build(make_agent("llm:m", {"base_url": "http://127.0.0.1:9/v1", "temperature": 0.7}))
    assert a is not None and a.model is not None and a.model.prompt_sha256 != "none"
    assert build_changes(a, b) == [
        "agent build: model decoding changed ({'temperature': 0.0} -> {'temperature': 0.7})"
    ]
    assert "model m at http://127.0.0.1:9/v1" in describe_build(a)
    assert agent_build(make_agent("null")) is None
