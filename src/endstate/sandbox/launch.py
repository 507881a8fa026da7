"""One sandbox for one attempt: built, made ready (browser up), run, and torn down whole.

The harness talks to the sandbox's supervisor through pipes only. Teardown kills the first
process of the sandbox's PID namespace, which makes the kernel kill everything else in it —
daemons, `setsid` children and the browser included — then checks that nothing survived.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import stat
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from endstate.errors import EndstateError
from endstate.sandbox.capture import Capture, drain
from endstate.sandbox.filesystem import (
    agent_env,
    filesystem_args,
    pty_folder,
    scratch_space,
    write_file,
)
from endstate.sandbox.gateway import Gateway
from endstate.sandbox.platform import Mount, keeper_argv
from endstate.sandbox.spec import (
    AGENT_ID,
    BROWSER_FLAGS,
    CDP_PORT,
    HOME,
    INSIDE,
    STORAGE_BYTES,
    SUPERVISOR,
    TEARDOWN_SECONDS,
    UID_BASE,
    BrowserStorage,
    SandboxSpec,
)
from endstate.scratch import scratch

STORAGE_GRACE = 30.0  # seconds past the time limit for the supervisor to stop and read


def _storage(event: dict[str, Any], wanted: bool) -> tuple[BrowserStorage | None, str | None]:
    """The storage the supervisor read, checked for shape; else why there is none."""
    if not wanted:
        return None, None
    storage = event.get("storage")
    if event.get("event") != "exit":
        return None, "the sandbox ended before the agent's browser storage was read"
    if storage is None:
        return None, str(event.get("storage_error") or "the agent's browser storage was not read")
    if not isinstance(storage, dict) or not all(
        isinstance(origin, str)
        and isinstance(items, list)
        and all(
            isinstance(i, list) and len(i) == 2 and all(isinstance(x, str) for x in i)
            for i in items
        )
        for origin, items in storage.items()
    ):
        return None, "the agent's browser storage came back malformed"
    return storage, None


@dataclass
class SandboxResult:
    status: int | None  # the agent's exit status; None if it never finished
    timed_out: bool
    error: str | None
    stdout: Capture
    stderr: Capture
    seconds: float
    facts: dict[str, Any] = field(default_factory=dict)
    # The agent's browser storage per origin (spec.storage_origins), or why it is missing.
    storage: BrowserStorage | None = None
    storage_error: str | None = None


class Sandbox:
    """A launched sandbox, ready for one agent. Use `launch`, then `run`, then `destroy`."""

    def __init__(self, spec: SandboxSpec) -> None:
        self.spec = spec
        self.staging = scratch("endstate-sandbox-")  # mode 0700
        self.proc: asyncio.subprocess.Process | None = None
        self.uid: int | None = None
        self.ns_init: int | None = None
        self.pid_ns: str | None = None
        # Held from launch to the survivors' count: a pidfd, so SIGKILL reaches this sandbox's
        # first process or nothing (never a process that inherited its pid), and a descriptor
        # of its PID namespace, which keeps that namespace's number from going to a sandbox
        # started meanwhile (the kernel reuses a freed one at once) and so being taken for it.
        self._ns_init_fd: int | None = None
        self._pid_ns_fd: int | None = None
        self.ready: dict[str, Any] = {}
        self.stdout = Capture(spec.limits.output_bytes)
        self.stderr = Capture(spec.limits.output_bytes)
        self._drains: list[asyncio.Task[None]] = []
        self._control: asyncio.StreamReader | None = None
        self._launched = 0.0
        self._facts: dict[str, Any] | None = None
        self.gateway: Gateway | None = None

    @property
    def _workdir(self) -> Path:
        """An unsandboxed agent's working folder (HOME, TMPDIR, its browser's profile)."""
        return self.staging / "work"

    @property
    def _unsandboxed_profile(self) -> Path:
        return self._workdir / "browser"

    # -- launching ------------------------------------------------------------------------
    def _config(self, control_fd: int, sandboxed: bool, workdir: Path) -> dict[str, Any]:
        spec = self.spec
        lim = spec.limits
        browser = None
        if spec.browser:
            flags = list(BROWSER_FLAGS)
            profile = "/tmp/browser-profile" if sandboxed else str(self._unsandboxed_profile)
            flags.append(f"--user-data-dir={profile}")
            if not sandboxed and os.geteuid() == 0:
                flags.append("--no-sandbox")  # Chromium refuses its sandbox as root
            browser = {
                "executable": spec.browser,
                "args": flags,
                "cdp_port": CDP_PORT if sandboxed else _free_port(),
                "fallback_no_sandbox": sandboxed,
            }
        # Per process, the browser's included: RLIMIT_DATA counts memory actually made
        # writable, not the large address ranges Chromium and V8 only reserve.
        limits: dict[str, int] = {"core": 0, "data": lim.memory_bytes}
        if sandboxed:
            limits["fsize"] = lim.tmp_bytes
            if spec.support is not None and spec.support.privileged:
                limits["nproc"] = lim.processes  # per sandbox: each has its own uid
        forward = []
        gateway = self.gateway
        if sandboxed and gateway is not None:
            forward = [
                {"port": r.port, "socket": str(INSIDE / "net" / r.socket.name)}
                for r in gateway.routes
            ]
            port = gateway.network.egress_port
            if gateway.egress is not None and port is not None:
                forward.append({"port": port, "socket": str(INSIDE / "net" / "egress.sock")})
        hardened = sandboxed and spec.hardened
        return {
            "control_fd": control_fd,
            "isolation": spec.isolation,
            # The supervisor makes itself unreachable; the agent starts through confine.py.
            "hardened": hardened,
            "confine": str(INSIDE / "confine.py") if hardened else None,
            "forward": forward,
            "browser": browser,
            "argv": spec.view.argv,
            "cwd": HOME if sandboxed else str(workdir),
            "env": agent_env(spec, sandboxed, workdir),
            "limits": limits,
            "storage_origins": list(spec.storage_origins),
        }

    async def launch(self) -> None:
        """Start the sandbox and wait until its browser is up (not yet the agent)."""
        spec = self.spec
        sandboxed = spec.isolation == "sandbox"
        control_r, control_w = os.pipe()
        info_r, info_w = os.pipe()
        workdir = self._workdir
        workdir.mkdir()
        if sandboxed and spec.network is not None:
            self.gateway = Gateway(spec.network)
            await self.gateway.start()
        config = write_file(
            self.staging, "config.json", json.dumps(self._config(control_w, sandboxed, workdir))
        )
        if sandboxed:
            argv = self._bwrap_argv(config, info_w)
            pass_fds: tuple[int, ...] = (control_w, info_w)
        else:
            argv = [sys.executable, str(SUPERVISOR), str(config)]
            pass_fds = (control_w,)
        self._launched = time.monotonic()
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                pass_fds=pass_fds,
                start_new_session=True,
                env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
            )
        finally:
            os.close(control_w)
            os.close(info_w)
        self._drains = [
            asyncio.ensure_future(drain(self.proc.stdout, self.stdout)),
            asyncio.ensure_future(drain(self.proc.stderr, self.stderr)),
        ]
        loop = asyncio.get_running_loop()
        self._control = asyncio.StreamReader(limit=STORAGE_BYTES + 65536)
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(self._control),  # type: ignore[arg-type]
            os.fdopen(control_r, "rb", 0),
        )
        if sandboxed:
            info = await asyncio.to_thread(_read_all, info_r)
            with contextlib.suppress(ValueError, KeyError, TypeError, OSError):
                self.ns_init = int(json.loads(info)["child-pid"])
                self._ns_init_fd = os.pidfd_open(self.ns_init)
                self._pid_ns_fd = os.open(f"/proc/{self.ns_init}/ns/pid", os.O_RDONLY)
                self.pid_ns = os.readlink(f"/proc/{self.ns_init}/ns/pid")
        else:
            os.close(info_r)
        event = await self._event(timeout=spec.limits.ready_seconds)
        if event.get("event") != "ready":
            why = event.get("message") or self.stderr.text().decode(errors="replace")[-300:]
            await self.destroy()
            raise SandboxFailed(f"sandbox did not become ready: {why.strip() or event}")
        self.ready = event

    def _bwrap_argv(self, config: Path, info_fd: int) -> list[str]:
        spec = self.spec
        support = spec.support
        if support is None or not support.available:
            raise EndstateError("sandbox unavailable")
        argv = [support.bwrap]
        if not support.privileged:
            argv += ["--unshare-user", "--uid", str(AGENT_ID), "--gid", str(AGENT_ID)]
        argv += [
            "--unshare-pid",
            "--unshare-net",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--hostname",
            "sandbox",
            # The supervisor is the namespace's first process: nothing in the sandbox can
            # signal it, and when it ends — at the end, or when the harness is gone — the
            # kernel ends everything else in the namespace.
            "--as-pid-1",
            "--die-with-parent",
            "--new-session",
            "--info-fd",
            str(info_fd),
            "--clearenv",
            "--setenv",
            "PATH",
            "/usr/bin:/bin",
            *filesystem_args(spec, self.staging, config, self.gateway),
            "--chdir",
            HOME,
            "--",
        ]
        if support.privileged:
            self.uid = UID_BASE + secrets.randbelow(100_000_000)
            argv += [
                support.setpriv,
                f"--reuid={self.uid}",
                f"--regid={self.uid}",
                "--clear-groups",
                "--no-new-privs",
                "--bounding-set=-all",
                "--inh-caps=-all",
            ]
        python = str(spec.view.python or sys.executable)
        argv += [python, str(INSIDE / "supervisor.py"), str(INSIDE / "config.json")]
        if not spec.hardened:
            return argv
        return [*quota_mounts_argv(spec, self.staging, support.privileged), *argv]

    async def _event(self, timeout: float) -> dict[str, Any]:
        assert self._control is not None
        try:
            line = await asyncio.wait_for(self._control.readline(), timeout)
        except TimeoutError:
            return {"event": "error", "message": f"no word from the sandbox in {timeout:g}s"}
        except (ValueError, asyncio.LimitOverrunError, asyncio.IncompleteReadError):
            return {"event": "error", "message": "unreadable control message"}
        if not line:
            return {"event": "gone"}
        try:
            data = json.loads(line)
        except (ValueError, RecursionError):
            return {"event": "error", "message": "unreadable control message"}
        if not isinstance(data, dict):
            return {"event": "error", "message": "unreadable control message"}
        return data

    # -- running --------------------------------------------------------------------------
    @property
    def cdp_endpoint(self) -> str | None:
        value = self.ready.get("cdp_endpoint")
        return value if isinstance(value, str) else None

    async def run(self, payload: dict[str, Any], time_limit: float) -> SandboxResult:
        """Hand the agent its input and wait for it to finish, at most `time_limit` seconds."""
        assert self.proc is not None and self.proc.stdin is not None
        began = time.monotonic()
        self.proc.stdin.write(json.dumps(payload).encode() + b"\n")
        with contextlib.suppress(ConnectionError):
            await self.proc.stdin.drain()
        # With storage to read, the supervisor keeps the limit itself and reads after it.
        grace = STORAGE_GRACE if self.spec.storage_origins else 0.0
        event = await self._event(timeout=time_limit + grace)
        seconds = time.monotonic() - began
        timed_out = event.get("event") == "error" and "no word" in str(event.get("message"))
        error = None
        status = None
        if event.get("event") == "exit":
            status = event.get("status")
            error = event.get("error")
            if event.get("timed_out") is True:
                timed_out, error = True, f"killed after {time_limit:g}s wall-clock limit"
        elif timed_out:
            error = f"killed after {time_limit:g}s wall-clock limit"
        else:
            error = "the sandbox ended before the agent reported its exit"
        facts = await self.destroy()
        storage, storage_error = _storage(event, bool(self.spec.storage_origins))
        return SandboxResult(
            status=status if isinstance(status, int) else None,
            timed_out=timed_out,
            error=error,
            stdout=self.stdout,
            stderr=self.stderr,
            seconds=seconds,
            facts=facts,
            storage=storage,
            storage_error=storage_error,
        )

    # -- teardown -------------------------------------------------------------------------
    async def destroy(self) -> dict[str, Any]:
        """Kill everything the sandbox started and say whether anything survived (once)."""
        if self._facts is not None:
            return self._facts
        proc = self.proc
        if proc is not None and proc.returncode is None:
            if self._ns_init_fd is not None:
                # The namespace dies with its first process; bubblewrap exits once the kernel
                # has reaped every process in it, so waiting for bubblewrap waits for them all.
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    signal.pidfd_send_signal(self._ns_init_fd, signal.SIGKILL)
                with contextlib.suppress(TimeoutError):  # thousands of processes take a while
                    await asyncio.wait_for(proc.wait(), timeout=TEARDOWN_SECONDS)
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(proc.wait(), timeout=10)
        for task in self._drains:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, timeout=5)
        survivors = await asyncio.to_thread(self._survivors)
        for fd in (self._ns_init_fd, self._pid_ns_fd):
            if fd is not None:
                os.close(fd)
        self._ns_init_fd = self._pid_ns_fd = None
        if self.spec.isolation != "sandbox":  # a sandbox's browser profile dies with it
            _remove_singleton_folder(self._unsandboxed_profile)
        shutil.rmtree(self.staging, ignore_errors=True)
        gateway = self.gateway
        if gateway is not None:
            await gateway.aclose()
        browser_sandbox = self.ready.get("browser_sandbox")
        if browser_sandbox == "off" and self.ready.get("browser_fallback"):
            browser_sandbox = f"off: {self.ready['browser_fallback']}"
        self._facts = {
            "isolation": self.spec.isolation,
            "uid": self.uid,
            "browser": "own" if self.spec.browser else "none",
            "ready_ms": self.ready.get("ready_ms"),
            "browser_sandbox": browser_sandbox,
            "supervisor_dumpable": self.ready.get("supervisor_dumpable"),
            "agent_seccomp": self.ready.get("agent_seccomp"),
            "agent_landlock": self.ready.get("agent_landlock"),
            "survivors": survivors,
            "stdout_bytes": self.stdout.total,
            "stderr_bytes": self.stderr.total,
            "output_truncated": self.stdout.truncated or self.stderr.truncated,
            "connections_refused": gateway.refused if gateway else 0,
            "egress_opened": gateway.egress.opened if gateway and gateway.egress else 0,
            "egress_refused": gateway.egress.refused if gateway and gateway.egress else 0,
        }
        return self._facts

    def _survivors(self) -> int | None:
        """Processes still in the sandbox's PID namespace (or with its uid); killed if any.

        None without a sandbox: a plain child's descendants cannot be told from others."""
        if self.pid_ns is None and self.uid is None:
            return None
        found = 0
        for name in filter(str.isdigit, os.listdir("/proc")):
            pid = int(name)
            try:
                same_ns = self.pid_ns is not None and os.readlink(f"/proc/{pid}/ns/pid") == (
                    self.pid_ns
                )
                same_uid = self.uid is not None and os.stat(f"/proc/{pid}").st_uid == self.uid
            except OSError:
                continue
            if same_ns or same_uid:
                found += 1
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        return found


def quota_mounts_argv(spec: SandboxSpec, staging: Path, privileged: bool) -> list[str]:
    """The keeper's prefix (`keeper_argv`) for this sandbox's writable file systems."""
    mounts: list[Mount] = [
        [str(s.folder), s.size, s.inodes, s.mode] for s in scratch_space(spec, staging)
    ]
    return keeper_argv(not privileged, mounts, [str(pty_folder(staging)), spec.limits.ptys])


class SandboxFailed(Exception):
    """The sandbox could not be made ready: infrastructure, not the agent."""


def _read_all(fd: int) -> str:
    chunks = []
    with os.fdopen(fd, "rb") as fh:
        while chunk := fh.read(4096):
            chunks.append(chunk)
            if b"}" in chunk:
                break
    return b"".join(chunks).decode(errors="replace")


def _free_port() -> int:
    from endstate.browser import free_port

    return free_port()


def _remove_singleton_folder(profile: Path) -> None:
    """An unsandboxed browser's profile names its singleton socket's folder, which Chromium
    makes in the system's temporary folder and removes only when it shuts down cleanly; a
    browser stopped by a kill leaves it, so it goes here, when it is this user's and named so."""
    try:
        folder = Path(os.readlink(profile / "SingletonSocket")).parent
        info = folder.lstat()
    except OSError:
        return
    if (
        folder.parent == Path(tempfile.gettempdir())
        and folder.name.startswith("org.chromium.Chromium.")
        and stat.S_ISDIR(info.st_mode)
        and info.st_uid == os.getuid()
    ):
        shutil.rmtree(folder, ignore_errors=True)
