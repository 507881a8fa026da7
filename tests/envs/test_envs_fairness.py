"""One attempt cannot slow another's pages: a victim's p99 page latency while an attacker
floods stays within 1.5x its p99 while the attacker is quiet, with the suite's per-client
bounds as shipped; with the bounds lifted, the same flood slows it many times over (what the
bounds are for).

The suite runs in this process, as in a run; the victim and the attacker are processes of
their own, as sandboxed agents are, each bound to an episode of its own. The victim asks for
its worklist every 60 ms and times each page. The attacker floods in phases (on for PHASE
seconds, off for as long, by the wall clock both share), so the victim's pages beside the
flood and alone are taken in turns over the same stretch of time: whatever else the machine
is doing (a test suite running beside this one) falls on both sides alike. A page within
SETTLE of a phase's start is left out (the attacker's burst being spent, or its last requests
draining). Latency on a shared machine is still noisy, so a trial that misses the goal is run
twice more and the median of the three ratios is held to it.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import textwrap
import time

import pytest

from endstate.envs import EmbeddedSuite
from endstate.envs.suite.limits import SuiteLimits

pytestmark = pytest.mark.alone  # another test worker's load is not the suite's unfairness

GOAL = 1.5
PHASE = 2.0  # seconds the attacker floods, then as long quiet
CYCLES = 8
SETTLE = 0.4  # seconds at the start of each phase whose pages are left out
LIFTED = SuiteLimits(
    requests_per_second=1e6,
    request_burst=10**6,
    concurrent_requests=10**4,
    queued_requests=10**6,
    body_bytes_per_second=10**12,
)

CLIENT = textwrap.dedent(
    """
    import asyncio, json, sys, time
    import httpx

    async def base_of(client, start):
        r = await client.get(start)
        return str(r.url.copy_with(path="/", query=None)).rstrip("/")

    async def victim(start, begin, end):
        took = []
        async with httpx.AsyncClient(timeout=60) as c:
            base = await base_of(c, start)
            await asyncio.sleep(max(0.0, begin - time.time()))
            while time.time() < end:
                at = time.time()
                t = time.perf_counter()
                r = await c.get(base + "/worklist")
                took.append([at, (time.perf_counter() - t) * 1000])
                assert r.status_code == 200, r.status_code
                await asyncio.sleep(0.06)
        print(json.dumps(took))

    def flooding(begin, phase):
        return (time.time() - begin) % (2 * phase) < phase

    async def attacker(start, kind, begin, end, phase):
        async with httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=48)) as c:
            base = await base_of(c, start)
            sent = 0
            body = b"x" * (200 << 20) if kind == "bodies" else b""
            async def one():
                nonlocal sent
                while time.time() < end:
                    if time.time() < begin or not flooding(begin, phase):
                        await asyncio.sleep(0.02)
                        continue
                    try:
                        if kind == "bodies":
                            await c.post(base + "/referrals/R/notes", content=body,
                                         headers={"content-type": "text/plain"})
                        else:
                            await c.get(base + "/worklist")
                    except httpx.HTTPError:
                        pass
                    sent += 1
            await asyncio.gather(*(one() for _ in range(48 if kind == "pages" else 2)))
        print(json.dumps(sent))

    if sys.argv[1] == "victim":
        asyncio.run(victim(sys.argv[2], float(sys.argv[3]), float(sys.argv[4])))
    else:
        asyncio.run(attacker(sys.argv[2], sys.argv[3], *map(float, sys.argv[4:7])))
    """
)


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[round(0.99 * (len(ordered) - 1))]


def _client(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CLIENT, *args], stdout=subprocess.PIPE, text=True
    )


def ratio(limits: SuiteLimits | None, kind: str) -> float:
    """The victim's p99 while the attacker floods over its p99 while it is quiet, in one run."""
    with EmbeddedSuite.start(limits=limits) as suite:
        victim, attacker = (suite.open_episode() for _ in range(2))
        begin = time.time() + 3.0  # both clients started and bound before the first phase
        end = begin + 2 * PHASE * CYCLES
        flood = _client(
            "attacker", attacker.start_urls["ehr"], kind, str(begin), str(end), str(PHASE)
        )
        out, _ = _client("victim", victim.start_urls["ehr"], str(begin), str(end)).communicate(
            timeout=300
        )
        sent = int(json.loads(flood.communicate(timeout=300)[0]))
    assert sent > 0
    beside, alone = [], []
    for at, took in json.loads(out):
        into = (at - begin) % (2 * PHASE)
        if SETTLE <= into < PHASE:
            beside.append(took)
        elif into >= PHASE + SETTLE:
            alone.append(took)
    assert len(beside) >= 30 and len(alone) >= 30, (
        len(beside),
        len(alone),
    )  # p99: 2nd slowest at 150
    return p99(beside) / p99(alone)


def ratios(limits: SuiteLimits | None, kind: str, within: bool) -> list[float]:
    """One trial's ratio if it already settles the question, else three (the median is
    held to the goal)."""
    first = ratio(limits, kind)
    if (first <= GOAL) == within:
        return [first]
    return [first, ratio(limits, kind), ratio(limits, kind)]


@pytest.mark.parametrize("kind", ["pages", "bodies"])
def test_a_victim_beside_an_attacker_keeps_its_solo_latency(kind: str) -> None:
    # pages: 48 connections requesting the attacker's own pages as fast as they are answered;
    # bodies: two connections posting 200 MiB bodies, over and over.
    found = ratios(None, kind, within=True)
    assert statistics.median(found) <= GOAL, found


def test_without_the_bounds_the_same_flood_slows_the_victim() -> None:
    found = ratios(LIFTED, "pages", within=False)
    assert statistics.median(found) > GOAL, found
