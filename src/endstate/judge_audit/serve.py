"""Serving the labelling page on loopback, as the run viewer is served: the socket bound
before the URL is announced, so `--port 0` prints a port that already answers."""

from __future__ import annotations

import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

import uvicorn

from endstate.judge_audit.app import make_app
from endstate.runs.viewer.serve import bind, url_of


def serve(
    root: Path, host: str, port: int, open_browser: bool, announce: Callable[[str], None]
) -> None:
    """Load the sample (refused before listening if unreadable), listen, announce, serve."""
    app = make_app(root)
    sock = bind(host, port)
    url = url_of(sock)
    announce(url)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        sock.close()
