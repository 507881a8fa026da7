"""The first process of an agent's sandbox: forwarders, the agent's own browser, the agent.

This file runs *inside* the sandbox, as the sandbox's unprivileged user, under the Python the
sandbox offers. It imports nothing of endstate (the package is not visible there) and only
the standard library. It is also the launcher with `--isolation none`, where it runs as a
plain child of the harness and skips the forwarders.

Protocol with the harness: the configuration is a JSON file named by argv[1]; events are
JSON lines on the file descriptor it names (`ready`, `error`, `exit`); the agent's input is
the one JSON line read from stdin after `ready`; stdout and stderr are the agent's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import importlib.util
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Any

CONTROL = {"fd": 3}
STORAGE_BYTES = 32 * 1024 * 1024  # as spec.STORAGE_BYTES: a larger read is refused
FALLBACK: list[str] = []  # why the browser's own sandbox was refused, if it was


def emit(event: str, **fields: Any) -> None:
    line = json.dumps({"event": event, **fields}) + "\n"
    with contextlib.suppress(OSError):
        os.write(CONTROL["fd"], line.encode())


# -- forwarders: 127.0.0.1:PORT inside the sandbox -> a Unix socket the harness serves ------
# (its own copy of the relay: nothing of endstate can be imported in here)
async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def _connect_unix(path: str, patience_s: float = 5.0) -> socket.socket:
    """A Unix socket connected to `path`. A listener whose backlog is full fails a
    non-blocking connect at once (EAGAIN) where a TCP one would queue it; asyncio would take
    that for a connect in progress and hand back an unconnected socket, so this waits and
    tries again: the harness must see every connection, to relay it or count it refused."""
    deadline = time.monotonic() + patience_s
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            sock.connect(path)
            return sock
        except BlockingIOError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.01)
        except OSError:
            sock.close()
            raise


async def _forward(port: int, socket_path: str) -> asyncio.Server:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            sock = await _connect_unix(socket_path)
            up_reader, up_writer = await asyncio.open_unix_connection(sock=sock)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    # As relay.BACKLOG (nothing of endstate can be imported in here).
    return await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)


def start_forwarders(routes: list[dict[str, Any]]) -> None:
    """Serve every route on a background event loop; return once all are listening."""
    if not routes:
        return
    ready = threading.Event()
    failure: list[BaseException] = []

    def run() -> None:
        loop = asyncio.new_event_loop()
        try:
            servers = [loop.run_until_complete(_forward(r["port"], r["socket"])) for r in routes]
        except BaseException as exc:
            failure.append(exc)
            ready.set()
            return
        ready.set()
        try:
            loop.run_forever()
        finally:
            for server in servers:
                server.close()

    threading.Thread(target=run, name="forwarders", daemon=True).start()
    ready.wait(10)
    if failure:
        raise RuntimeError(f"forwarder could not listen: {failure[0]}")


# -- the agent's own browser --------------------------------------------------------------
def start_browser(spec: dict[str, Any]) -> tuple[subprocess.Popen[bytes], str]:
    """The browser with its own sandbox; without it only where the platform refuses one."""
    try:
        return _launch_browser(spec, [])
    except RuntimeError as exc:
        if not spec.get("fallback_no_sandbox"):
            raise
        FALLBACK.append(str(exc))
        return _launch_browser(spec, ["--no-sandbox"])


def _launch_browser(spec: dict[str, Any], extra: list[str]) -> tuple[subprocess.Popen[bytes], str]:
    port = int(spec["cdp_port"])
    argv = [
        spec["executable"],
        *spec["args"],
        *extra,
        f"--remote-debugging-port={port}",
        "--remote-debugging-address=127.0.0.1",
    ]
    log = open(spec.get("log", os.devnull), "wb")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + float(spec.get("timeout", 30))
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"browser exited with status {proc.returncode} before it was ready")
        try:
            with urllib.request.urlopen(endpoint + "/json/version", timeout=1) as reply:
                json.load(reply)
            return proc, endpoint
        except (OSError, ValueError):
            time.sleep(0.02)
    proc.kill()
    raise RuntimeError("browser did not open its DevTools endpoint in time")


def browser_sandboxed() -> bool | None:
    """Whether the browser's renderers run under seccomp (Chromium's own sandbox)."""
    found = None
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmdline = fh.read()
            if b"--type=renderer" not in cmdline:
                continue
            with open(f"/proc/{pid}/status") as fh:
                status = fh.read()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("Seccomp:"):
                on = line.split()[1] != "0"
                found = on if found is None else (found and on)
    return found


# -- out of the agent's reach -------------------------------------------------------------
def out_of_reach() -> bool:
    """Make this process unreachable by the agent, first thing; whether it now is.

    Not dumpable: the kernel then refuses ptrace, /proc/1/mem, /proc/1/fd (the control pipe)
    and process_vm_readv to anyone without CAP_SYS_PTRACE, whatever the uid. And SIGINT back
    to its default, which for the first process of a PID namespace means a signal from inside
    is dropped: Python's own handler would otherwise let the agent end the supervisor early."""
    pr_set_dumpable, pr_get_dumpable = 4, 3
    _prctl(pr_set_dumpable, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return _prctl(pr_get_dumpable) == 0


def _prctl(option: int, arg: int = 0) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    zero = ctypes.c_ulong(0)
    return int(libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg), zero, zero, zero))


def confinement(config: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    """The agent's command, through confine.py when the sandbox is hardened, and what a
    trial confinement put in force (its seccomp filter, its Landlock ABI)."""
    path = config.get("confine")
    if not path:
        return list(config["argv"]), {"agent_seccomp": None, "agent_landlock": None}
    prefix = [sys.executable, "-I", "-S", path]
    done = subprocess.run(
        [*prefix, "--check"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip() or f"confine.py exited with {done.returncode}")
    facts = json.loads(done.stdout)
    return [*prefix, "--", *config["argv"]], {
        "agent_seccomp": f"{facts['seccomp']}: {facts['denied']} calls denied",
        "agent_landlock": facts["landlock"],
    }


# -- the agent ----------------------------------------------------------------------------
def set_limits(limits: dict[str, int]) -> None:
    names = {
        "nproc": resource.RLIMIT_NPROC,
        "fsize": resource.RLIMIT_FSIZE,
        "core": resource.RLIMIT_CORE,
        "nofile": resource.RLIMIT_NOFILE,
        "data": resource.RLIMIT_DATA,
    }
    for name, value in limits.items():
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(names[name], (value, value))


def read_line(fd: int) -> bytes:
    """One line from fd, byte by byte, so nothing after it is consumed."""
    out = bytearray()
    while True:
        chunk = os.read(fd, 1)
        if not chunk or chunk == b"\n":
            return bytes(out)
        out += chunk


def watch_harness(isolation: str) -> None:
    """The harness holds our stdin open until the end: end of file means it is gone.

    Then this process ends. In a sandbox it is the namespace's first process, so the kernel
    ends every other process with it; without one, our process group is ended instead."""
    with contextlib.suppress(OSError):
        while os.read(0, 4096):
            pass
    if isolation == "none":
        with contextlib.suppress(OSError):
            os.killpg(0, signal.SIGKILL)
    os._exit(0)


class Reaper:
    """As the namespace's first process we inherit every orphan: reap them all, and keep
    the exit status of the one child we wait for."""

    def __init__(self) -> None:
        self.statuses: dict[int, int] = {}
        self.changed = threading.Condition()
        threading.Thread(target=self._run, name="reaper", daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                time.sleep(0.05)
                continue
            with self.changed:
                self.statuses[pid] = os.waitstatus_to_exitcode(status)
                self.changed.notify_all()

    def wait(self, pid: int) -> int:
        with self.changed:
            self.changed.wait_for(lambda: pid in self.statuses)
            return self.statuses[pid]


# -- the agent's browser storage, for environments that keep their end state there ---------
def time_limit(payload: bytes) -> float:
    """The attempt's limit, from the agent's own input (the harness wrote it there)."""
    try:
        value = json.loads(payload).get("time_limit")
    except (ValueError, AttributeError):
        value = None
    return float(value) if isinstance(value, int | float) and value > 0 else 300.0


def wait_within(
    agent: subprocess.Popen[bytes], reaper: Reaper | None, limit: float
) -> tuple[int | None, bool]:
    """The agent's exit status, or None and True once it has been stopped at the limit."""
    if reaper is not None:
        with reaper.changed:
            done = reaper.changed.wait_for(lambda: agent.pid in reaper.statuses, timeout=limit)
            if done:
                return reaper.statuses[agent.pid], False
    else:
        with contextlib.suppress(subprocess.TimeoutExpired):
            return agent.wait(timeout=limit), False
    with contextlib.suppress(OSError):
        os.killpg(agent.pid, signal.SIGKILL)  # the agent's session: it and what it started
    return None, True


def read_storage(endpoint: str | None, origins: list[str]) -> dict[str, Any]:
    """The `exit` event's storage fields: what the browser holds per origin, or why not."""
    if endpoint is None:
        return {"storage": None, "storage_error": "the agent had no browser"}
    try:
        # Beside this file, in the sandbox as in the source tree; loaded by path.
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser_storage.py")
        spec = importlib.util.spec_from_file_location("browser_storage", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        storage = module.read_local_storage(endpoint, origins)
    except Exception as exc:  # whatever the agent left the browser in
        return {"storage": None, "storage_error": f"the agent's browser storage: {exc}"}
    if len(json.dumps(storage)) > STORAGE_BYTES:
        return {"storage": None, "storage_error": "the agent's browser storage is too large"}
    return {"storage": storage, "storage_error": None}


def main() -> int:
    with open(sys.argv[1]) as fh:
        config = json.load(fh)
    CONTROL["fd"] = int(config.get("control_fd", 3))
    dumpable = not out_of_reach() if config.get("hardened") else True
    began = time.monotonic()
    set_limits(config.get("limits", {}))
    browser: subprocess.Popen[bytes] | None = None
    try:
        argv, confined = confinement(config)
        start_forwarders(config.get("forward", []))
        endpoint = None
        if config.get("browser"):
            browser, endpoint = start_browser(config["browser"])
    except Exception as exc:
        emit("error", message=str(exc))
        return 70
    flags = (config.get("browser") or {}).get("args", [])
    unsandboxed = bool(FALLBACK) or "--no-sandbox" in flags
    emit(
        "ready",
        cdp_endpoint=endpoint,
        browser_pid=browser.pid if browser else None,
        browser_sandbox=None if browser is None else ("off" if unsandboxed else "on"),
        browser_fallback=FALLBACK[0] if FALLBACK else None,
        browser_seccomp=browser_sandboxed() if browser else None,
        supervisor_dumpable=dumpable,
        **confined,
        ready_ms=round((time.monotonic() - began) * 1000, 1),
    )
    payload = read_line(0)
    isolation = config.get("isolation", "sandbox")
    if not payload:  # the harness went away before the attempt began
        watch_harness(isolation)
    threading.Thread(target=watch_harness, args=(isolation,), daemon=True).start()
    reaper = Reaper() if os.getpid() == 1 else None
    try:
        agent = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            cwd=config["cwd"],
            env=config["env"],
            start_new_session=bool(config.get("storage_origins")),  # to end it at the limit
        )
    except OSError as exc:
        emit("exit", status=None, error=f"cannot start {config['argv'][0]}: {exc}")
        return 0
    assert agent.stdin is not None
    with contextlib.suppress(BrokenPipeError, OSError):
        agent.stdin.write(payload + b"\n")
        agent.stdin.close()
    origins = config.get("storage_origins") or []
    if not origins:
        status = reaper.wait(agent.pid) if reaper else agent.wait()
        emit("exit", status=status)
    else:  # the end state lives in this browser: keep the limit here, then read it
        ended, timed_out = wait_within(agent, reaper, time_limit(payload))
        emit("exit", status=ended, timed_out=timed_out, **read_storage(endpoint, origins))
    if browser is not None and config.get("isolation") == "none":
        # Without a PID namespace nothing else would end the browser.
        with contextlib.suppress(OSError):
            browser.send_signal(signal.SIGTERM)
    return 0


if __name__ == "__main__":
    sys.exit(main())
