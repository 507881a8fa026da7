"""A fresh browser context per attempt: Chromium's headless shell against a full Chromium.

Every attempt opens its own context and page, so their cost is paid once per attempt by
validation, runs and tests. The reference is the full Chromium binary started the same way;
both are measured in the same run, alternating, so load on the machine hits them alike.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from playwright.async_api import async_playwright

from _report import machine, write_section
from endstate.browser import CHROMIUM_ARGS, SYSTEM_CHROMIUM, SYSTEM_HEADLESS_SHELL

PAGE = "data:text/html,<title>x</title><p>attempt</p>"


async def _contexts(executable: Path, rounds: int) -> tuple[float, list[float]]:
    """Launch seconds, and the seconds of each context + page + first load + close."""
    async with async_playwright() as pw:
        began = time.perf_counter()
        browser = await pw.chromium.launch(
            executable_path=str(executable), args=list(CHROMIUM_ARGS), headless=True
        )
        launch = time.perf_counter() - began
        times = []
        for _ in range(rounds):
            t = time.perf_counter()
            context = await browser.new_context()
            page = await context.new_page()
            await page.goto(PAGE)
            await context.close()
            times.append(time.perf_counter() - t)
        await browser.close()
    return launch, times


async def measure(rounds: int, repeats: int) -> dict[str, tuple[float, list[float]]]:
    found: dict[str, tuple[float, list[float]]] = {"shell": (0.0, []), "full": (0.0, [])}
    for _ in range(repeats):  # alternate, so both meet the same machine
        for name, exe in (("shell", SYSTEM_HEADLESS_SHELL), ("full", SYSTEM_CHROMIUM)):
            launch, times = await _contexts(exe, rounds)
            found[name] = (found[name][0] + launch / repeats, found[name][1] + times)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=20, help="contexts per launch")
    parser.add_argument("--repeats", type=int, default=3, help="launches of each browser")
    parser.add_argument("--write", type=Path, help="docs/benchmarks.md to update")
    args = parser.parse_args()
    missing = [str(p) for p in (SYSTEM_HEADLESS_SHELL, SYSTEM_CHROMIUM) if not p.exists()]
    if missing:
        print(f"skipped: {', '.join(missing)} not installed")
        return
    found = asyncio.run(measure(args.rounds, args.repeats))
    ref = statistics.median(found["full"][1])
    rows = []
    for name, label in (("shell", "headless shell"), ("full", "reference: full Chromium")):
        launch, times = found[name]
        p50 = statistics.median(times)
        p95 = statistics.quantiles(times, n=20)[-1]
        rows.append(
            f"| {label} | {p50 * 1000:.0f} | {p95 * 1000:.0f} | {launch:.2f} | {p50 / ref:.2f} |"
        )
    body = "\n".join(
        [
            "## A fresh browser context per attempt",
            "",
            f"{args.rounds * args.repeats} contexts per browser (context, page, one load, close), "
            f"launches alternating; {machine()}.",
            "",
            "| browser | p50 ms | p95 ms | launch s | ratio (p50) |",
            "|---|---:|---:|---:|---:|",
            *rows,
        ]
    )
    print(body)
    if args.write:
        write_section(args.write, "browser", body)


if __name__ == "__main__":
    main()
