"""Runs with judged rubric checks, written as a run directory holds them (manifest and
records), and the labelling server as a child process of the real CLI."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.browser_harness import Browser
from endstate.build import BuildInfo
from endstate.manifest import (
    AgentPin,
    CorpusPin,
    EnvironmentPin,
    FirewallSummary,
    HostFacts,
    Manifest,
    RunLimits,
)
from endstate.records import CheckVerdict, JudgeIdentity, TaskRecord
from endstate.runs.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
TASKS = [f"t-{n:02d}" for n in range(1, 11)]
# The judge's verdicts: t-01..t-06 pass, t-07..t-10 fail.
JUDGE = {t: ("pass" if n < 6 else "fail") for n, t in enumerate(TASKS)}
# A person's labels, as the hand count in test_agreement.py: two disagreements.
HUMAN = JUDGE | {"t-06": "fail", "t-10": "pass"}
RUBRICS = ("The note states the determination.", "The note names the payer.")
# Written into what no labeller may see before labelling: a verdict's reason.
DETAIL_MARK = "JUDGE-REASON-7Q"
HOSTILE = "Done. <script>window.__pwned = 1</script> invoice\u202efdp.exe"
IDENTITY = JudgeIdentity(
    model="grader-1", endpoint="http://127.0.0.1:1/v1", prompt_version="v1", k=3, temperature=0
)


def manifest(tasks: list[str]) -> Manifest:
    return Manifest(
        run_id="20260101T000000Z-abcdef",
        mode="scored",
        created_at="2026-01-01T00:00:00+00:00",
        corpus=CorpusPin(name="c", root="/c", tree_hash="0" * 64, files={}, vendored=True),
        tasks=tasks,
        build=BuildInfo(version="0"),
        agent=AgentPin(spec="command:agent", kind="command", name="agent", scored=True),
        environment=EnvironmentPin(kind="hab", fingerprint="f", details={}),
        limits=RunLimits(attempts=1, workers=1, max_steps=10, time_limit=60),
        seed=0,
        firewall=FirewallSummary(verified=2),
        host=HostFacts(hostname="h", platform="p", python="3", cpus=1),
    )


def judged_check(task: str, verdict: str, rubric: str) -> CheckVerdict:
    votes = [1, 1, 1] if verdict == "pass" else [0, 0, 0]
    answer = HOSTILE if task == "t-03" else f"Determination for {task}: approved by Acme Health."
    return CheckVerdict(
        index=1,
        type="llm_judge",
        description=rubric,
        points=2,
        earned=2 if verdict == "pass" else 0,
        outcome=verdict,  # type: ignore[arg-type]
        detail=f"judge majority {sum(votes)}/3 {DETAIL_MARK}",
        votes=votes,
        answer=answer,
        rubric_input={
            "description": rubric,
            "context": f"The referral note of {task}.",
            "rubric": f"Pass if {rubric.lower()}",
        },
    )


def record(task: str, checks: list[CheckVerdict], judged: bool = True) -> TaskRecord:
    exact = CheckVerdict(index=0, type="jmespath", points=1, earned=1, outcome="pass")
    earned = 1 + sum(c.earned for c in checks)
    weight = 1 + sum(c.points for c in checks)
    return TaskRecord(task_id=task, attempt="1", family="prior_auth", tier="easy",
                      status="passed" if earned == weight else "failed", score=earned / weight,
                      earned=earned, weight=weight, checks=[exact, *checks],
                      judge=IDENTITY if judged else None)  # fmt: skip


def write_run(root: Path, records: list[TaskRecord]) -> Path:
    store = RunStore(root)
    store.create(manifest([r.task_id for r in records]))
    for r in records:
        store.append(r)
    return root


def judged_records() -> list[TaskRecord]:
    return [record(t, [judged_check(t, JUDGE[t], RUBRICS[n % 2])]) for n, t in enumerate(TASKS)]


@pytest.fixture
def judged_run(tmp_path: Path) -> Path:
    """Ten attempts, each with one judged rubric check: six passed by the judge, four failed."""
    return write_run(tmp_path / "run", judged_records())


@pytest.fixture
def unjudged_run(tmp_path: Path) -> Path:
    """Rubric checks that no judge graded (the run had none configured)."""
    ungraded = CheckVerdict(index=1, type="llm_judge", description="The note is polite.",
                            points=2, earned=0, outcome="ungraded", detail="no judge configured",
                            answer="Thanks.")  # fmt: skip
    unjudged = [record(t, [ungraded], judged=False) for t in TASKS[:3]]
    return write_run(tmp_path / "unjudged", unjudged)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "endstate", *args]


def cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    return env


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cli(*args), capture_output=True, text=True, env=cli_env(), timeout=120)


class LabelServer:
    """`endstate judge audit label RUN --no-open --port 0` as a child; `url` is what it printed."""

    def __init__(self, run: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            cli("judge", "audit", "label", str(run), "--no-open", "--port", "0", *extra),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(),
        )
        assert self.proc.stdout is not None
        self.said: list[str] = []
        found = None
        while found is None:
            line = self.proc.stdout.readline()
            if not line:
                self.stop()
                err = self.proc.stderr.read() if self.proc.stderr else ""
                raise AssertionError(f"label server did not start: {self.said!r} {err!r}")
            self.said.append(line)
            found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        self.url = found.group(0)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def label_server(judged_run: Path) -> Iterator[LabelServer]:
    served = LabelServer(judged_run, "--size", "10", "--seed", "3")
    yield served
    served.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    b = Browser()
    yield b
    b.close()
