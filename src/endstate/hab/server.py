"""Serving a portals build: one `next start` on a loopback port, reused for many episodes.

The app keeps every episode's state in the browser (localStorage keyed by task, run and tab),
so one server serves any number of episodes; the harness isolates them by browser context.
The server runs in its own process group and is ended as a group, on `stop()`, on leaving the
`with` block, on an error or Ctrl-C while starting, and at interpreter exit.
"""

from __future__ import annotations

import atexit
import shutil
import socket
import subprocess
import threading
import time
from collections import deque
from types import TracebackType
from typing import IO

import httpx

from endstate.errors import EndstateError
from endstate.hab.build import PortalBuild
from endstate.hab.process import end_group, tool_env

READY_PATH = "/emr/worklist"  # the EHR's start page: it answers 200 once the app is up
START_TIMEOUT = 60.0
OUTPUT_LINES = 40  # how much of the server's output is kept for error messages
SHOWN_LINES = 15


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class PortalServer:
    """`next start` for one build, on `host:port` (a free port unless one is given)."""

    def __init__(
        self,
        build: PortalBuild,
        *,
        port: int | None = None,
        host: str = "127.0.0.1",
        ready_path: str = READY_PATH,
        timeout: float = START_TIMEOUT,
    ) -> None:
        if ready_path not in build.routes:
            raise EndstateError(f"{build.root}: the build has no page {ready_path}")
        self.build = build
        self.host = host
        self.port = port or 0
        self.ready_path = ready_path
        self.timeout = timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._output: deque[str] = deque(maxlen=OUTPUT_LINES)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        """The server's process id (also its process group's), while it runs."""
        return self._proc.pid if self._proc is not None else None

    def url(self, path: str) -> str:
        return self.base_url + path

    def start(self) -> PortalServer:
        """Start the server and wait until its ready page answers 200; idempotent."""
        if self._proc is not None:
            return self
        next_bin = self.build.root / "node_modules" / ".bin" / "next"
        if not next_bin.exists():
            raise EndstateError(f"{self.build.root}: not a built portals app ({next_bin} missing)")
        if shutil.which("node") is None:
            raise EndstateError("Node.js is needed to serve the portals: 'node' not found on PATH")
        self.port = self.port or free_port(self.host)
        self._output.clear()
        argv = [str(next_bin), "start", "-H", self.host, "-p", str(self.port)]
        self._proc = subprocess.Popen(
            argv,
            cwd=self.build.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=tool_env(),
            start_new_session=True,
        )
        atexit.register(self.stop)
        assert self._proc.stdout is not None
        self._reader = threading.Thread(
            target=self._collect, args=(self._proc.stdout,), name="portals-output", daemon=True
        )
        self._reader.start()
        try:
            self._wait_ready(self._proc)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """End the server and everything it started (SIGTERM, SIGKILL after 5 s); idempotent."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        atexit.unregister(self.stop)
        end_group(proc)
        if self._reader is not None:
            self._reader.join(timeout=2)
            self._reader = None
        if proc.stdout is not None:
            proc.stdout.close()

    def output(self) -> list[str]:
        """The server's last lines of output."""
        return list(self._output)

    def __enter__(self) -> PortalServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def _collect(self, stream: IO[bytes]) -> None:
        try:
            for raw in stream:
                self._output.append(raw.decode("utf-8", "replace").rstrip())
        except (OSError, ValueError):  # closed by stop()
            return

    def _wait_ready(self, proc: subprocess.Popen[bytes]) -> None:
        url = self.url(self.ready_path)
        deadline = time.monotonic() + self.timeout
        last = "no answer"
        with httpx.Client(timeout=5.0, trust_env=False) as client:
            while True:
                code = proc.poll()
                if code is not None:
                    time.sleep(0.2)  # let the reader catch the last lines
                    raise EndstateError(
                        f"the portals server exited (code {code}) before {url} answered"
                        + self._tail()
                    )
                try:
                    status = client.get(url).status_code
                    if status == 200:
                        return
                    last = f"status {status}"
                except httpx.TransportError as exc:
                    last = type(exc).__name__
                if time.monotonic() > deadline:
                    raise EndstateError(
                        f"the portals server did not answer 200 on {url} within "
                        f"{self.timeout:.0f} s (last: {last})" + self._tail()
                    )
                time.sleep(0.25)

    def _tail(self) -> str:
        lines = self.output()[-SHOWN_LINES:]
        if not lines:
            return "; it printed nothing"
        return "; its last output:\n" + "\n".join("  " + line for line in lines)
