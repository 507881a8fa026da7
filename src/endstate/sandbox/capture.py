"""Bounded capture of an agent's output: a flood cannot exhaust the harness's memory.

The head and the tail are kept (the final message is the last line of stdout), the middle is
dropped, and the record says how many bytes there were and that some were dropped.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

HEAD = 64 * 1024


@dataclass
class Capture:
    limit: int
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    @property
    def truncated(self) -> bool:
        return self.total > self.limit

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = min(HEAD, self.limit) - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            keep = max(self.limit - len(self.head), 0)
            if len(self.tail) > keep:
                del self.tail[: len(self.tail) - keep]

    def text(self) -> bytes:
        if not self.truncated:
            return bytes(self.head + self.tail)
        dropped = self.total - len(self.head) - len(self.tail)
        return bytes(self.head) + f"\n[... {dropped} bytes dropped ...]\n".encode() + self.tail


async def drain(stream: asyncio.StreamReader | None, capture: Capture) -> None:
    if stream is None:
        return
    while data := await stream.read(65536):
        capture.feed(data)
