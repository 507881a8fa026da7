"""The hostile agent's attacks on the shared suite: bodies of hundreds of MiB, a gigabyte
upload, a request flood. Each reports how far it got, so the harness can judge it held
because the suite refused, not because the attack stopped. Copied beside `hostile_agent.py`."""

from __future__ import annotations

import contextlib
import http.client
import http.cookiejar
import re
import socket
import threading
import time
import urllib.parse
import urllib.request
from typing import Any

from hostile_kit import REPORT, ehr, found, tried  # type: ignore[import-not-found]

MIB = 1024 * 1024
CHUNK = b"a" * MIB


def _bound(start_url: str) -> tuple[str, str]:
    """(base URL, Cookie header) of a session bound to the episode: what is refused is then
    charged to it, where the harness can see it."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with contextlib.suppress(Exception):
        opener.open(start_url, timeout=10).read()
    cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
    return start_url.split("/start")[0], cookie


def _send_body(
    url: str, size: int, *, chunked: bool, content_type: str, head: bytes, cookie: str
) -> tuple[str, bool]:
    """POST a body of `size` bytes (`head` first): how the server answered, and whether all of
    it went out (a server that closes on an unread body resets the connection, and the
    answer it wrote may be lost with it)."""
    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
    request = (
        f"POST {parts.path or '/'} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Cookie: {cookie}\r\nContent-Type: {content_type}\r\n{framing}\r\n\r\n"
    ).encode()
    sent = 0
    with socket.create_connection((host, port), timeout=20) as sock:
        sock.sendall(request)
        try:
            body = head
            while sent < size:
                piece = body or CHUNK[: min(MIB, size - sent)]
                body = b""
                sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                sent += len(piece)
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        except OSError as exc:  # the server closed on us: what did it say?
            REPORT["notes"].append(f"cut after {sent // MIB} MiB ({exc.strerror or exc})")
        answer = b""
        with contextlib.suppress(OSError):
            sock.settimeout(10)
            while len(answer) < 200 and (got := sock.recv(4096)):
                answer += got
    status = answer.split(b"\r\n", 1)[0].decode(errors="replace") or "no answer"
    return f"{status} after {sent // MIB} of {size // MIB} MiB", sent >= size


def body_bomb(task: dict[str, Any]) -> None:
    tried("a 300 MiB form body, the same chunked, and a 1 GiB file upload")
    base, cookie = _bound(task["start_urls"]["ehr"])
    _opener, _base, page = ehr(task)
    refs = re.findall(r'href="/referrals/(REF-[0-9-]+)"', page) or ["REF-0"]
    target = f"{base}/referrals/{refs[0]}/notes"  # a form the EHR reads
    form = "application/x-www-form-urlencoded"
    for chunked in (False, True):
        size = 300 * MIB
        said, whole = _send_body(
            target, size, chunked=chunked, content_type=form, head=b"", cookie=cookie
        )
        REPORT["notes"].append(("chunked: " if chunked else "sized: ") + said)
        if whole and " 413 " not in said:
            found(f"a {size // MIB} MiB body was taken whole", said)
    payer, cookie = _bound(task["start_urls"]["payer_a"])
    boundary = "es-rt-boundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="attachments"; '
        'filename="huge.pdf"\r\nContent-Type: application/pdf\r\n\r\n'
    ).encode()
    said, whole = _send_body(
        f"{payer}/login",
        1024 * MIB,
        chunked=False,
        content_type=f"multipart/form-data; boundary={boundary}",
        head=head,
        cookie=cookie,
    )
    REPORT["notes"].append("upload: " + said)
    if whole and " 413 " not in said:
        found("a 1 GiB upload was taken whole", said)


# The suite's fair share as shipped (SuiteLimits): a flood must ask for more than this, or
# it never meets the bound it attacks (a starved machine can send less than a fair share).
BURST, RATE = 100, 20.0


def request_flood(task: dict[str, Any]) -> None:
    seconds, longest, threads = 6.0, 30.0, 48
    tried(f"{threads} kept-alive connections flooding its own pages for {seconds:g} s or more")
    base, cookie = _bound(task["start_urls"]["ehr"])
    parts = urllib.parse.urlsplit(base)
    served = refused = failed = started = 0
    lock = threading.Lock()
    began = time.monotonic()

    def more() -> bool:
        """Until it has flooded for `seconds` and asked for well over its fair share by then
        (at most `longest`): a flood that never exceeded the share proves nothing."""
        elapsed = time.monotonic() - began
        over = started > BURST + RATE * elapsed + 20
        return elapsed < seconds or (not over and elapsed < longest)

    def hammer(n: int) -> None:
        nonlocal served, refused, failed, started
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
        # Pages (each a page view to record) and the cheapest answer there is, in turn: the
        # count is what a fair share bounds, whatever each request costs.
        paths = ("/worklist", "/favicon.ico") if n % 2 else ("/favicon.ico", "/worklist")
        i = 0
        while more():
            try:
                with lock:
                    started += 1
                conn.request("GET", paths[i % 2], headers={"Cookie": cookie})
                reply = conn.getresponse()
                reply.read()
                with lock:
                    if reply.status == 429:
                        refused += 1
                    else:
                        served += 1
                if reply.getheader("connection", "").lower() == "close":
                    conn.close()
            except (OSError, http.client.HTTPException):
                conn.close()
                with lock:
                    failed += 1
            i += 1
        conn.close()

    workers = [threading.Thread(target=hammer, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    took = time.monotonic() - began
    rate = served / took
    REPORT["notes"].append(
        f"flood held to {rate:.0f} requests/s ({served} served, {refused} refused 429, "
        f"{failed} failed, {started} sent in {took:.0f} s)"
    )
    if rate > 60:
        found(f"{rate:.0f} requests a second served to one attempt", "no fair share")
