"""`endstate run --executor ray` on a real Ray cluster on loopback, started with Ray's own
command line for this module: real workers, a real environment per worker, no doubles.

A worker is killed mid-run (SIGKILL, from the PID the driver writes to executor.json) and the
run still records every scheduled attempt exactly once, with the scores a local run gets; a
worker whose node has another corpus is refused and the run completes on the other; a run
stopped locally is completed on Ray and the reverse; bad flags are one line each.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from endstate.agents.registry import make_agent
from endstate.builtin import BUILTIN_COUNT, builtin_corpus_path
from endstate.builtin.trajectory import write_replays
from endstate.corpus.loader import load_corpus
from endstate.corpus.lock import hash_tree, tree_hash
from endstate.manifest import ExecutorUse
from endstate.runs.executor_ray import ATTEMPT_RETRIES, RayExecution, worker_spec
from endstate.runs.executors import RaySettings
from endstate.runs.ray_journal import WorkerEntry
from endstate.runs.runner import RunPlan
from endstate.runs.session import RunOptions, execute, render
from endstate.runs.store import RunStore
from endstate.scratch import ROOT_PREFIX
from openai_double import ChatDouble

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0"}
RUN_TIMEOUT = 900


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    return env | LOOPBACK | (extra or {})


def endstate(
    *args: str | Path, env: dict[str, str] | None = None, timeout: float = RUN_TIMEOUT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "endstate", *map(str, args)],
        env=cli_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _processes() -> dict[int, tuple[int, str]]:
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        found[int(entry)] = (ppid, cmd)
    return found


def stop_cluster(temp: Path) -> None:
    """`ray stop --force` for this cluster only: `ray stop` kills every Ray on the machine, so
    the processes are found by the cluster's own temp dir (and their children), by PID."""
    procs = _processes()
    ours = {pid for pid, (_, cmd) in procs.items() if str(temp) in cmd and pid != os.getpid()}
    grew = True
    while grew:
        children = {pid for pid, (ppid, _) in procs.items() if ppid in ours} - ours
        ours |= children
        grew = bool(children)
    for pid in ours:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@dataclass(frozen=True)
class Cluster:
    address: str
    temp: Path
    env: dict[str, str]  # what a driver needs to join it (its token)


@pytest.fixture(scope="module")
def cluster(ray_cli: Path) -> Iterator[Cluster]:
    """One head node on loopback for the module: 2 CPUs, no dashboard, ports of its own."""
    temp = Path(tempfile.mkdtemp(prefix="es-ray-"))  # short: Ray's socket paths must fit
    port = free_port()
    auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    ports = [
        f"--{flag}={free_port()}"
        for flag in (
            "node-manager-port",
            "object-manager-port",
            "dashboard-port",
            "dashboard-agent-listen-port",
            "dashboard-agent-grpc-port",
            "runtime-env-agent-port",
            "metrics-export-port",
        )
    ]
    command = [
        str(ray_cli),
        "start",
        "--head",
        "--node-ip-address=127.0.0.1",
        f"--port={port}",
        "--num-cpus=2",
        "--include-dashboard=false",
        "--disable-usage-stats",
        f"--temp-dir={temp}",
        *ports,
    ]
    try:
        started = subprocess.run(
            command, env=cli_env(auth), capture_output=True, text=True, timeout=180
        )
        assert started.returncode == 0, started.stderr[-2000:]
        yield Cluster(f"127.0.0.1:{port}", temp, auth)
    finally:
        stop_cluster(temp)
        shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`replay:DIR` trajectories for the whole built-in corpus, from its reference steps."""
    folder = tmp_path_factory.mktemp("replays")
    assert write_replays(builtin_corpus_path(), folder) >= 20  # played to their own end
    return folder


# How long a replayed step waits for its target, on both executors. The default 3 s is the
# agent's own pin; on a loaded machine a step may wait longer, and a step that timed out on
# one executor and not on the other would differ in score for the machine's sake, not Ray's.
ACTION_TIMEOUT_S = 15.0


def local_scores(spec: str, out: Path, tasks: str | None = None) -> dict[tuple[str, str], float]:
    """The same corpus and agent on the local asyncio runner."""
    opts = RunOptions(
        corpus=builtin_corpus_path(),
        # The null agent has no actions, so no action timeout to give it.
        agent=make_agent(spec, None if spec == "null" else {"action_timeout_s": ACTION_TIMEOUT_S}),
        agent_spec=spec,
        out=out,
        workers=2,
        tasks=tasks,
    )
    result = asyncio.run(execute(opts))
    return {(r.task_id, r.attempt): r.score for r in result.records}


def records(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]


def exactly_once(run_dir: Path) -> dict[tuple[str, str], float]:
    pairs = [(r["task_id"], r["attempt"]) for r in records(run_dir)]
    assert len(pairs) == len(set(pairs)), "an attempt was recorded twice"
    return {(r["task_id"], r["attempt"]): r["score"] for r in records(run_dir)}


def wait_for(what: Callable[[], Any], proc: subprocess.Popen[str], limit: float = 300) -> Any:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if (found := what()) is not None:
            return found
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def _victim(out: Path) -> tuple[Path, int] | None:
    """A run directory with two workers at work and some records: a worker's PID to kill."""
    runs = list(out.glob("*/executor.json"))
    if not runs:
        return None
    run_dir = runs[0].parent
    try:
        workers = json.loads(runs[0].read_text())["workers"]
        done = len((run_dir / "records.jsonl").read_text().splitlines())
    except (ValueError, OSError):
        return None  # caught between writes
    ready = [w for w in workers if w["state"] == "ready"]
    return (run_dir, ready[0]["pid"]) if len(ready) == 2 and done >= 3 else None


@pytest.mark.parametrize("agent", ["null", "replay"])
def test_a_worker_killed_mid_run_loses_no_attempt_and_scores_as_the_local_runner(
    cluster: Cluster, replays: Path, tmp_path: Path, agent: str
) -> None:
    spec = "null" if agent == "null" else f"replay:{replays}"
    out = tmp_path / "ray"
    began = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "endstate", "run", "--corpus", "builtin", "--agent", spec,
         "--executor", "ray", "--ray-address", cluster.address, "--workers", "2",
         "--action-timeout", str(ACTION_TIMEOUT_S),
         "--out", str(out)],
        env=cli_env(cluster.env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        run_dir, pid = wait_for(lambda: _victim(out), proc)
        scratch_root = list(Path(tempfile.gettempdir()).glob(f"{ROOT_PREFIX}{pid}-*"))
        assert len(scratch_root) == 1, scratch_root  # its run store, episodes, staging
        os.kill(pid, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    on_ray = time.monotonic() - began
    assert proc.returncode == 0, stderr[-3000:]
    scores = exactly_once(run_dir)
    assert len(scores) == BUILTIN_COUNT  # every scheduled (task, attempt), once

    journal = json.loads((run_dir / "executor.json").read_text())
    (killed,) = [w for w in journal["workers"] if w["pid"] == pid]
    assert killed["state"] == "lost" and killed["error"]
    slot = [w for w in journal["workers"] if w["slot"] == killed["slot"]]
    assert [w["generation"] for w in slot] == [0, 1]  # replaced once, in its own slot
    assert journal["lost"] == []
    for retried in journal["retried"]:  # re-run elsewhere, recorded once, by another worker
        (again,) = [
            r for r in records(run_dir) if (r["task_id"], r["attempt"]) == (retried["task_id"], "1")
        ]
        assert again["facts"]["ran_on"] != killed["label"]
    worked = {w["label"] for w in journal["workers"] if w["state"] in ("stopped", "lost")}
    assert {r["facts"]["ran_on"] for r in records(run_dir)} <= worked
    manifest = json.loads((run_dir / "manifest.json").read_text())
    (use,) = manifest["executors"]
    assert use["kind"] == "ray" and use["workers_lost"] == 1 and use["attempts_lost"] == 0
    if agent == "replay":  # the workers' agents were made with it, or their pins refused them
        assert manifest["agent"]["config"]["timeout_ms"] == ACTION_TIMEOUT_S * 1000
    assert "1 worker(s) lost mid-run" in (run_dir / "report.txt").read_text()
    assert not scratch_root[0].exists()  # swept: by its replacement, or as the run ends

    began = time.monotonic()
    local = local_scores(spec, tmp_path / "local")
    print(
        f"{agent}: {BUILTIN_COUNT} attempts on Ray {on_ray:.1f}s, local {time.monotonic() - began:.1f}s"
    )
    assert scores == local


def test_a_worker_whose_node_has_another_corpus_is_refused_and_recorded(
    cluster: Cluster, tmp_path: Path
) -> None:
    other = tmp_path / "other-corpus"
    shutil.copytree(builtin_corpus_path(), other)
    edited = next(iter(sorted(other.glob("prior_auth/*.json"))))
    edited.write_text(edited.read_text().replace("Prior authorization", "Prior Authorization"))
    theirs = tree_hash(hash_tree(other))
    ray = ["--executor", "ray", "--ray-address", cluster.address, "--workers", "2"]
    run = endstate(
        "run", "--corpus", "builtin", "--tasks", "pa-*-00[1-4]", "--out", tmp_path / "runs",
        *ray, "--ray-worker-env", f"2:ENDSTATE_RAY_CORPUS={other}", env=cluster.env,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    (run_dir,) = (tmp_path / "runs").iterdir()
    manifest = json.loads((run_dir / "manifest.json").read_text())
    ours = manifest["corpus"]["tree_hash"]
    assert theirs != ours
    journal = json.loads((run_dir / "executor.json").read_text())
    refused = {w["slot"]: w for w in journal["workers"]}[2]
    assert refused["state"] == "refused" and refused["corpus"] == str(other)
    assert refused["refused"] == [{"pin": "corpus tree hash", "expected": ours, "found": theirs}]
    (refusal,) = manifest["executors"][-1]["refusals"]
    assert refusal["pin"] == "corpus tree hash" and refusal["found"] == theirs
    assert refusal["worker"].startswith("ray worker 2 (node 127.0.0.1")
    assert len(exactly_once(run_dir)) == 4
    assert {r["facts"]["ran_on"].split(" (")[0] for r in records(run_dir)} == {"ray worker 1"}
    report = (run_dir / "report.txt").read_text()
    assert "REFUSED (1): ray worker 2" in report and f"corpus tree hash '{theirs[:16]}" in report

    # Refused by every worker: one line, and nothing scored.
    run = endstate(
        "run", "--corpus", "builtin", "--tasks", "pa-*-00[1-4]", "--out", tmp_path / "none",
        *ray, "--ray-worker-env", f"ENDSTATE_RAY_CORPUS={other}", env=cluster.env,
    )  # fmt: skip
    assert run.returncode == 1
    (line,) = [x for x in run.stderr.splitlines() if x.strip() and not x.startswith("run ")]
    assert line.startswith("error: no Ray worker took work, nothing was scored")
    assert "corpus tree hash" in line and "Traceback" not in run.stderr
    (run_dir,) = (tmp_path / "none").iterdir()
    assert (run_dir / "records.jsonl").read_text() == ""


def _stop_part_way(run_dir: Path, keep: int) -> list[str]:
    """As if the run had been stopped after `keep` records: the rest, and their traces, gone."""
    lines = (run_dir / "records.jsonl").read_text().splitlines(keepends=True)
    (run_dir / "records.jsonl").write_text("".join(lines[:keep]))
    for line in lines[keep:]:
        shutil.rmtree(run_dir / "traces" / json.loads(line)["task_id"], ignore_errors=True)
    return lines[:keep]


def test_a_run_resumes_across_executors_and_records_each_attempt_once(
    cluster: Cluster, tmp_path: Path
) -> None:
    tasks = "dn-*-00[1-3],pa-*-00[1-3]"
    ray = ["--executor", "ray", "--ray-address", cluster.address]
    expected = local_scores("null", tmp_path / "reference", tasks)
    for first, then in ((["--executor", "local"], ray), (ray, [])):
        out = tmp_path / f"started-{first[1]}"
        started = endstate("run", "--tasks", tasks, "--out", out, *first, env=cluster.env)
        assert started.returncode == 0, started.stderr[-3000:]
        (run_dir,) = out.iterdir()
        kept = _stop_part_way(run_dir, 2)
        resumed = endstate("run", "--resume", run_dir, *then, env=cluster.env)
        assert resumed.returncode == 0, resumed.stderr[-3000:]
        lines = (run_dir / "records.jsonl").read_text().splitlines(keepends=True)
        assert lines[:2] == kept  # the records before the stop are untouched
        assert exactly_once(run_dir) == expected
        manifest = json.loads((run_dir / "manifest.json").read_text())
        kinds = [u["kind"] for u in manifest["executors"]]
        assert kinds == ([first[1], "ray"] if then else ["ray", "local"])
        assert len(manifest["resumed_at"]) == 1
        assert "resumed on" in (run_dir / "report.txt").read_text()


def test_without_an_address_a_local_ray_instance_is_started_for_the_run(
    ray_cli: Path, tmp_path: Path
) -> None:
    run = endstate(
        "run", "--tasks", "pa-*-00[1-2]", "--executor", "ray", "--workers", "1",
        "--out", tmp_path,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    (run_dir,) = tmp_path.iterdir()
    journal = json.loads((run_dir / "executor.json").read_text())
    assert journal["address"].startswith("local instance")
    assert journal["timings"]["ray_start_seconds"] > 0
    assert len(exactly_once(run_dir)) == 2


def test_bad_executor_flags_are_one_line_each_and_start_nothing(
    ray_cli: Path, tmp_path: Path
) -> None:
    closed = free_port()
    cases = [
        (["--executor", "nosuch"], "--executor 'nosuch': expected local or ray"),
        (["--ray-address", "127.0.0.1:6379"], "--ray-address needs --executor ray"),
        (
            ["--executor", "ray", "--ray-address", f"127.0.0.1:{closed}"],
            f"--ray-address 127.0.0.1:{closed}: no Ray cluster answers there",
        ),
        (["--executor", "ray", "--ray-address", "nonsense"], "--ray-address 'nonsense'"),
        (["--executor", "ray", "--ray-worker-env", "0:X=1"], "--ray-worker-env '0:X=1'"),
    ]
    for flags, message in cases:
        run = endstate("run", "--tasks", "pa-*-001", "--out", tmp_path, *flags, timeout=120)
        assert run.returncode != 0, flags
        lines = [x for x in run.stderr.splitlines() if x.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), run.stderr
        assert message in lines[0] and "Traceback" not in run.stderr
    assert list(tmp_path.iterdir()) == []  # no run directory was made


def _with_rubric(root: Path, pattern: str) -> Path:
    """Built-in tasks (graded by rules alone) with one rubric check each, and three of them
    asking the same question of the same note: a corpus that needs a judge."""
    import fnmatch

    for path in sorted(builtin_corpus_path().rglob("*.json")):
        if path.name == "endstate.lock.json" or not fnmatch.fnmatch(path.stem, pattern):
            continue
        task = json.loads(path.read_text())
        task["checks"].append(
            {
                "type": "llm_judge",
                "description": "The note reads as a person wrote it",
                "student_answer": "{{ ehr.notes[-1].body }}",
                "student_answer_context": "referral note",
                "rubric": "Is the note written in plain sentences? Score 1.0 if yes, 0.0 if no.",
                "points": 1,
                "category": "Documentation",
            }
        )
        out = root / path.parent.name / path.name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(task))
    return root


def test_rubric_checks_are_judged_on_the_driver_with_its_cache(
    cluster: Cluster, chat: ChatDouble, tmp_path: Path
) -> None:
    """The Ray run's verdicts come from the driver's judge and land in the driver's cache: a
    local run after it asks the judge nothing."""
    judge = [
        "--judge-model", "grader-1", "--judge-base-url", chat.base_url,
        "--judge-cache", tmp_path / "verdicts.sqlite",
    ]  # fmt: skip
    ray = ["--executor", "ray", "--ray-address", cluster.address, "--workers", "2"]
    corpus = _with_rubric(tmp_path / "corpus", "pa-*-00[1-3]")
    runs = []
    for name, executor in (("ray", ray), ("local", [])):
        run = endstate(
            "run", "--corpus", corpus, "--out", tmp_path / name, *judge, *executor,
            env=cluster.env,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr[-3000:]
        (run_dir,) = (tmp_path / name).iterdir()
        runs.append(records(run_dir))
    on_ray, local = runs
    rubric = [c for r in on_ray for c in r["checks"] if c["type"] == "llm_judge"]
    assert rubric and all(c["outcome"] == "pass" and c["votes"] == [1, 1, 1] for c in rubric)
    # Tasks asking the same question of the same answer share one verdict, even within a run.
    asked = [c for c in rubric if not c["cached"]]
    assert asked
    assert all(r["judge"]["model"] == "grader-1" for r in on_ray + local)
    assert len(chat.requests) == 3 * len(asked)  # the local run asked nothing: all cached
    assert all(c["cached"] for r in local for c in r["checks"] if c["type"] == "llm_judge")
    assert sorted((r["task_id"], r["score"]) for r in on_ray) == sorted(
        (r["task_id"], r["score"]) for r in local
    )


def test_an_attempt_whose_worker_is_lost_on_every_try_is_unmeasurable_with_evidence(
    ray_cli: Path, tmp_path: Path
) -> None:
    """The driver's give-up path on a real run directory (no cluster needed to reach it): one
    record, with an `executor` fault naming the worker, counted as infrastructure."""
    import ray

    opts = RunOptions(
        corpus=builtin_corpus_path(), agent=make_agent("null"), agent_spec="null",
        out=tmp_path, tasks="pa-*-00[1-2]",
    )  # fmt: skip
    result = asyncio.run(execute(opts))
    store = RunStore(result.store.root)
    (kept,) = _stop_part_way(store.root, 1)
    lost = next((t, "1") for t in result.manifest.tasks if t != json.loads(kept)["task_id"])
    manifest = result.manifest.model_copy(
        update={"executors": [ExecutorUse(kind="ray", started_at="now", workers=1)]}
    )
    corpus = load_corpus(builtin_corpus_path())
    plan = RunPlan(
        tasks=[corpus.task(t) for t in manifest.tasks],
        attempts=1,
        workers=1,
        max_steps=50,
        time_limit=300,
    )
    spec = worker_spec(plan, manifest, "embedded", None, {}, dict())
    execution = RayExecution(ray, plan, store, manifest, spec, RaySettings(), None, None)
    entry = WorkerEntry(slot=1, generation=2, node_ip="127.0.0.1", node_id="ab" * 28, pid=99)
    asyncio.run(execution._record_lost(lost, entry, "ActorDiedError: the actor died"))

    _, second = store.read_records()
    assert (second.task_id, second.status) == (lost[0], "unmeasurable")
    assert second.infrastructure is not None and second.infrastructure.kind == "executor"
    assert "ray worker 1.2 (node 127.0.0.1" in second.infrastructure.detail
    assert f"lost {ATTEMPT_RETRIES + 1} times" in (second.error or "")
    assert json.loads((store.root / "executor.json").read_text())["lost"][0]["task_id"] == lost[0]
    *_, report = render(store, execution.journal.manifest)
    assert "1 infrastructure (the worker running the attempt was lost on every try)" in report
