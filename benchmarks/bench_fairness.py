"""One attempt's flood against another's pages: the victim's latency beside its own, alone.

Goal: with an attacker flooding the shared suite (48 connections requesting its own pages as
fast as it is answered, or sending bodies far over the bound), the victim's p99 page latency
stays within 1.5x its p99 alone, measured in the same run. The same is measured against the
suite with its per-client bounds lifted (the reference: what the flood did before them).

The suite runs in this process, as in a run; the victim and the attacker are processes of
their own, as sandboxed agents are, so their clients do not share the suite's interpreter.
The victim asks for a page every 60 ms (about 14 a second, inside its own rate) and times
each one. Each figure is the median of `--runs` runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine, write_section
from endstate.envs.server import EmbeddedSuite
from endstate.envs.suite.limits import SuiteLimits

ROOT = Path(__file__).resolve().parents[1]
GOAL = 1.5
UNBOUNDED = SuiteLimits(
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

    async def bound(client, start):
        r = await client.get(start)
        return str(r.url.copy_with(path="/", query=None)).rstrip("/")

    async def victim(start, n):
        out = []
        async with httpx.AsyncClient(timeout=60) as c:
            base = await bound(c, start)
            for _ in range(n):
                t = time.perf_counter()
                r = await c.get(base + "/worklist")
                out.append((time.perf_counter() - t) * 1000)
                assert r.status_code == 200, r.status_code
                await asyncio.sleep(0.06)
        print(json.dumps(out))

    async def attacker(start, kind, seconds):
        limits = httpx.Limits(max_connections=48)
        async with httpx.AsyncClient(timeout=60, limits=limits) as c:
            base = await bound(c, start)
            end = time.monotonic() + seconds
            done = 0
            async def one():
                nonlocal done
                body = b"x" * (20 << 20)
                while time.monotonic() < end:
                    try:
                        if kind == "bodies":
                            await c.post(base + "/referrals/R/notes", content=body,
                                         headers={"content-type": "text/plain"})
                        else:
                            await c.get(base + "/worklist")
                        done += 1
                    except httpx.HTTPError:
                        done += 1
            await asyncio.gather(*(one() for _ in range(48 if kind == "pages" else 4)))
        print(json.dumps(done))

    if sys.argv[1] == "victim":
        asyncio.run(victim(sys.argv[2], int(sys.argv[3])))
    else:
        asyncio.run(attacker(sys.argv[2], sys.argv[3], float(sys.argv[4])))
    """
)


def p99(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def _client(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CLIENT, *args], stdout=subprocess.PIPE, text=True
    )


def one_run(limits: SuiteLimits | None, kind: str, pages: int) -> tuple[float, float, int]:
    """(victim p99 alone, victim p99 beside the attacker, attacker requests) in ms."""
    with EmbeddedSuite.start(limits=limits) as suite:
        alone_ep, victim_ep, attacker_ep = (suite.open_episode() for _ in range(3))
        alone = json.loads(
            _client("victim", alone_ep.start_urls["ehr"], str(pages)).communicate()[0]
        )
        seconds = pages * 0.075 + 3
        attack = _client("attacker", attacker_ep.start_urls["ehr"], kind, str(seconds))
        time.sleep(1.0)  # the flood is under way (its burst spent) before the victim starts
        beside = json.loads(
            _client("victim", victim_ep.start_urls["ehr"], str(pages)).communicate()[0]
        )
        sent = int(json.loads(attack.communicate()[0]))
    return p99(alone), p99(beside), sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--write", type=Path, help="write the figures into this Markdown file")
    args = parser.parse_args()
    rows = []
    for kind in ("pages", "bodies"):
        for label, limits in (("bounded (as shipped)", None), ("bounds lifted", UNBOUNDED)):
            runs = [one_run(limits, kind, args.pages) for _ in range(args.runs)]
            ratios = [beside / alone for alone, beside, _ in runs]
            ratio = statistics.median(ratios)
            rows.append(
                (
                    kind,
                    label,
                    statistics.median(r[0] for r in runs),
                    statistics.median(r[1] for r in runs),
                    ratio,
                    statistics.median(r[2] for r in runs),
                )
            )
            print(
                f"{kind:6} {label:22} victim p99 alone {rows[-1][2]:7.1f} ms, beside the "
                f"attacker {rows[-1][3]:7.1f} ms: ratio {ratio:.2f} (goal <= {GOAL}) "
                f"[{', '.join(f'{r:.2f}' for r in ratios)}]"
            )
    if args.write:
        lines = [
            "## One attempt's flood beside another's pages",
            "",
            f"{machine()}. Victim p99 page latency beside an attacker, over its p99 alone in the "
            f"same run; median of {args.runs} runs of {args.pages} pages (goal: ratio <= {GOAL} "
            "with the bounds as shipped). `pages`: 48 connections requesting the attacker's "
            "own pages; `bodies`: 4 connections posting 20 MiB bodies.",
            "",
            "| attack | suite | victim p99 alone | beside the attacker | ratio "
            "| attacker requests |",
            "|---|---|---:|---:|---:|---:|",
        ]
        lines += [
            f"| {k} | {label} | {a:.1f} ms | {b:.1f} ms | {r:.2f} | {n:.0f} |"
            for k, label, a, b, r, n in rows
        ]
        write_section(args.write, "fairness", "\n".join(lines))


if __name__ == "__main__":
    main()
