"""Per-attempt harness overhead and throughput of `endstate run`, agent time excluded.

An attempt's overhead is everything the harness does around the agent: open an episode,
make a browser context and page at the start URL, read the end state back, score it, append
the record. The agent here acts instantly, so wall time per attempt is all overhead.
The reference, measured in the same run, is the bare minimum any browser harness pays: a
Playwright context, a page, one navigation to the same start URL, and closing it.
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


async def reference(suite: EmbeddedSuite, n: int) -> list[float]:
    samples = []
    async with async_browser() as browser:
        for _ in range(n):
            episode = suite.open_episode()
            began = time.perf_counter()
            context = await browser.new_context()
            page = await context.new_page()
            await page.goto(episode.start_urls["ehr"], wait_until="domcontentloaded")
            await context.close()
            samples.append(time.perf_counter() - began)
            suite.close_episode(episode.id)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--attempts", type=int, default=30)
    parser.add_argument("--write", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, EmbeddedSuite.start() as suite:
        corpus = Path(tmp) / "corpus"
        write_corpus(corpus, args.attempts)
        asyncio.run(harness(suite, corpus, Path(tmp) / "warm", 2))  # warm caches and the browser
        one = asyncio.run(harness(suite, corpus, Path(tmp) / "w1", 1))
        two = asyncio.run(harness(suite, corpus, Path(tmp) / "w2", 2))
        ref = statistics.median(asyncio.run(reference(suite, args.attempts)))
    per_one = one / args.attempts
    per_two = two / args.attempts
    body = (
        "## Run overhead per attempt (agent time excluded)\n\n"
        f"{args.attempts} attempts of an agent that stops at once; includes browser launch and "
        f"run set-up amortised over the run ({machine()}).\n\n"
        "| what | seconds per attempt | attempts per second | ratio to reference |\n"
        "|---|---:|---:|---:|\n"
        f"| `endstate run`, 1 worker (episode, context, page at start URL, state readback, "
        f"scoring, fsync'd record, traces) | {per_one:.3f} | {1 / per_one:.1f} | "
        f"{per_one / ref:.2f} |\n"
        f"| `endstate run`, 2 workers | {per_two:.3f} | {1 / per_two:.1f} | "
        f"{per_two / ref:.2f} |\n"
        f"| reference: Playwright context + page + one navigation + close (median) | {ref:.3f} | "
        f"{1 / ref:.1f} | 1.00 |\n\n"
        f"Goal: ≤ 0.45 s per attempt. Measured: {per_one:.3f} s with 1 worker "
        f"({'met' if per_one <= 0.45 else 'NOT met'}). The reference took {ref:.3f} s on this "
        "machine today: the ratio to it is the figure to compare across machines and days.\n"
    )
    print(body)
    if args.write:
        write_section(args.write, "runner", body)


if __name__ == "__main__":
    main()
