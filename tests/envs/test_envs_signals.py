"""Stopping by signal, and running at a low descriptor limit, in real subprocesses.

SIGTERM must clean up as SIGINT does: `endstate env serve` and a harness running a suite
remove every episode database. At a lowered RLIMIT_NOFILE, many open episodes either work
(an idle episode holds no descriptor) or are refused with a JSON error naming the limit.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

ENDSTATE = Path(sys.executable).with_name("endstate")
GRADING = re.compile(r"^grading\s+(\S+)\s+\(Authorization: Bearer (\S+)\)")


def _private_tmp(tmp_path: Path) -> dict[str, str]:
    """An environment whose temporary files (the suite's episode folder) land in tmp_path."""
    folder = tmp_path / "tmp"
    folder.mkdir(mode=0o755)
    return {**os.environ, "TMPDIR": str(folder)}


def _leftovers(env: dict[str, str]) -> list[str]:
    root = Path(env["TMPDIR"])
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if "endstate" in str(p))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_env_serve_removes_every_episode_database_when_signalled(
    tmp_path: Path, signum: signal.Signals
) -> None:
    env = _private_tmp(tmp_path)
    proc = subprocess.Popen(
        [str(ENDSTATE), "env", "serve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        grading = token = None
        for line in proc.stdout:
            found = GRADING.match(line)
            if found:
                grading, token = found.groups()
            if line.startswith("Serving"):
                break
        assert grading and token, "serve printed no grading URL"
        auth = {"Authorization": f"Bearer {token}"}
        for _ in range(5):
            made = httpx.post(f"{grading}/episodes", json={}, headers=auth)
            assert made.status_code == 201, made.text
        assert len(list(Path(env["TMPDIR"]).rglob("*.sqlite"))) >= 6  # the template and 6 episodes
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "stopping" in out and "Traceback" not in err
    assert _leftovers(env) == []


def test_a_harness_running_a_suite_cleans_up_on_sigterm(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus" / "prior_auth"
    corpus.mkdir(parents=True)
    from endstate.envs.world import DEFAULT_SEED, generate_world

    ref = generate_world(DEFAULT_SEED).referrals[0].id
    task = {
        "id": "pa-easy-1",
        "goal": f"Open referral {ref} and clear it from the worklist.",
        "website": {"id": "ehr", "name": "EHR"},
        "difficulty": "easy",
        "category": "auth_check",
        "possible": True,
        "evals": [
            {
                "type": "jmespath",
                "query": f"contains(ehr.cleared_referrals, '{ref}')",
                "expected_value": True,
                "points": 1,
                "description": "cleared",
                "category": "Task Resolution",
            }
        ],
        "config": {
            "task_id": "pa-easy-1",
            "start_url": "/worklist?task_id={{TASK_ID}}&run_id={{RUN_ID}}",
        },
    }
    (corpus / "pa-easy-1.json").write_text(json.dumps(task))
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir(mode=0o755)
    (agent_dir / "agent.py").write_text("import time\ntime.sleep(60)\n")
    env = _private_tmp(tmp_path)
    out = tmp_path / "runs"
    proc = subprocess.Popen(
        [
            *(str(ENDSTATE), "run", "--corpus", str(corpus.parent), "--workers", "1"),
            *("--agent", f"command:{sys.executable} {agent_dir / 'agent.py'}", "--out", str(out)),
            # Unsandboxed: the agent lasts its 60 s (the suite's clean-up is what is tested).
            *("--isolation", "none"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 120
        tmp = Path(env["TMPDIR"])
        # Under way: the run's record store exists (an episode database alone may be the probe
        # the suite's fingerprint opens before the run starts), and the attempt's episode.
        while not list(out.glob("*/manifest.json")) or not list(
            tmp.rglob("endstate-episodes-*/*.sqlite")
        ):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run did not get going"
            time.sleep(0.1)
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err  # as interrupted: the run says how to resume
    assert "resume with: endstate run --resume" in " ".join(err.split())
    assert list(tmp.rglob("*.sqlite")) == []
    assert [p for p in _leftovers(env) if "episodes" in p or "template" in p] == []


_AT_THE_LIMIT = textwrap.dedent(
    """
    import json, os, resource, sys
    import httpx
    from endstate.envs import EmbeddedSuite

    LIMIT = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))
    out = {"opened": 0, "read": 0, "refused": []}
    with EmbeddedSuite.start() as suite:
        ids = []
        for _ in range(LIMIT * 3):  # three times as many episodes as descriptors
            ids.append(suite.open_episode().id)
            out["opened"] += 1
        for eid in ids:
            assert suite.state(eid)["episode"]["id"] == eid
            out["read"] += 1
        # Now give back the idle connections, take every descriptor left, and ask for more.
        suite.runtime.connections.trim(0)
        held = []
        try:
            while True:
                held.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            pass
        client = suite._client  # its connection is already open
        for call in (lambda: client.post("/episodes", json={}),
                     lambda: client.get(f"/episodes/{ids[0]}/state")):
            r = call()
            out["refused"].append({"status": r.status_code, "type": r.headers.get("content-type"),
                                   "body": r.json() if r.status_code != 200 else None})
        for fd in held:
            os.close(fd)
        out["after"] = suite.state(ids[0])["episode"]["id"] == ids[0]
        for eid in ids:
            suite.close_episode(eid)
        out["files"] = len(list(suite.runtime.data_dir.glob("*.sqlite")))
    print(json.dumps(out))
    """
)


def test_at_a_low_descriptor_limit_episodes_work_or_are_refused_in_json(tmp_path: Path) -> None:
    limit = 128
    script = tmp_path / "at_the_limit.py"
    script.write_text(_AT_THE_LIMIT)
    done = subprocess.run(
        [sys.executable, str(script), str(limit)],
        capture_output=True,
        text=True,
        timeout=300,
        env=_private_tmp(tmp_path),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    # 384 episodes open at once on 128 descriptors: none holds one while idle.
    assert seen["opened"] == seen["read"] == limit * 3
    assert len(seen["refused"]) == 2  # a create, and a state read needing a connection
    for refused in seen["refused"]:
        assert refused["status"] == 503 and refused["type"] == "application/json"
        assert refused["body"]["limit"] == limit
        assert "file descriptors" in refused["body"]["error"]
    assert seen["after"] is True and seen["files"] == 0
