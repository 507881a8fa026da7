"""Judging the text attack from outside: the run's viewer, served on loopback as a user would
open it, must show every hidden character the agent sent as an escape and none of its markup.

The characters to look for are read from the harness's own record of the attempt (its final
message), not from the attack's source: whatever reached the record must reach the page
visibly, never raw and never dropped.
"""

from __future__ import annotations

import re
import threading
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from endstate.records import TaskRecord
from endstate.visible import hidden

if TYPE_CHECKING:
    import uvicorn

OWN_SCRIPT = '<script src="/static/viewer.js" defer></script>'
HANDLER = re.compile(r"<[a-z][^<>]*\son[a-z]+\s*=", re.I)  # a tag with an event handler


def page_problems(html: str, planted: list[str], where: str) -> list[str]:
    """What is wrong with one page: hidden characters raw, planted ones not shown, markup."""
    problems = []
    raw = sorted(set(hidden(html)))
    if raw:
        problems.append(f"{where} holds raw {', '.join(raw[:6])}")
    dropped = [code for code in dict.fromkeys(planted) if f"&lt;{code}&gt;" not in html]
    if dropped:
        problems.append(f"{where} does not show {', '.join(dropped[:6])} as an escape")
    if "<script" in html.replace(OWN_SCRIPT, "") or HANDLER.search(html):
        problems.append(f"{where} carries the agent's markup as markup")
    return problems


def _serve(run_dir: Path) -> tuple[str, uvicorn.Server, threading.Thread]:
    """The viewer over `run_dir`, on a loopback port of its own, in a thread."""
    import uvicorn

    from endstate.runs.viewer.app import make_app
    from endstate.runs.viewer.serve import bind, url_of

    sock = bind("127.0.0.1", 0)
    config = uvicorn.Config(
        make_app(run_dir), log_level="warning", access_log=False, lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    return url_of(sock), server, thread


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return str(reply.read().decode("utf-8"))


def viewer_problems(run_dir: Path, record: TaskRecord) -> tuple[str | None, str]:
    """(what broke, or None; what was seen) for the attempt's page and the run's page, with
    the run's reports read as written."""
    message = record.facts.final_message if record.facts else None
    planted = hidden(message or "")
    if not planted:
        return "no hidden character of the agent's reached its record", ""
    url, server, thread = _serve(run_dir)
    try:
        attempt = f"{url}attempts/{quote(record.task_id, safe='')}/{quote(record.attempt)}"
        pages = {"the viewer's attempt page": _get(attempt), "the viewer's run page": _get(url)}
    except OSError as exc:
        return f"the viewer did not serve the attempt: {exc}", ""
    finally:
        server.should_exit = True
        thread.join(30)
    problems = [
        p
        for where, html in pages.items()
        for p in page_problems(html, planted if "attempt" in where else [], where)
    ]
    for name in ("report.html", "report.txt"):
        raw = sorted(set(hidden((run_dir / name).read_text(errors="replace"))))
        if raw:
            problems.append(f"{name} holds raw {', '.join(raw[:6])}")
    if problems:
        return "; ".join(problems), ""
    distinct = list(dict.fromkeys(planted))
    page = pages["the viewer's attempt page"]
    return None, (
        f"viewer: {len(distinct)} hidden character(s) of the agent's ({', '.join(distinct[:4])}"
        f"{' …' if len(distinct) > 4 else ''}) shown as escapes, "
        f"{page.count('&lt;U+202E&gt;')}× U+202E on its page, its markup escaped; none raw "
        "in report.html or report.txt"
    )
