"""Sandboxes made ready ahead of their attempts, so a browser's start-up is not on the clock.

Each sandbox still serves exactly one attempt and is destroyed after it: warming only moves
the making earlier, never shares anything between attempts.
"""

from __future__ import annotations

import asyncio
import contextlib

from endstate.sandbox.launch import Sandbox, SandboxFailed
from endstate.sandbox.spec import SandboxSpec


class SandboxPool:
    def __init__(self, spec: SandboxSpec, warm: int, planned: int) -> None:
        self.spec = spec
        self.warm = max(1, warm)
        self.remaining = planned  # never make more sandboxes than attempts left to run
        self._ready: asyncio.Queue[Sandbox | BaseException] = asyncio.Queue()
        self._making: set[asyncio.Task[None]] = set()

    def start(self) -> None:
        for _ in range(min(self.warm, self.remaining)):
            self._make_one()

    def _make_one(self) -> None:
        self.remaining -= 1
        task = asyncio.ensure_future(self._make())
        self._making.add(task)
        task.add_done_callback(self._making.discard)

    async def _make(self) -> None:
        sandbox = Sandbox(self.spec)
        try:
            await sandbox.launch()
        except BaseException as exc:
            await asyncio.shield(sandbox.destroy())
            if not isinstance(exc, Exception):
                raise
            self._ready.put_nowait(exc)
            return
        self._ready.put_nowait(sandbox)

    async def take(self) -> Sandbox:
        """A ready sandbox for one attempt; a replacement starts warming at once."""
        if self._ready.empty() and not self._making:
            self._make_one()
        item = await self._ready.get()
        if self.remaining > 0:
            self._make_one()
        if isinstance(item, BaseException):
            raise SandboxFailed(str(item)) from item
        return item

    async def aclose(self) -> None:
        # Sandboxes still starting are awaited, not cancelled: a launch cut short could leave
        # a process behind that nothing would then destroy.
        self.remaining = 0
        for task in list(self._making):
            with contextlib.suppress(Exception):
                await task
        while not self._ready.empty():
            item = self._ready.get_nowait()
            if isinstance(item, Sandbox):
                await item.destroy()
