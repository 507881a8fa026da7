"""Per-attempt harness overhead on the benchmark's own portals (`--env hab`), agent time excluded.

endstate's side is a whole `run` of an agent that stops at once: per attempt a fresh browser
context, a page at the start URL, the portals' storage read from a page of the harness's own on
their origin, the document assembled, scored, the record fsync'd, the traces and end state
written. The reference, measured in the same run on the same portal server, is the minimal loop
the benchmark's own harness goes through per task: a context, a page, the start URL loaded
until the network is idle (its `reset`), the storage read with one `evaluate` on that page (its
`get_final_state`), the context closed.

Needs a build of the portals (`endstate env hab setup --source PATH`) and a corpus of the
benchmark's tasks (default: ../shared/corpora/hab-v2-train).
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine, write_section
from bench_runner import timed_run
from endstate.browser import async_browser
from endstate.corpus.loader import load_corpus
from endstate.firewall import project
from endstate.hab.build import find_build
from endstate.hab.server import PortalServer
from endstate.hab.state_reader import READ_SCRIPT, assemble_state, read_arguments
from endstate.runs.hab import HabEnvironment

SHARED_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "hab-v2-train"


def subset(corpus: Path, n: int, out: Path) -> Path:
    """The first n tasks of the corpus, copied (the run refuses nothing it is given)."""
    for path in sorted(corpus.glob("*/*.json"))[:n]:
        target = out / path.parent.name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return out


async def reference(env: HabEnvironment, corpus: Path) -> list[float]:
    """The benchmark harness's own loop per task, on the same server."""
    samples = []
    tasks = load_corpus(corpus).tasks
    async with async_browser() as browser:
        for i, task in enumerate(tasks):
            episode = await env.open_episode(task.public, f"ref-{i}")
            url = project(task, episode.binding).start_url
            assert url is not None and task.public.env_task_key is not None
            began = time.perf_counter()
            context = await browser.new_context()
            page = await context.new_page()
            await page.goto(url, wait_until="networkidle")
            raw: Any = await page.evaluate(
                READ_SCRIPT, read_arguments(task.public.env_task_key, episode.episode_id)
            )
            assemble_state(raw, task.public.env_task_key, episode.episode_id)
            await context.close()
            samples.append(time.perf_counter() - began)
            await env.close_episode(episode)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--attempts", type=int, default=30)
    parser.add_argument("--corpus", type=Path, default=SHARED_CORPUS)
    parser.add_argument("--write", type=Path)
    args = parser.parse_args()
    build = find_build()
    if build is None or not args.corpus.is_dir():
        sys.exit("needs a portals build (endstate env hab setup --source PATH) and --corpus")
    with tempfile.TemporaryDirectory() as tmp, PortalServer(build) as server:
        env = HabEnvironment(build, server, run_seed=0)
        corpus = subset(args.corpus, args.attempts, Path(tmp) / "corpus")
        asyncio.run(timed_run(env, corpus, Path(tmp) / "warm", 2))  # warm the server and browser
        one = asyncio.run(timed_run(env, corpus, Path(tmp) / "w1", 1))
        two = asyncio.run(timed_run(env, corpus, Path(tmp) / "w2", 2))
        ref = statistics.median(asyncio.run(reference(env, corpus)))
    per_one, per_two = one / args.attempts, two / args.attempts
    body = (
        "## Run overhead per attempt on the benchmark's portals (agent time excluded)\n\n"
        f"{args.attempts} attempts of an agent that stops at once on the first tasks of the "
        f"training split, one `next start` for the run; includes browser launch and run set-up "
        f"amortised over the run ({machine()}).\n\n"
        "| what | seconds per attempt | attempts per second | ratio to reference |\n"
        "|---|---:|---:|---:|\n"
        f"| `endstate run --env hab`, 1 worker (context, page at start URL, storage read in a "
        f"page of its own, document assembled, scoring, fsync'd record, traces, end state) | "
        f"{per_one:.3f} | {1 / per_one:.1f} | {per_one / ref:.2f} |\n"
        f"| `endstate run --env hab`, 2 workers | {per_two:.3f} | {1 / per_two:.1f} | "
        f"{per_two / ref:.2f} |\n"
        f"| reference: the benchmark harness's loop — context, page, start URL until network "
        f"idle, one storage `evaluate`, close (median) | {ref:.3f} | {1 / ref:.1f} | 1.00 |\n\n"
        f"The reference took {ref:.3f} s on this machine today: the ratio to it is the figure to "
        "compare across machines and days. endstate hands the page to the agent at "
        "DOMContentLoaded; the benchmark's harness waits for the network to go idle.\n"
    )
    print(body)
    if args.write:
        write_section(args.write, "hab", body)


if __name__ == "__main__":
    main()
