"""`endstate view`: a run's attempts, step by step, in a local browser page."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

# A page served on loopback (the viewer, the judge audit's labelling page): where, and whether
# to open it.
LoopbackHost = Annotated[
    str, typer.Option(help="Loopback address to listen on (127.0.0.1, ::1, localhost).")
]
LoopbackPort = Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free one).")]
NoOpen = Annotated[bool, typer.Option("--no-open", help="Print the URL without opening a browser.")]


def view(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.", metavar="RUN_DIR")],
    host: LoopbackHost = "127.0.0.1",
    port: LoopbackPort = 0,
    no_open: NoOpen = False,
) -> None:
    """Serve a read-only page to step through a run's attempts (Ctrl-C stops it)."""
    from endstate.runs.viewer import serve

    def announce(url: str) -> None:
        sys.stdout.write(f"viewing {run_dir} at {url} (Ctrl-C to stop)\n")
        sys.stdout.flush()

    serve(run_dir, host, port, open_browser=not no_open, announce=announce)
