"""Small real PNG screenshots for computer-use backend tests, one colour per screen so each can
be recognised wherever it ends up in a request."""

from __future__ import annotations

import base64
import struct
import zlib

from endstate.agents.computer import Screen, Viewport


def tiny_png(shade: int, width: int = 4, height: int = 3) -> bytes:
    """A valid RGB PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes([shade % 256, 40, 200]) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


def screen(n: int, viewport: Viewport = Viewport()) -> Screen:
    return Screen(url=f"http://portal.test/page/{n}", viewport=viewport, png=tiny_png(n))


def b64(n: int) -> str:
    return base64.b64encode(tiny_png(n)).decode()
