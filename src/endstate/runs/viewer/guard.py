"""The viewer's guard: loopback only, for loopback callers, and no agent text run as code.

The pages show what agents wrote and what end states held, so they are treated as hostile
markup twice over: the templates escape everything, and every response forbids inline
script (a Content-Security-Policy allowing only the viewer's own script file). Files of the
run are served sandboxed, so even an HTML page an agent downloaded cannot run script in the
viewer's origin. A Host header naming anything but a loopback address is refused, so a web
page elsewhere cannot read the viewer through a rebound DNS name.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from endstate.errors import EndstateError

PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
FILE_POLICY = "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'"
LOOPBACK_NAMES = ("localhost",)


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_host(host: str) -> str:
    """The address to listen on; anything but loopback is refused with one clear line."""
    if not is_loopback(host):
        raise EndstateError(
            f"--host {host}: the viewer listens only on a loopback address "
            "(127.0.0.1, ::1 or localhost); it shows agent output and end states to whoever "
            "can reach it"
        )
    return "127.0.0.1" if host.lower() in LOOPBACK_NAMES else host.strip("[]")


def _host_header(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"host":
            host: str | None = urlsplit("//" + value.decode("latin-1")).hostname
            return host
    return None


class Guard:
    """ASGI middleware: refuse a non-loopback Host; set the security headers on every reply."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = _host_header(scope)
        if host is None or not is_loopback(host):
            await _refuse(send)
            return
        policy = FILE_POLICY if scope["path"].startswith("/files/") else PAGE_POLICY

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [
                    (b"content-security-policy", policy.encode()),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"cache-control", b"no-store"),
                ]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, secured)


async def _refuse(send: Send) -> None:
    body = b"refused: the viewer answers only requests addressed to a loopback host\n"
    await send(
        {
            "type": "http.response.start",
            "status": 421,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
