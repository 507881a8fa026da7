"""`endstate env hab …`: build the public benchmark's own portals from a checkout, and serve them.

`setup` is slow the first time (`npm ci`, `next build`: a minute or two) and instant after, so
it shows which step runs and for how long. `serve` runs the most recent build for a person (or
a runner in another process) until Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer
from rich.progress import Progress, SpinnerColumn, TaskID, TextColumn, TimeElapsedColumn

from endstate.cli.console import err, out
from endstate.errors import EndstateError
from endstate.hab.build import build_portals, builds_dir, find_build

hab_app = typer.Typer(
    help="Build the HealthAdminBench v2 portals (its Next.js app) from a checkout and serve them.",
    no_args_is_help=True,
    rich_markup_mode=None,  # plain help: no type tags such as <bool> or <list[str]>
)

# Each portal's start page, as the app routes it.
START_PAGES = {
    "ehr": "/emr/worklist",
    "payer-a": "/payer-a/login",
    "payer-b": "/payer-b/login",
    "fax": "/fax-portal",
}

CacheDirOption = Annotated[
    Path | None,
    typer.Option("--cache-dir", help="Where builds are kept (default: $XDG_CACHE_HOME/endstate)."),
]


@hab_app.command()
def setup(
    source: Annotated[
        Path, typer.Option("--source", help="The portals app of a HealthAdminBench checkout.")
    ],
    cache_dir: CacheDirOption = None,
) -> None:
    """Build the portals from SOURCE (npm ci, next build), or reuse the build of that source."""
    with _Steps() as steps:
        built = build_portals(source, cache_dir, progress=steps.step)
    out.print(f"build    {built.root}", highlight=False)
    out.print(f"source   {built.source_hash}", highlight=False)
    out.print(f"routes   {len(built.routes)}", highlight=False)
    out.print(f"next     {built.next_version} (node {built.node_version})", highlight=False)


@hab_app.command()
def serve(
    port: Annotated[
        int | None, typer.Option("--port", help="Port to listen on (a free one if omitted).")
    ] = None,
    cache_dir: CacheDirOption = None,
) -> None:
    """Serve the most recent build on 127.0.0.1 and print the portals' start pages; stop with
    Ctrl-C or SIGTERM."""
    from endstate.hab.server import PortalServer  # deferred: only `serve` needs httpx

    built = find_build(cache_dir)
    if built is None:
        raise EndstateError(
            f"no portals build in {builds_dir(cache_dir)}: "
            "run `endstate env hab setup --source PATH` first"
        )
    server = PortalServer(built, port=port)
    with _terminate_like_interrupt():
        try:
            with err.status(f"starting the portals from {built.root}"):
                server.start()
            out.print(f"serving  {server.base_url}  (build {built.build_id})", highlight=False)
            for name, path in START_PAGES.items():
                note = "" if path in built.routes else "  (not a page of this build)"
                out.print(f"  {name:<8} {server.url(path)}{note}", highlight=False)
            out.print("\nServing; press Ctrl-C (or send SIGTERM) to stop.", highlight=False)
            threading.Event().wait()
        except KeyboardInterrupt:
            out.print("stopping", highlight=False)
        finally:
            server.stop()


class _Steps:
    """Shows each build step and its elapsed time: a live line per step on a terminal, else a
    line as each step starts and ends (for logs)."""

    def __init__(self) -> None:
        columns = (SpinnerColumn(finished_text="✓"), TextColumn("{task.description}"))
        live = err.is_terminal
        self._bar = Progress(*columns, TimeElapsedColumn(), console=err) if live else None
        self._task: TaskID | None = None
        self._name = ""
        self._began = 0.0

    def step(self, message: str) -> None:
        self._end(ok=True)
        self._name, self._began = message, time.monotonic()
        if self._bar is not None:
            self._task = self._bar.add_task(message, total=1)
        else:
            err.print(f"… {message}", highlight=False)

    def _end(self, ok: bool) -> None:
        if not self._name:
            return
        if self._bar is not None and self._task is not None:
            if ok:
                self._bar.update(self._task, completed=1)
            else:
                self._bar.update(self._task, description=f"{self._name}: failed")
            self._bar.stop_task(self._task)
        else:
            took = time.monotonic() - self._began
            err.print(f"{'✓' if ok else '✗'} {self._name} ({took:.0f} s)", highlight=False)
        self._name = ""

    def __enter__(self) -> _Steps:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        self._end(ok=exc_type is None)
        if self._bar is not None:
            self._bar.stop()


@contextmanager
def _terminate_like_interrupt() -> Iterator[None]:
    """While serving, SIGTERM stops the server as Ctrl-C does (its default would leave no
    chance to end the server's process group)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
