"""The sandbox's supervisor out of the agent's reach, and inode quotas on its scratch space.

Each attack runs as the agent of a real sandbox twice: as every run makes it, where it must
be refused, and with the hardening off (the test-only `hardened=False`), where it must work —
so the test shows what the hardening stops, not only that the attack failed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path

import pytest

from endstate.agents.base import RunResources
from endstate.agents.command import CommandAgent
from endstate.manifest import Isolation
from endstate.records import AttemptFacts, SandboxFacts, TaskRecord
from endstate.report.isolation_text import agent_isolation_text
from endstate.sandbox.platform import probe
from endstate.sandbox.policy import SandboxLimits
from endstate.sandbox.spec import QUOTA_MOUNTS
from endstate.scratch import process_root

from .sandbox_agent import HEADER, PORT, requires_sandbox, run_agent, run_script

REACH = """\
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
out = {}
def err():
    return errno.errorcode.get(ctypes.get_errno(), "?")
if libc.ptrace(ctypes.c_long(16), ctypes.c_long(1), None, None) == 0:  # PTRACE_ATTACH
    os.waitpid(1, 0x40000000)  # __WALL: it stops for us
    libc.ptrace(ctypes.c_long(17), ctypes.c_long(1), None, None)  # PTRACE_DETACH
    out["ptrace"] = "attached"
else:
    out["ptrace"] = err()
try:
    open("/proc/1/mem", "rb").close()
    out["mem"] = "opened"
except OSError as exc:
    out["mem"] = errno.errorcode[exc.errno]
with open("/run/endstate/config.json") as fh:
    control = json.load(fh)["control_fd"]
fd = None
try:
    fd = os.open(f"/proc/1/fd/{control}", os.O_WRONLY)
    out["control"] = "opened"
except OSError as exc:
    out["control"] = errno.errorcode[exc.errno]
try:  # the first page pid 1 maps, where its maps can be read
    with open("/proc/1/maps") as fh:
        remote = int(fh.readline().split("-")[0], 16)
except OSError:
    remote = 0x400000
local = ctypes.create_string_buffer(8)
iov = (ctypes.c_void_p * 2)(ctypes.addressof(local), 8)
riov = (ctypes.c_void_p * 2)(remote, 8)
got = libc.syscall(ctypes.c_long(310), ctypes.c_long(1), iov, ctypes.c_ulong(1), riov,
                   ctypes.c_ulong(1), ctypes.c_ulong(0))  # process_vm_readv (x86_64)
out["vm_read"] = "read" if got > 0 else err()
print(json.dumps({"claim": "done", "message": json.dumps(out)}), flush=True)
if fd is not None:  # a forged exit event, status 0, ahead of the real one: this exits 3
    os.write(fd, json.dumps({"event": "exit", "status": 0}).encode() + b"\\n")
sys.exit(3)
"""

SIGNALS = """\
import signal, time
sent = {}
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGKILL):
    try:
        os.kill(1, sig)
        sent[sig.name] = "sent"
    except OSError as exc:
        sent[sig.name] = exc.strerror
time.sleep(1.5)
print(json.dumps({"claim": "done", "message": json.dumps({"sent": sent, "alive": True})}))
"""

FLOOD = """\
def meminfo(key):
    with open("/proc/meminfo") as fh:  # the host's: /proc/meminfo is not namespaced
        return next(int(l.split()[1]) for l in fh if l.startswith(key + ":"))
CAP = int(task["projection"]["instruction"])
out = {"slab_before_kib": meminfo("Slab")}
for folder in ("/tmp", os.environ["HOME"], "/dev/shm"):
    made, error = 0, None
    try:
        os.mkdir(f"{folder}/flood")
        while made < CAP:
            os.mknod(f"{folder}/flood/{made}")
            made += 1
    except OSError as exc:
        error = exc.strerror
    out[folder] = {"files": made, "error": error}
out["slab_after_kib"] = meminfo("Slab")
print(json.dumps({"claim": "done", "message": json.dumps(out)}))
"""


PTYS = """\
CAP = int(task["projection"]["instruction"])
held, error = [], None
try:
    while len(held) < CAP:
        held.append(os.openpty())
except OSError as exc:
    error = exc.strerror
print(json.dumps({"claim": "done", "message": json.dumps({"ptys": len(held), "error": error})}))
"""


def _reach(tmp_path: Path, hardened: bool) -> tuple[dict[str, str] | None, str | None]:
    folder = tmp_path / f"reach-{hardened}"
    folder.mkdir()
    (folder / "agent.py").write_text(HEADER + REACH)
    outcome, _ = run_agent(f"{sys.executable} {folder / 'agent.py'}", folder, hardened=hardened)
    found = json.loads(outcome.final_message) if outcome.final_message else None
    return found, outcome.error


@requires_sandbox
def test_the_agent_cannot_ptrace_read_or_write_the_supervisor(tmp_path: Path) -> None:
    if os.uname().machine != "x86_64":
        pytest.skip("the probe calls process_vm_readv by its x86_64 number")
    found, error = _reach(tmp_path, hardened=True)
    assert found == {"ptrace": "EPERM", "mem": "EACCES", "control": "EACCES", "vm_read": "EPERM"}
    assert error is not None and "status 3" in error  # its own exit, not a forged one
    # Without the hardening the same program attaches to the supervisor and opens its memory:
    # it owns pid 1, the control pipe's writer included.
    found, error = _reach(tmp_path, hardened=False)
    assert found is not None
    assert (found["ptrace"], found["mem"], found["vm_read"]) == ("attached", "opened", "read")
    if probe().privileged:
        # The pipe itself belongs to the harness's root, so only through pid 1's memory.
        assert found["control"] == "EACCES"
    else:  # an ordinary user's pipe is the agent's own: it forges the harness's exit event
        assert found["control"] == "opened" and error is None


@requires_sandbox
def test_the_agent_cannot_end_the_supervisor_early(tmp_path: Path) -> None:
    seen = run_script(SIGNALS, tmp_path / "on")
    assert seen["alive"] is True  # it lived to say so: pid 1 and the sandbox outlived it all
    assert set(seen["sent"]) == {"SIGINT", "SIGTERM", "SIGHUP", "SIGUSR1", "SIGKILL"}
    (tmp_path / "off").mkdir()
    (tmp_path / "off" / "agent.py").write_text(HEADER + SIGNALS)
    outcome, _ = run_agent(
        f"{sys.executable} {tmp_path / 'off' / 'agent.py'}", tmp_path / "off", hardened=False
    )
    # Python's own SIGINT handler ends an unhardened supervisor, and the sandbox with it.
    assert outcome.claim == "error" and outcome.final_message is None
    assert outcome.error == "the sandbox ended before the agent reported its exit"


@requires_sandbox
def test_the_inode_quota_stops_a_flood_of_empty_files_with_enospc(tmp_path: Path) -> None:
    limits = SandboxLimits(tmp_inodes=2000, shm_inodes=500)
    cap = 100_000  # per folder: without a quota, about 100 MB of the host's kernel memory
    on = run_script(FLOOD, tmp_path / "on", limits=limits, instruction=str(cap))
    for folder, quota in (("/tmp", 2000), ("/home/agent", 2000), ("/dev/shm", 500)):
        assert on[folder]["error"] == "No space left on device", on
        assert quota - 20 <= on[folder]["files"] < quota  # its folders count too
    off = run_script(FLOOD, tmp_path / "off", limits=limits, hardened=False, instruction=str(cap))
    assert all(off[f] == {"files": cap, "error": None} for f in ("/tmp", "/home/agent", "/dev/shm"))
    # What the host paid, in slab: a few MB for the capped flood; for the uncapped one its
    # 300,000 inodes' worth, about 1 KiB each (others' slab moves by far less meanwhile).
    mib = 1024
    assert on["slab_after_kib"] - on["slab_before_kib"] < 40 * mib, on
    assert off["slab_after_kib"] - off["slab_before_kib"] > 150 * mib, off


@requires_sandbox
def test_a_sandbox_holds_at_most_its_own_pseudo_terminals(tmp_path: Path) -> None:
    """The kernel's ptys are one pool for the machine: a sandbox's own devpts caps its share.
    Unhardened, the same agent takes every one it asks for (here 40, not the pool)."""
    limits = SandboxLimits(ptys=8)
    on = run_script(PTYS, tmp_path / "on", limits=limits, instruction="40")
    assert on["ptys"] == 8 and on["error"] == "No space left on device", on
    off = run_script(PTYS, tmp_path / "off", limits=limits, hardened=False, instruction="40")
    assert off["ptys"] == 40 and off["error"] is None, off


@requires_sandbox
def test_the_scratch_space_never_shows_on_the_host(tmp_path: Path) -> None:
    body = (
        "import time\n"
        "open('/tmp/marker', 'w').close()\n"
        "time.sleep(4)\n"
        "print(json.dumps({'claim': 'done', 'message': json.dumps({'ok': True})}))\n"
    )
    seen: list[tuple[list[str], bool]] = []
    done = threading.Event()

    def watch() -> None:
        # While the attempt runs: the folders the scratch tmpfs sit on, as the host sees them.
        while not done.wait(0.05):
            for folder in process_root().glob("endstate-sandbox-*/scratch/tmp"):
                mounts = Path("/proc/self/mountinfo").read_text()
                seen.append((os.listdir(folder), str(folder) in mounts))

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        assert run_script(body, tmp_path)["ok"] is True
    finally:
        done.set()
        watcher.join()
    assert seen, "the sandbox's staging folder was never seen"
    assert set(map(str, seen)) == {"([], False)"}  # empty, and not a mount point here


AS_A_USER = """\
import json, sys, tempfile
from pathlib import Path
from endstate.agents.base import RunResources
from endstate.agents.command import CommandAgent
from endstate.manifest import Isolation
from endstate.records import AttemptFacts, SandboxFacts, TaskRecord
from endstate.report.isolation_text import agent_isolation_text
from endstate.sandbox.platform import probe
from endstate.sandbox.policy import SandboxLimits
from endstate.sandbox.spec import QUOTA_MOUNTS
from tests.runs.sandbox_agent import run_agent, run_script, HEADER
from tests.runs import test_sandbox_supervisor as t
out = {"privileged": probe().privileged, "reason": probe().reason}
root = Path(tempfile.mkdtemp())
for hardened in (True, False):
    folder = root / f"reach-{hardened}"
    folder.mkdir()
    (folder / "agent.py").write_text(HEADER + t.REACH)
    outcome, _ = run_agent(f"{sys.executable} {folder / 'agent.py'}", folder, hardened=hardened)
    out[f"reach-{hardened}"] = [outcome.final_message, outcome.error]
limits = SandboxLimits(tmp_inodes=2000, shm_inodes=500)
out["flood"] = run_script(t.FLOOD, root / "flood", limits=limits, instruction="5000")
out["flood"].pop("_facts")
print(json.dumps(out))
"""


@requires_sandbox
def test_an_ordinary_users_sandbox_is_hardened_the_same_way(tmp_path: Path) -> None:
    """The unprivileged mode (a user namespace of the harness user's own), run for real by
    starting this harness as `nobody` — which only root can do."""
    if os.geteuid() != 0:
        pytest.skip("the suite runs as an ordinary user: every sandbox test here is that mode")
    python = Path(f"/usr/bin/python3.{sys.version_info.minor}")
    if not python.exists() or shutil.which("setpriv") is None:
        pytest.skip(f"needs {python} (readable by nobody, unlike this venv's) and setpriv")
    checkout = Path(__file__).parents[2]
    path = [str(checkout / "src"), str(checkout), sysconfig.get_paths()["purelib"]]
    home = Path(tempfile.mkdtemp(prefix="endstate-nobody-"))
    os.chown(home, 65534, 65534)
    try:
        done = subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(python),
             "-c", AS_A_USER],
            env={"PATH": "/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(home),
                 "PYTHONPATH": os.pathsep.join(path)},
            capture_output=True, text=True, timeout=300, cwd=home,
        )  # fmt: skip
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["privileged"] is False and seen["reason"] == ""
    message, error = seen["reach-True"]
    assert json.loads(message) == {
        "ptrace": "EPERM", "mem": "EACCES", "control": "EACCES", "vm_read": "EPERM"
    }  # fmt: skip
    assert "status 3" in error
    message, error = seen["reach-False"]
    # Unhardened, the pipe is the harness user's, as is the agent: it forges the exit event
    # and the harness believes it (no error, where the program exited 3).
    assert json.loads(message)["control"] == "opened" and error is None
    for folder, quota in (("/tmp", 2000), ("/home/agent", 2000), ("/dev/shm", 500)):
        assert seen["flood"][folder]["error"] == "No space left on device"
        assert seen["flood"][folder]["files"] < quota


def test_the_report_says_when_an_attempt_ran_without_the_hardening() -> None:
    def record(attempt: str, **sandbox: object) -> TaskRecord:
        facts = AttemptFacts(claim="done", sandbox=SandboxFacts(isolation="sandbox", **sandbox))
        return TaskRecord(
            task_id="t", attempt=attempt, family="f", tier="easy", status="failed",
            score=0, earned=0, weight=1, facts=facts,
        )  # fmt: skip

    hardened = {"agent_seccomp": "x86_64: 36 calls denied", "supervisor_dumpable": False}
    isolation = Isolation(mode="sandbox", browser="own")
    text = agent_isolation_text(isolation, [record("1", **hardened), record("2", **hardened)])
    assert "under a seccomp filter" in text and "OFF" not in text
    text = agent_isolation_text(isolation, [record("1", **hardened), record("2")])
    assert "supervisor's protection was OFF in 1 attempt(s)" in text
    assert "under a seccomp filter" not in text


@pytest.mark.parametrize(
    ("plan", "why"),
    [
        ("{not json", "cannot make the sandbox's scratch space: Expecting property name"),
        (
            json.dumps({"user": False, "mounts": [["/nonexistent/es", 4096, 64, "1777"]]}),
            "cannot make the sandbox's scratch space: [Errno 2] No such file or directory: "
            "'tmpfs on /nonexistent/es'",
        ),
    ],
)
def test_scratch_space_that_cannot_be_made_is_one_line_and_nothing_runs(
    plan: str, why: str, tmp_path: Path
) -> None:
    if os.geteuid() != 0 and '"user": false' in plan:
        plan = plan.replace('"user": false', '"user": true')
    plan = plan.replace('{"user"', f'{{"parent": {os.getpid()}, "user"')  # its caller, alive
    marker = tmp_path / "ran"
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(QUOTA_MOUNTS), plan, "--", "/usr/bin/touch", str(marker)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 71
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"endstate sandbox: {why}"), line
    assert not marker.exists()


BROWSER = """\
import signal
pid = next(p for p in os.listdir("/proc") if p.isdigit() and b"--remote-debugging-port"
           in open(f"/proc/{p}/cmdline", "rb").read())
out = {}
try:
    open(f"/proc/{pid}/mem", "rb").close()
    out["mem"] = "opened"
except OSError as exc:
    out["mem"] = exc.strerror
try:
    os.kill(int(pid), signal.SIGCONT)  # harmless, if it arrives
    out["signal"] = "sent"
except OSError as exc:
    out["signal"] = exc.strerror
print(json.dumps({"claim": "done", "message": json.dumps(out)}))
"""


@requires_sandbox
def test_landlock_keeps_the_agent_from_the_sandboxs_browser(tmp_path: Path) -> None:
    landlock = probe().landlock
    if landlock is None:
        pytest.skip("this kernel has no Landlock: the browser's memory is reachable (documented)")
    on = run_script(BROWSER, tmp_path / "on", browser=True)
    assert on["mem"] == "Permission denied"
    assert on["_facts"].agent_landlock == landlock
    if landlock >= 6:
        assert on["signal"] == "Operation not permitted"
    off = run_script(BROWSER, tmp_path / "off", browser=True, hardened=False)
    assert (off["mem"], off["signal"]) == ("opened", "sent")


@requires_sandbox
def test_one_sandboxs_teardown_never_touches_a_sandbox_started_after_it_ended() -> None:
    """A freed PID namespace's number goes to the next one the kernel makes: counting the
    survivors of a sandbox that ended on its own must not find (and kill) a newer one's."""
    from endstate.sandbox.launch import Sandbox

    async def go() -> list[tuple[int | None, bool]]:
        agent = CommandAgent(f"{sys.executable} -c pass", browser=False)
        await agent.start(RunResources(agent_urls=[f"http://127.0.0.1:{PORT}"], attempts=1))
        await agent.stop()  # only its spec is wanted: the sandboxes here are made by hand
        spec = agent._spec
        assert spec is not None
        seen = []
        for _ in range(3):  # the number is reused often, not always: others make namespaces
            first = Sandbox(spec)
            await first.launch()
            assert first.proc is not None and first.ns_init is not None
            os.kill(first.ns_init, signal.SIGKILL)  # it ends on its own, as when its agent exits
            await first.proc.wait()
            await asyncio.sleep(1)  # the kernel frees its namespaces (and their numbers)
            second = Sandbox(spec)
            await second.launch()
            try:
                facts = await first.destroy()
                assert second.proc is not None and second.ns_init is not None
                alive = second.proc.returncode is None
                seen.append(
                    (facts["survivors"], alive and Path(f"/proc/{second.ns_init}").exists())
                )
            finally:
                await second.destroy()
        return seen

    assert asyncio.run(go()) == [(0, True)] * 3
