"""Per-attempt harness overhead and throughput of `endstate run`, agent time excluded.

An attempt's overhead is everything the harness does around the agent: open an episode,
make a browser context and page at the start URL, read the end state back, score it, append
the record. The agent here acts instantly, so wall time per attempt is all overhead.
The reference, measured in the same run, is the bare minimum any browser harness pays: a
browser launched once, then per attempt a Playwright context, a page, one navigation to the
same start URL, and closing it. Both sides are timed whole and divided by their attempts, so
each pays its one browser launch over the same number of attempts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine, write_section
from endstate.agents.base import AgentOutcome, AttemptContext, InProcessAgent
from endstate.browser import async_browser
from endstate.envs.server import EmbeddedSuite
from endstate.envs.world import DEFAULT_SEED, generate_world
from endstate.runs.embedded import EmbeddedEnvironment
from endstate.runs.environment import Environment
from endstate.runs.session import RunOptions, execute


class InstantAgent(InProcessAgent):
    """Takes the harness page and stops at once: the attempt costs only the harness."""

    kind = "bench"
    name = "instant"
    scored = True
    uses_page = True

    def config(self) -> dict[str, Any]:
        return {}

    async def attempt(self, ctx: AttemptContext, page: Any) -> AgentOutcome:
        return AgentOutcome(claim="done")


def write_corpus(root: Path, n: int) -> None:
    ref = generate_world(DEFAULT_SEED).referrals[0].id
    for i in range(n):
        task = {
            "id": f"bench-{i:03d}",
            "goal": f"Open referral {ref} and clear it.",
            "website": {"id": "ehr"},
            "difficulty": "easy",
            "evals": [
                {
                    "type": "jmespath",
                    "query": f"contains(ehr.cleared_referrals, '{ref}')",
                    "expected_value": True,
                    "points": 1,
                },
                {
                    "type": "jmespath",
                    "query": f"length(ehr.notes[?subject_id=='{ref}'])",
                    "expected_value": 1,
                    "points": 1,
                },
            ],
            "config": {"start_url": "/worklist?task_id={{TASK_ID}}&run_id={{RUN_ID}}"},
        }
        path = root / "prior_auth" / f"bench-{i:03d}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(task))


async def harness(suite: EmbeddedSuite, corpus: Path, out: Path, workers: int) -> float:
    return await timed_run(
        EmbeddedEnvironment(suite, run_seed=0, owns_suite=False), corpus, out, workers
    )


async def timed_run(env: Environment, corpus: Path, out: Path, workers: int) -> float:
    """Seconds for a whole `run` of the instant agent over the corpus, on a running environment."""
    opts = RunOptions(
        corpus=corpus,
        agent=InstantAgent(),  # type: ignore[arg-type]
        agent_spec="bench",
        workers=workers,
        out=out,
        environment=env,
    )
    began = time.perf_counter()
    result = await execute(opts)
    elapsed = time.perf_counter() - began
    assert len(result.records) == len(result.manifest.tasks)
    assert all(r.status != "unmeasurable" for r in result.records), "an attempt was unmeasurable"
    return elapsed


async def reference(suite: EmbeddedSuite, n: int) -> float:
    """Seconds for the bare loop over `n` episodes, its browser's launch included, as a run's
    is: both sides pay one launch, amortised over the same attempts."""
    episodes = [suite.open_episode() for _ in range(n)]  # the suite's work, not the loop's
    began = time.perf_counter()
    async with async_browser() as browser:
        for episode in episodes:
            context = await browser.new_context()
            page = await context.new_page()
            await page.goto(episode.start_urls["ehr"], wait_until="domcontentloaded")
            await context.close()
    elapsed = time.perf_counter() - began
    for episode in episodes:
        suite.close_episode(episode.id)
    return elapsed


GOAL_RATIO = 1.10


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--attempts", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3, help="runs; the figure is the median ratio")
    parser.add_argument("--write", type=Path)
    args = parser.parse_args()
    n = args.attempts
    one: list[float] = []  # seconds per attempt, per run
    two: list[float] = []
    ref: list[float] = []
    with tempfile.TemporaryDirectory() as tmp, EmbeddedSuite.start() as suite:
        corpus = Path(tmp) / "corpus"
        write_corpus(corpus, n)
        asyncio.run(harness(suite, corpus, Path(tmp) / "warm", 2))  # warm caches and the browser
        for run in range(max(1, args.runs)):
            one.append(asyncio.run(harness(suite, corpus, Path(tmp) / f"w1-{run}", 1)) / n)
            two.append(asyncio.run(harness(suite, corpus, Path(tmp) / f"w2-{run}", 2)) / n)
            ref.append(asyncio.run(reference(suite, n)) / n)
    ratio_one = statistics.median(a / r for a, r in zip(one, ref, strict=True))
    ratio_two = statistics.median(a / r for a, r in zip(two, ref, strict=True))
    per_one, per_two, per_ref = (statistics.median(x) for x in (one, two, ref))
    verdict = "met" if ratio_one <= GOAL_RATIO else "NOT met"
    body = (
        "## Run overhead per attempt (agent time excluded)\n\n"
        f"{n} attempts of an agent that stops at once, {len(one)} runs ({machine()}). Each side "
        "is timed whole, its browser's launch included, and divided by its attempts: endstate's "
        "run with its set-up and reports, the reference's loop with its launch. Each figure is "
        "the median over the runs; each ratio is the median of the per-run ratios to the "
        "reference measured in the same run.\n\n"
        "| what | seconds per attempt | attempts per second | ratio to reference |\n"
        "|---|---:|---:|---:|\n"
        f"| `endstate run`, 1 worker (episode, context, page at start URL, state readback, "
        f"scoring, fsync'd record, traces) | {per_one:.3f} | {1 / per_one:.1f} | "
        f"{ratio_one:.2f} |\n"
        f"| `endstate run`, 2 workers | {per_two:.3f} | {1 / per_two:.1f} | {ratio_two:.2f} |\n"
        f"| reference: one browser launch, then per attempt a Playwright context + page + "
        f"one navigation + close | {per_ref:.3f} | "
        f"{1 / per_ref:.1f} | 1.00 |\n\n"
        f"Goal: ratio ≤ {GOAL_RATIO:.2f} with 1 worker. Per run: "
        f"{', '.join(f'{a / r:.2f}' for a, r in zip(one, ref, strict=True))}. Measured: "
        f"{ratio_one:.2f} ({verdict}).\n"
    )
    print(body)
    if args.write:
        write_section(args.write, "runner", body)


if __name__ == "__main__":
    main()
