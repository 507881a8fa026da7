"""Faults during runs: every attempt is still accounted for, and only the end state scores."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from endstate.agents.registry import make_agent
from endstate.envs.server import EmbeddedSuite
from endstate.errors import EndstateError
from endstate.runs.embedded import EmbeddedEnvironment
from endstate.runs.session import RunOptions, RunResult, execute
from endstate.runs.store import RunStore
from endstate.scratch import ROOT_PREFIX

from .conftest import CANARY
from .sandbox_processes import Sandboxes, cmdline

ENDSTATE = Path(sys.executable).with_name("endstate")


def agent_script(tmp_path: Path, body: str) -> str:
    folder = tmp_path / "agent"  # readable by the sandbox's own uid (tmp_path is 0700)
    folder.mkdir(mode=0o755, exist_ok=True)
    path = folder / "agent.py"
    path.write_text("import json, os, sys, time\ntask = json.load(sys.stdin)\n" + body)
    return f"command:{sys.executable} {path}"


def run(
    corpus: Path, spec: str, out: Path, options: dict[str, object] | None = None, **kw: object
) -> RunResult:
    agent = make_agent(spec, options)
    return asyncio.run(
        execute(RunOptions(corpus=corpus, agent=agent, agent_spec=spec, out=out, **kw))
    )  # type: ignore[arg-type]


def test_crashing_and_hanging_agents_are_still_scored_from_the_end_state(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    crash = agent_script(tmp_path, "raise RuntimeError('lost my way')\n")
    (record,) = run(embedded_corpus(1), crash, tmp_path / "a").records
    assert record.status == "failed" and record.checks
    assert (
        record.facts
        and record.facts.claim == "error"
        and "lost my way" in (record.facts.agent_error or "")
    )

    hang = agent_script(tmp_path, "time.sleep(120)\n")
    began = time.monotonic()
    (record,) = run(embedded_corpus(1), hang, tmp_path / "b", time_limit=2).records
    assert time.monotonic() - began < 60
    assert record.status == "failed" and record.checks
    assert record.facts and record.facts.claim == "timeout"


def test_environment_dying_mid_attempt_makes_the_attempt_unmeasurable(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    suite = EmbeddedSuite.start()
    env = EmbeddedEnvironment(suite, run_seed=0, owns_suite=False)
    started = tmp_path / "agent-started"
    released = tmp_path / "suite-stopped"
    slow = agent_script(
        tmp_path,
        f"open({str(started)!r}, 'w').close()\n"
        f"while not os.path.exists({str(released)!r}):\n    time.sleep(0.05)\n"
        "print(json.dumps({'claim': 'done', 'message': 'all set'}))\n",
    )

    def kill_when_the_agent_is_at_work() -> None:
        deadline = time.monotonic() + 120
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        suite.stop()
        released.touch()

    killer = threading.Thread(target=kill_when_the_agent_is_at_work)
    killer.start()
    try:
        # Unsandboxed on purpose: the agent signals through files in the test's folder.
        result = run(
            embedded_corpus(1),
            slow,
            tmp_path / "runs",
            dict(isolation="none"),
            environment=env,
        )
    finally:
        killer.join()
    (record,) = result.records
    assert record.status == "unmeasurable" and record.score == 0
    assert "end state unreadable" in (record.error or "")
    assert record.infrastructure and record.infrastructure.kind == "readback"
    assert record.facts and record.facts.claim == "done"
    assert record.false_success  # it claimed success; the environment could not confirm it
    assert result.summary.unmeasurable == 1 and result.summary.tasks == 1


def test_the_agent_finds_no_grading_content_anywhere_it_can_look(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    corpus = embedded_corpus(1, rubric=True)
    grading_words = [
        CANARY,
        "cleared_referrals",
        "auth-determination",
        "expected_outcome",
        "step_by_step",
        "rubric",
    ]
    probe = agent_script(
        tmp_path,
        "import http.cookiejar, urllib.request\n"
        "opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))\n"
        f"words = {grading_words!r}\n"
        "seen = {'stdin': json.dumps(task), 'env': json.dumps(dict(os.environ))}\n"
        "for root, dirs, files in os.walk(os.getcwd()):\n"
        "    for f in files:\n"
        "        seen['file:' + f] = open(os.path.join(root, f), errors='replace').read()\n"
        "for name, url in task['start_urls'].items():\n"
        "    seen['url:' + name] = url + opener.open(url).read().decode(errors='replace')\n"
        "seen['start'] = opener.open(task['projection']['start_url']).read().decode(errors='replace')\n"
        "hits = sorted({f'{w} in {k}' for k, text in seen.items() for w in words if w in text})\n"
        "print(json.dumps({'claim': 'done', 'message': json.dumps({'hits': hits, 'looked': sorted(seen)})}))\n",
    )
    (record,) = run(corpus, probe, tmp_path / "runs").records
    assert record.facts is not None and record.facts.claim == "done", record.facts
    report = json.loads(record.facts.final_message or "{}")
    assert {"stdin", "env", "start", "url:ehr"} <= set(report["looked"])
    assert report["hits"] == []
    # ... while the grading side really does hold those words (the probe could have found them).
    task_file = (corpus / "prior_auth" / "pa-easy-1.json").read_text()
    assert all(w in task_file for w in grading_words)


def test_a_pin_from_another_run_refuses_to_start_on_drift(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    corpus = embedded_corpus(1)
    first = run(corpus, "null", tmp_path / "runs")
    pin = first.store.manifest_path
    again = run(corpus, "null", tmp_path / "runs", pin=pin)
    assert again.records[0].status == "failed"
    with pytest.raises(EndstateError, match="seed: pinned 0, now 5"):
        run(corpus, "null", tmp_path / "runs", pin=pin, seed=5)
    task = corpus / "prior_auth" / "pa-easy-1.json"
    task.write_text(task.read_text().replace("Decide", "Determine"))
    with pytest.raises(EndstateError, match="corpus tree hash"):
        run(corpus, "null", tmp_path / "runs", pin=pin)


def test_sigkill_then_resume_accounts_for_every_attempt_exactly_once(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    corpus = embedded_corpus(2)
    slow = agent_script(
        tmp_path, "time.sleep(0.8)\nprint(json.dumps({'claim': 'gave_up', 'message': 'slow'}))\n"
    )
    out = tmp_path / "runs"
    argv = [
        str(ENDSTATE),
        "run",
        "--corpus",
        str(corpus),
        "--agent",
        slow,
        "--attempts",
        "3",
        "--workers",
        "1",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 90
        records: list[str] = []
        while time.monotonic() < deadline:
            found = list(out.glob("*/records.jsonl"))
            if found:
                records = found[0].read_text().splitlines()
                if len(records) >= 2:
                    break
            time.sleep(0.1)
        assert len(records) >= 2, "the run did not get going"
        # Its scratch folders (episode databases, sandbox staging): the kill leaves them.
        left = list(Path(tempfile.gettempdir()).glob(f"{ROOT_PREFIX}{proc.pid}-*"))
        assert len(left) == 1 and any(left[0].iterdir()), left
    finally:
        sandboxes = Sandboxes.of(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    # Whatever the killed harness had running — its agents' sandboxes, warm, starting or
    # busy — ends with it, once they have had a moment to notice.
    assert sandboxes.pids, "the run had no sandbox running or starting"
    deadline = time.monotonic() + 10
    while sandboxes.left() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [cmdline(p)[:100] for p in sandboxes.left()] == []
    (run_dir,) = list(out.iterdir())
    before = RunStore(run_dir).read_records()
    assert 2 <= len(before) < 6
    resumed = subprocess.run(
        [
            str(ENDSTATE),
            "run",
            "--corpus",
            str(corpus),
            "--agent",
            slow,
            "--attempts",
            "3",
            "--workers",
            "1",
            "--resume",
            str(run_dir),
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert not left[0].exists()  # swept by the next endstate process, at the latest this one
    after = RunStore(run_dir).read_records()
    keys = [(r.task_id, r.attempt) for r in after]
    assert sorted(keys) == sorted({(f"pa-easy-{t}", str(a)) for t in (1, 2) for a in (1, 2, 3)})
    assert len(keys) == len(set(keys)) == 6
    assert [(r.task_id, r.attempt) for r in after[: len(before)]] == [
        (r.task_id, r.attempt) for r in before
    ]
    assert "Full-credit passes: 0/2" in (run_dir / "report.txt").read_text()


def test_resuming_with_another_task_selection_is_refused(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    corpus = embedded_corpus(2)
    first = run(corpus, "null", tmp_path / "runs")
    with pytest.raises(EndstateError, match="tasks: the run has 2, this selection 1"):
        run(corpus, "null", tmp_path / "runs", resume=first.store.root, tasks="pa-easy-1")


def test_an_interrupted_run_reports_every_scheduled_attempt_and_resumes_as_it_was(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    corpus = embedded_corpus(2)
    out = tmp_path / "runs"
    started = subprocess.run(
        [
            *(str(ENDSTATE), "run", "--corpus", str(corpus), "--attempts", "2", "--seed", "7"),
            *("--workers", "1", "--out", str(out)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert started.returncode == 0, started.stderr
    (run_dir,) = list(out.iterdir())
    lines = (run_dir / "records.jsonl").read_text().splitlines(keepends=True)
    (run_dir / "records.jsonl").write_text("".join(lines[:1]))  # as if stopped after one

    report = subprocess.run(
        [str(ENDSTATE), "report", str(run_dir)], capture_output=True, text=True, timeout=60
    )
    assert report.returncode == 0, report.stderr
    first = report.stdout.splitlines()[0] + report.stdout.splitlines()[1]
    assert "INTERRUPTED: 1 of 4 attempts recorded" in first
    assert "Full-credit passes: 0/2" in report.stdout  # the denominator is every task
    assert "INTERRUPTED: 1 of 4 scheduled attempts recorded; the other 3 count as" in (
        report.stdout.replace("\n", " ")
    )

    refused = subprocess.run(
        [str(ENDSTATE), "run", "--resume", str(run_dir), "--seed", "8"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 1
    assert "--seed 8: the run being resumed used 7" in refused.stderr.replace("\n", " ")

    resumed = subprocess.run(
        [str(ENDSTATE), "run", "--resume", str(run_dir)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    records = RunStore(run_dir).read_records()
    assert sorted((r.task_id, r.attempt) for r in records) == [
        (f"pa-easy-{t}", str(a)) for t in (1, 2) for a in (1, 2)
    ]
    text = (run_dir / "report.txt").read_text().replace("\n", " ")
    assert "resumed 1 time(s)" in text and "INTERRUPTED" not in text


def test_ctrl_c_says_where_the_run_is_and_how_to_resume_it(
    embedded_corpus: Callable[..., Path], tmp_path: Path
) -> None:
    slow = agent_script(tmp_path, "time.sleep(30)\n")
    out = tmp_path / "runs"
    proc = subprocess.Popen(
        [
            *(str(ENDSTATE), "run", "--corpus", str(embedded_corpus(1)), "--agent", slow),
            *("--out", str(out), "--workers", "1"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not list(out.glob("*/manifest.json")) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130
    (run_dir,) = list(out.iterdir())
    assert f"resume with: endstate run --resume {run_dir}" in " ".join(stderr.split())
    assert "Traceback" not in stderr
