"""Hostile output among ordinary attempts: each fails on its own, the run and its resume never.

One sandboxed command agent answers each task of a small corpus differently: plainly, with a
lone surrogate, with a step count of 5,000 digits, of 10^400 or negative, with `1e999`, with
a flood of junk. Every attempt is recorded with its sandbox facts and what was repaired; the
report, the viewer's data, the exports and a resume all read the run.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from endstate.agents.registry import make_agent
from endstate.runs.session import RunOptions, execute
from endstate.runs.store import RunStore
from endstate.sandbox.platform import probe

ENDSTATE = Path(sys.executable).with_name("endstate")

requires_sandbox = pytest.mark.skipif(
    not probe().available and not os.environ.get("ENDSTATE_REQUIRE_SANDBOX"),
    reason=f"no sandbox on this machine: {probe().reason}",
)

# What the agent prints for each task, by the task's number (the raw text of its final line).
LINES = {
    1: '{"claim": "gave_up", "message": "nothing to do", "steps": 3}',
    2: '{"claim": "done", "message": "\\ud800"}',
    3: '{"claim": "done", "message": "ok", "steps": 1' + "0" * 4999 + "}",
    4: '{"claim": "done", "message": "ok", "steps": 1' + "0" * 400 + "}",
    5: '{"claim": "done", "message": "ok", "steps": -7}',
    6: '{"claim": "done", "message": "ok", "steps": 1e999}',
    7: '{"claim": "done", "message": {"answer": "\\udfff"}, "steps": 2}',
}
AGENT = """
import json, sys
task = json.loads(sys.stdin.readline())
n = int(task["projection"]["task_id"].rsplit("-", 1)[1])
lines = json.loads(sys.argv[1] if len(sys.argv) > 1 else open(sys.argv[0] + ".json").read())
if n == 8:
    sys.stdout.write("\\x1b[2J\\u202e" * 400_000)  # a flood of escapes: cut, never kept whole
    print()
    print('{"claim": "done", "message": "after the flood"}')
else:
    print(lines[str(n)])
"""


@requires_sandbox
def test_hostile_final_lines_fail_their_own_attempts_and_never_the_run(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    corpus = embedded_corpus(8)
    folder = tmp_path / "agent"
    folder.mkdir(mode=0o755)
    script = folder / "agent.py"
    script.write_text(AGENT)
    (folder / "agent.py.json").write_text(json.dumps({str(k): v for k, v in LINES.items()}))
    for path in (script, folder / "agent.py.json"):
        path.chmod(0o644)
    spec = f"command:{sys.executable} {script}"
    out = tmp_path / "runs"
    run = asyncio.run(
        execute(
            RunOptions(corpus=corpus, agent=make_agent(spec), agent_spec=spec, out=out, workers=2)
        )
    )
    by_task = {int(r.task_id.rsplit("-", 1)[1]): r for r in run.records}
    assert sorted(by_task) == list(range(1, 9))
    for n, record in by_task.items():
        # Scored from the end state like any attempt; the sandbox's facts are kept.
        assert record.status == "failed", (n, record.error)
        assert record.infrastructure is None, (n, record.infrastructure)
        assert record.facts and record.facts.sandbox and record.facts.sandbox.survivors == 0
    facts = {n: r.facts for n, r in by_task.items() if r.facts}
    assert facts[1].steps == 3 and not facts[1].output_problems
    assert facts[2].final_message == "\\ud800"
    assert "lone surrogates" in " ".join(facts[2].output_problems or [])
    for n, words in ((3, "5,000 digits"), (4, "401 digits"), (6, "not finite")):
        assert facts[n].claim == "error" and facts[n].steps == 0
        assert words in " ".join(facts[n].output_problems or []), facts[n].output_problems
        assert "no final JSON message" in (facts[n].agent_error or "")
    assert facts[5].steps == 0 and "steps -7 out of range" in " ".join(
        facts[5].output_problems or []
    )
    assert facts[7].final_message == '{"answer": "\\udfff"}'
    assert facts[8].final_message == "after the flood"
    assert facts[8].sandbox and facts[8].sandbox.output_truncated

    run_dir = run.store.root
    # Every file the run wrote is UTF-8 JSON or text that reads back.
    for path in run_dir.rglob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))
    report = (run_dir / "report.txt").read_text(encoding="utf-8")
    assert "Full-credit passes: 0/8" in report and "Unmeasurable: 0" in report
    assert "\x1b" not in report and "\u202e" not in report
    # Reprinting, exporting and resuming all read it.
    for argv in (
        ["report", str(run_dir)],
        ["export", str(run_dir), "--format", "parquet"],
        ["export", str(run_dir), "--format", "inspect"],
        ["run", "--resume", str(run_dir)],
    ):
        done = subprocess.run([str(ENDSTATE), *argv], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (argv, done.stderr[-2000:])


@requires_sandbox
def test_a_run_cut_short_after_hostile_attempts_resumes_and_completes(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    corpus = embedded_corpus(3)
    folder = tmp_path / "agent"
    folder.mkdir(mode=0o755)
    script = folder / "agent.py"
    script.write_text(AGENT)
    (folder / "agent.py.json").write_text(json.dumps({str(k): v for k, v in LINES.items()}))
    for path in (script, folder / "agent.py.json"):
        path.chmod(0o644)
    spec = f"command:{sys.executable} {script}"
    out = tmp_path / "runs"
    first = asyncio.run(
        execute(RunOptions(corpus=corpus, agent=make_agent(spec), agent_spec=spec, out=out))
    )
    store = RunStore(first.store.root)
    lines = store.records_path.read_text().splitlines()
    kept = [line for line in lines if '"pa-easy-2"' in line]  # the surrogate's attempt
    store.records_path.write_text("\n".join(kept) + "\n")  # as if killed after it
    # A fault of the harness's own on resume: task 3's trace folder cannot be made.
    traces = first.store.root / "traces" / "pa-easy-3"
    for path in sorted(traces.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    traces.rmdir()
    traces.write_text("not a folder")
    resumed = subprocess.run(
        [str(ENDSTATE), "run", "--resume", str(first.store.root)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    records = {r.task_id: r for r in RunStore(first.store.root).read_records()}
    assert sorted(records) == ["pa-easy-1", "pa-easy-2", "pa-easy-3"]
    assert all(records[t].facts and records[t].facts.sandbox for t in ("pa-easy-1", "pa-easy-2"))
    lost = records["pa-easy-3"]
    assert lost.status == "unmeasurable"
    assert lost.infrastructure and lost.infrastructure.kind == "harness"
    assert "the harness failed while handling the attempt" in (lost.error or "")
    report = (first.store.root / "report.txt").read_text()
    flat = " ".join(report.split())
    assert "the 2 of 3 attempts whose teardown the harness observed" in flat
    assert "1 attempt(s) left no sandbox facts" in flat
