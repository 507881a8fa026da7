"""Serving the viewer: a socket bound on loopback before the URL is announced.

The socket is bound (and listening) here rather than by uvicorn so that `--port 0` yields
the port the system chose, and the URL printed is one that already answers.
"""

from __future__ import annotations

import socket
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

import uvicorn

from endstate.errors import EndstateError
from endstate.runs.viewer.app import make_app
from endstate.runs.viewer.guard import check_host
from endstate.runs.viewer.run_data import load_run


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on a loopback address (anything else refused)."""
    address = check_host(host)
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise EndstateError(
            f"cannot listen on {address} port {port}: {exc.strerror or exc}"
        ) from None
    return sock


def url_of(sock: socket.socket) -> str:
    address, port = sock.getsockname()[:2]
    shown = f"[{address}]" if ":" in address else address
    return f"http://{shown}:{port}/"


def serve(
    root: Path, host: str, port: int, open_browser: bool, announce: Callable[[str], None]
) -> None:
    """Check the run, listen, announce the URL (and open it), serve until interrupted."""
    load_run(root)  # a directory that is not a readable run is refused before listening
    sock = bind(host, port)
    url = url_of(sock)
    announce(url)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    config = uvicorn.Config(make_app(root), log_level="warning", access_log=False, lifespan="off")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
