"""The command agent: a real subprocess in a real sandbox, with limits that hold.

Each test starts the agent as a run would (`start` with the environment's agent-facing URLs
and the harness-only paths), runs one attempt and stops it. The "environment" is a plain HTTP
server on loopback; a second server plays a harness port the agent must not reach.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from endstate.agents.agent_output import read_final_line
from endstate.agents.base import AgentOutcome, AttemptContext, RunResources
from endstate.agents.command import CommandAgent
from endstate.errors import EndstateError
from endstate.firewall import Projection
from endstate.sandbox.platform import probe
from endstate.sandbox.policy import SandboxLimits

from .sandbox_processes import uid_of

PROJECTION = Projection(
    task_id="t-1",
    instruction="Clear referral REF-1.",
    family="prior_auth",
    start_url="http://127.0.0.1:1/x",
)

requires_sandbox = pytest.mark.skipif(
    not probe().available and not os.environ.get("ENDSTATE_REQUIRE_SANDBOX"),
    reason=f"no sandbox on this machine: {probe().reason}",
)


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello from {self.server.server_address[1]}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def servers() -> Iterator[tuple[int, int]]:
    """(agent-facing port, harness-only port), both real HTTP servers on loopback."""
    made = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello) for _ in range(2)]
    for server in made:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield made[0].server_address[1], made[1].server_address[1]
    for server in made:
        server.shutdown()


def script(folder: Path, body: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "agent.py"
    path.write_text("import json, os, sys\ntask = json.loads(sys.stdin.readline())\n" + body)
    return f"{sys.executable} {path}"


def attempt(
    agent: CommandAgent,
    tmp_path: Path,
    port: int = 18_099,  # nothing listens there: the attempt only needs a route
    limit: float = 30,
    private: list[Path] | None = None,
) -> AgentOutcome:
    ctx = AttemptContext(
        projection=PROJECTION,
        start_urls={"ehr": f"http://127.0.0.1:{port}/start"},
        time_limit=limit,
        trace_dir=tmp_path,
    )

    async def go() -> AgentOutcome:
        await agent.start(
            RunResources(
                agent_urls=[f"http://127.0.0.1:{port}"], private_paths=private or [], attempts=1
            )
        )
        try:
            return await agent.attempt(ctx, None)
        finally:
            await agent.stop()

    return asyncio.run(go())


def final(outcome: AgentOutcome) -> dict[str, object]:
    assert outcome.final_message is not None, outcome
    data: dict[str, object] = json.loads(outcome.final_message)
    return data


def report(body: str) -> str:
    return body + "print(json.dumps({'claim': 'done', 'message': json.dumps(out)}))\n"


@requires_sandbox
def test_the_agent_sees_its_projection_and_nothing_of_the_harness(
    tmp_path: Path, servers: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENDSTATE_JUDGE_API_KEY", "secret-judge-key")
    corpus = tmp_path / "agent" / "corpus"  # a harness-only folder inside the agent's own
    corpus.mkdir(parents=True)
    (corpus / "task.json").write_text("GRADING")
    ours, theirs = servers
    command = script(
        tmp_path / "agent",
        report(
            "import urllib.request\n"
            "def fetch(port):\n"
            "    try:\n"
            "        return urllib.request.urlopen(f'http://127.0.0.1:{port}/', timeout=3).read().decode()\n"
            "    except Exception as exc:\n"
            "        return type(exc).__name__\n"
            "try:\n"
            "    import endstate\n"
            "    harness = endstate.__file__\n"
            "except ImportError:\n"
            "    harness = None\n"
            "out = {'keys': sorted(task), 'env': sorted(os.environ), 'uid': os.getuid(),\n"
            "       'cwd': os.getcwd(), 'harness': harness, 'procs': [p for p in os.listdir('/proc') if p.isdigit()],\n"
            f"       'corpus': os.listdir({str(corpus)!r}), 'ours': fetch({ours}), 'theirs': fetch({theirs})}}\n"
            "import playwright\n"
            "out['playwright'] = playwright.__file__\n"
            "print('thinking...')\n",
        ),
    )
    outcome = attempt(CommandAgent(command), tmp_path, port=ours, private=[corpus])
    assert outcome.claim == "done" and outcome.error is None, outcome
    seen = final(outcome)
    assert seen["keys"] == ["cdp_endpoint", "max_steps", "projection", "start_urls", "time_limit"]
    assert not any("KEY" in n or "TOKEN" in n or n.startswith("ENDSTATE") for n in seen["env"])  # type: ignore[union-attr]
    assert seen["uid"] != 0 and seen["cwd"] == "/home/agent"
    assert seen["harness"] is None  # the endstate package is not importable
    assert seen["corpus"] == []  # the harness-only folder is covered
    assert len(seen["procs"]) < 40  # type: ignore[arg-type]  # its own namespace
    assert seen["ours"] == f"hello from {ours}"
    assert seen["theirs"] in ("URLError", "ConnectionRefusedError")
    assert str(seen["playwright"]).startswith("/opt/endstate/site/")
    assert outcome.sandbox is not None and outcome.sandbox.isolation == "sandbox"
    assert outcome.sandbox.survivors == 0 and outcome.sandbox.browser_sandbox == "on"
    assert "thinking..." in (tmp_path / "agent.stdout.txt").read_text()


@requires_sandbox
def test_every_process_the_agent_started_is_gone_after_the_attempt(tmp_path: Path) -> None:
    command = script(
        tmp_path / "agent",
        "import subprocess, time\n"
        "subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    time.sleep(300)\n"
        "print(json.dumps({'claim': 'gave_up', 'message': str(os.getuid())}))\n",
    )
    outcome = attempt(CommandAgent(command, browser=False), tmp_path)
    assert outcome.claim == "gave_up", outcome
    uid = int(outcome.final_message or "0")
    assert outcome.sandbox is not None and outcome.sandbox.uid == uid
    left = [p for p in os.listdir("/proc") if p.isdigit() and uid_of(p) == uid]
    assert left == [] and outcome.sandbox.survivors == 0


@requires_sandbox
def test_a_hanging_agent_is_killed_at_the_limit(tmp_path: Path) -> None:
    command = script(tmp_path / "agent", "import time\ntime.sleep(120)\n")
    outcome = attempt(CommandAgent(command, browser=False), tmp_path, limit=1.5)
    assert outcome.claim == "timeout" and "1.5s" in (outcome.error or "")
    assert outcome.sandbox is not None and outcome.sandbox.survivors == 0


@requires_sandbox
def test_a_crashing_agent_is_an_error_claim(tmp_path: Path) -> None:
    command = script(tmp_path / "agent", "raise SystemExit('boom: lost the page')\n")
    outcome = attempt(CommandAgent(command, browser=False), tmp_path)
    assert outcome.claim == "error"
    assert outcome.error is not None and "status 1" in outcome.error and "boom" in outcome.error


@requires_sandbox
def test_a_missing_program_is_an_error_claim(tmp_path: Path) -> None:
    outcome = attempt(CommandAgent("/nonexistent/agent --go", browser=False), tmp_path)
    assert outcome.claim == "error" and "cannot start" in (outcome.error or "")


@requires_sandbox
def test_output_floods_disk_fills_and_memory_bombs_are_capped(tmp_path: Path) -> None:
    command = script(
        tmp_path / "agent",
        "written = 0\n"
        "try:\n"
        "    with open('/tmp/fill', 'wb') as fh:\n"
        "        while written < 10 * 2**30:\n"
        "            fh.write(b'x' * 2**20)\n"
        "            written += 2**20\n"
        "except OSError as exc:\n"
        "    disk = f'{type(exc).__name__} after {written >> 20} MiB'\n"
        "os.remove('/tmp/fill')\n"
        "try:\n"
        "    hog = bytearray(3 * 2**30)\n"
        "    memory = 'allocated'\n"
        "except MemoryError:\n"
        "    memory = 'MemoryError'\n"
        "for _ in range(40):\n"
        "    sys.stdout.write('y' * 2**16 + '\\n')\n"
        "print(json.dumps({'claim': 'done', 'message': json.dumps({'disk': disk, 'memory': memory})}))\n",
    )
    limits = SandboxLimits(tmp_bytes=64 * 2**20, memory_bytes=512 * 2**20, output_bytes=2**20)
    outcome = attempt(CommandAgent(command, browser=False, limits=limits), tmp_path)
    assert outcome.claim == "done", outcome
    seen = final(outcome)  # the final line survives truncation: the tail is kept
    assert str(seen["disk"]).startswith("OSError after") and int(str(seen["disk"]).split()[2]) <= 64
    assert seen["memory"] == "MemoryError"
    assert outcome.sandbox is not None and outcome.sandbox.output_truncated
    assert outcome.sandbox.stdout_bytes > 2**21
    assert (tmp_path / "agent.stdout.txt").stat().st_size < 2**20 + 1024


@requires_sandbox
def test_mounting_a_harness_only_folder_is_refused(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    agent = CommandAgent(f"{sys.executable} -c pass", mounts=(runs / ".",))
    with pytest.raises(EndstateError, match="may not see it"):
        attempt(agent, tmp_path, private=[runs])
    import endstate

    package = Path(endstate.__file__).parent
    agent = CommandAgent(f"{sys.executable} -c pass", mounts=(package / "builtin",))
    with pytest.raises(EndstateError, match="endstate package"):
        attempt(agent, tmp_path)


def test_no_sandbox_means_a_clear_refusal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENDSTATE_BWRAP", str(tmp_path / "no-bwrap-here"))
    probe.cache_clear()
    try:
        with pytest.raises(EndstateError, match="--isolation none"):
            attempt(CommandAgent(f"{sys.executable} -c pass"), tmp_path)
    finally:
        probe.cache_clear()


def test_isolation_none_runs_a_plain_child_and_says_so(tmp_path: Path) -> None:
    command = script(
        tmp_path / "agent",
        report("out = {'cwd': os.getcwd(), 'cdp': task['cdp_endpoint']}\n"),
    )
    outcome = attempt(CommandAgent(command, isolation="none", browser=False), tmp_path)
    assert outcome.claim == "done", outcome
    assert "endstate-sandbox-" in str(final(outcome)["cwd"])
    assert outcome.sandbox is not None and outcome.sandbox.isolation == "none"
    assert outcome.sandbox.survivors is None  # unknowable without a sandbox
    assert CommandAgent("x", isolation="none").isolation().mode == "none"


def test_an_unsandboxed_browser_leaves_no_folder_behind(tmp_path: Path) -> None:
    command = script(
        tmp_path / "agent",
        report("out = {'singleton': os.readlink('browser/SingletonSocket')}\n"),
    )
    outcome = attempt(CommandAgent(command, isolation="none"), tmp_path)
    assert outcome.claim == "done", outcome
    # Chromium keeps its profile's singleton socket in a folder of the system's temporary
    # folder; killed at the attempt's end, it cannot remove it itself.
    singleton = Path(str(final(outcome)["singleton"]))
    assert singleton.parent.name.startswith("org.chromium.Chromium.")
    assert not singleton.parent.exists()


def test_bad_isolation_and_empty_commands_are_clear_errors() -> None:
    with pytest.raises(EndstateError, match="--isolation 'loose'"):
        CommandAgent("x", isolation="loose")  # type: ignore[arg-type]
    with pytest.raises(EndstateError, match="empty command"):
        CommandAgent("  ")
    with pytest.raises(EndstateError, match="No closing quotation"):
        CommandAgent("python 'unclosed")


@pytest.mark.parametrize(
    ("stdout", "claim", "message"),
    [
        ('{"claim": "gave_up", "message": "coverage inactive"}\n', "gave_up", "coverage inactive"),
        ('log line\n{"message": "ok"}\n', "done", "ok"),
        ("no json here\n", "error", None),
        ('{"claim": "victory"}\n', "error", None),
    ],
)
def test_final_message_parsing(stdout: str, claim: str, message: str | None) -> None:
    final = read_final_line(stdout)
    assert (final.claim, final.message) == (claim, message)


@requires_sandbox
def test_a_folder_the_sandbox_user_cannot_read_is_a_clear_error(tmp_path: Path) -> None:
    if not probe().privileged:
        pytest.skip("the agent keeps the harness user's uid: every folder of theirs is readable")
    folder = tmp_path / "private"
    folder.mkdir(mode=0o700)
    (folder / "agent.py").write_text("print('hi')\n")
    with pytest.raises(EndstateError, match="chmod o\\+rX"):
        attempt(CommandAgent(f"{sys.executable} {folder / 'agent.py'}"), tmp_path)


@requires_sandbox
def test_egress_reaches_only_the_named_services(tmp_path: Path, servers: tuple[int, int]) -> None:
    model, other = servers  # a "model server" the agent may call, and one it may not
    command = script(
        tmp_path / "agent",
        report(
            "import urllib.request\n"
            "def fetch(url):\n"
            "    try:\n"
            "        return urllib.request.urlopen(url, timeout=3).read().decode()\n"
            "    except urllib.error.HTTPError as exc:\n"
            "        return f'HTTP {exc.code}'\n"
            "    except Exception as exc:\n"
            "        return type(exc).__name__\n"
            f"out = {{'model': fetch('http://127.0.0.1:{model}/v1'),\n"
            "       'denied': fetch('http://not-listed.invalid/'),\n"
            f"       'other': fetch('http://127.0.0.1:{other}/'),\n"
            "       'remote': fetch('http://example.invalid/'),\n"
            "       'proxy': os.environ.get('HTTPS_PROXY')}\n",
        ),
    )
    agent = CommandAgent(
        command, browser=False, egress=(f"127.0.0.1:{model}", "example.invalid:80")
    )
    outcome = attempt(agent, tmp_path)
    seen = final(outcome)
    assert seen["model"] == f"hello from {model}"
    assert seen["other"] in ("URLError", "ConnectionRefusedError")
    assert seen["remote"] == "HTTP 502"  # allowed, but there is no such host
    assert seen["denied"] == "HTTP 403"  # not on the list
    assert str(seen["proxy"]).startswith("http://127.0.0.1:")
    assert agent.isolation().details["egress"] == [f"127.0.0.1:{model}", "example.invalid:80"]


def test_egress_to_the_grading_channel_is_refused(tmp_path: Path) -> None:
    from endstate.sandbox.egress import parse_destinations

    with pytest.raises(EndstateError, match="grading channel"):
        parse_destinations(["localhost:4555"], ["http://127.0.0.1:4555"])
    with pytest.raises(EndstateError, match="expected HOST:PORT"):
        parse_destinations(["api.example.com"], [])


@requires_sandbox
def test_a_connection_flood_is_capped_at_the_sandboxs_own_gateway(tmp_path: Path) -> None:
    import socket

    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen(1024)
    port = holder.getsockname()[1]
    accepted: list[socket.socket] = []

    def hold() -> None:
        with contextlib.suppress(OSError):  # until the test closes the listener
            while True:
                accepted.append(holder.accept()[0])

    threading.Thread(target=hold, daemon=True).start()
    command = script(
        tmp_path / "agent",
        report(
            "import socket, time\n"
            "socks = []\n"
            "for _ in range(320):\n"
            f"    s = socket.create_connection(('127.0.0.1', {port}), timeout=5)\n"
            "    socks.append(s)\n"
            "time.sleep(1.5)\n"
            "closed = 0\n"
            "for s in socks:\n"
            "    s.settimeout(0.05)\n"
            "    try:\n"
            "        closed += s.recv(1) == b''\n"
            "    except OSError:\n"
            "        pass\n"
            "out = {'closed': closed}\n",
        ),
    )
    try:
        outcome = attempt(CommandAgent(command, browser=False), tmp_path, port=port)
    finally:
        holder.close()
    assert outcome.claim == "done", outcome
    assert final(outcome)["closed"] == 320 - 256
    assert outcome.sandbox is not None and outcome.sandbox.connections_refused == 320 - 256
