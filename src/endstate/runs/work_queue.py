"""The attempts a distributed run still owes, handed to workers one at a time.

An attempt leaves the queue when a worker takes it and is either finished (its record
written), or put back at the front when its worker was lost — at most `retries` times, after
which the caller records it as lost. So no attempt is dropped and none is recorded twice. A
worker asking for work while others still hold attempts waits: one of those may come back.
"""

from __future__ import annotations

import asyncio
from collections import Counter, deque

Pair = tuple[str, str]


class WorkQueue:
    def __init__(self, pairs: list[Pair], retries: int) -> None:
        self._pending: deque[Pair] = deque(pairs)
        self._held = 0
        self._tries: Counter[Pair] = Counter()
        self._retries = retries
        self._changed = asyncio.Condition()
        self.drained = asyncio.Event()
        if not pairs:
            self.drained.set()

    @property
    def pending(self) -> list[Pair]:
        return list(self._pending)

    async def take(self) -> Pair | None:
        """The next attempt to run; None once nothing is pending or held by any worker."""
        async with self._changed:
            while not self._pending and self._held:
                await self._changed.wait()
            if not self._pending:
                return None
            self._held += 1
            return self._pending.popleft()

    async def finished(self, pair: Pair) -> None:
        await self._release(None)

    async def worker_lost(self, pair: Pair) -> bool:
        """The worker holding `pair` was lost: True if it goes back to be tried again, False if
        its retries are spent (the caller records it, once)."""
        self._tries[pair] += 1
        again = self._tries[pair] <= self._retries
        await self._release(pair if again else None)
        return again

    async def give_back(self, pair: Pair) -> None:
        """Return an attempt untried (its worker stopped before running it)."""
        await self._release(pair)

    async def _release(self, requeue: Pair | None) -> None:
        async with self._changed:
            self._held -= 1
            if requeue is not None:
                self._pending.appendleft(requeue)
            if not self._pending and not self._held:
                self.drained.set()
            self._changed.notify_all()
