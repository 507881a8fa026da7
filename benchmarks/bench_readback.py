"""State readback after an attempt: endstate's end state against the benchmark harness's read.

The benchmark's harness reads an attempt's state from the browser: one `page.evaluate` that
walks `localStorage`, parses its JSON entries and returns them. endstate reads the episode's
state document over the grading channel: the server assembles it from the episode's SQLite
file (the rows the attempt changed, the systems' slices) and sends it as JSON.

The reference, measured in the same run, is that read done bare: the same evaluate over a page
whose `localStorage` holds a JSON entry the size of endstate's document, so both sides move the
same number of bytes. Each side is timed after an attempt-like write (a referral cleared and a
note written), over fresh episodes, the two taken in turn so a drift of the machine's pace
falls on both; the figure is the median of the per-run ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine, write_section
from endstate.browser import async_browser
from endstate.envs.server import EmbeddedSuite

READ = """
({ prefix }) => {
  const entries = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(prefix)) continue;
    const raw = localStorage.getItem(key);
    if (!raw) continue;
    try { entries.push({ key, state: JSON.parse(raw) }); } catch (_) {}
  }
  return entries;
}
"""


def attempt_like_write(suite: EmbeddedSuite, episode_id: str) -> None:
    """What an attempt leaves: a referral cleared and a note written, through the episode's
    own database (the write path is not what is measured)."""
    db = suite.runtime.episodes[episode_id].db
    ref = db.rows("SELECT id FROM referrals ORDER BY id LIMIT 1")[0]["id"]
    with db.change(system="ehr", page="/bench", kind="bench", detail={}) as c:
        c.execute("UPDATE referrals SET worklist_status = 'cleared' WHERE id = ?", (ref,))


def endstate_read(suite: EmbeddedSuite) -> tuple[float, int]:
    """One read of a fresh episode's state document after an attempt-like write: its
    seconds, and the document's size."""
    episode = suite.open_episode()
    attempt_like_write(suite, episode.id)
    began = time.perf_counter()
    document = suite.state(episode.id)
    seconds = time.perf_counter() - began
    suite.close_episode(episode.id)
    return seconds, len(json.dumps(document))


async def side_by_side(suite: EmbeddedSuite, n: int) -> tuple[list[float], list[float], int]:
    """`n` reads each way, taken in turn, so a drift of the machine's pace falls on both:
    endstate's, and the harness's localStorage read of an entry of the same size."""
    _, size = endstate_read(suite)
    entry = json.dumps({"emr": {"notes": ["x" * max(0, size - 40)]}, "updatedAt": ""})
    ours: list[float] = []
    ref: list[float] = []
    async with async_browser() as browser:
        context = await browser.new_context()
        page = await context.new_page()
        episode = suite.open_episode()
        await page.goto(episode.start_urls["ehr"], wait_until="domcontentloaded")
        for i in range(n):
            seconds, size = endstate_read(suite)
            ours.append(seconds)
            prefix = f"portals_state:bench:{i}:"
            await page.evaluate("([k, v]) => localStorage.setItem(k, v)", [prefix + "emr", entry])
            began = time.perf_counter()
            found: Any = await page.evaluate(READ, {"prefix": prefix})
            ref.append(time.perf_counter() - began)
            assert found and found[0]["key"] == prefix + "emr"
        await context.close()
        suite.close_episode(episode.id)
    return ours, ref, size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reads", type=int, default=60)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--write", type=Path, help="docs/benchmarks.md to update")
    args = parser.parse_args()
    ratios, ours_p50, ref_p50, size = [], [], [], 0
    with EmbeddedSuite.start() as suite:
        for _ in range(5):  # warm: template, caches, connections
            endstate_read(suite)
        for _ in range(args.runs):
            ours, ref, size = asyncio.run(side_by_side(suite, args.reads))
            ours_p50.append(statistics.median(ours))
            ref_p50.append(statistics.median(ref))
            ratios.append(ours_p50[-1] / ref_p50[-1])
    ratio = statistics.median(ratios)
    body = (
        "## State readback after an attempt\n\n"
        f"{args.reads} reads each way per run, taken in turn, {args.runs} runs, a state "
        f"document of {size:,} bytes ({machine()}).\n\n"
        "| what | p50 ms (median over runs) | ratio to reference |\n|---|---:|---:|\n"
        f"| endstate: the episode's state document over the grading channel (delta of the "
        f"tables written, every system's slice, JSON) | {statistics.median(ours_p50) * 1000:.2f} "
        f"| {ratio:.2f} |\n"
        f"| reference: the benchmark harness's read, one `page.evaluate` parsing a "
        f"`localStorage` entry of the same size | {statistics.median(ref_p50) * 1000:.2f} "
        "| 1.00 |\n\n"
        f"Goal: ratio ≤ 1.0 (median of the per-run ratios). Measured: {ratio:.2f} "
        f"({'met' if ratio <= 1.0 else 'NOT met'}).\n"
    )
    print(body)
    if args.write:
        write_section(args.write, "readback", body)


if __name__ == "__main__":
    main()
