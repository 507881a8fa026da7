"""What the trust boundary costs per attempt: a sandbox and a browser of its own.

The same agent program (examples/cdp_agent.py: connect over CDP, open the start page, open a
record, give up) runs through `endstate run` three ways, one worker, in the same process:

- sandboxed (the default): bubblewrap namespaces, its own uid, its own Chromium, teardown of
  the whole sandbox before the end state is read;
- unsandboxed with its own Chromium (`--isolation none`);
- reference: the way command agents used to run — a plain process driving a new context of
  one shared, already running browser.

Per-attempt time is the runner's own measure (episode open to agent finished, teardown
included), so the difference is exactly what isolation adds to an attempt.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine, write_section
from bench_runner import write_corpus
from endstate.agents.agent_output import read_final_line
from endstate.agents.base import AgentOutcome, AttemptContext, InProcessAgent
from endstate.agents.command import CommandAgent, agent_input
from endstate.browser import async_browser, free_port
from endstate.envs.server import EmbeddedSuite
from endstate.runs.embedded import EmbeddedEnvironment
from endstate.runs.session import RunOptions, execute

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cdp_agent.py"


class SharedBrowserCommand(InProcessAgent):
    """The reference: the command as a plain process, driving one shared browser over CDP."""

    kind = "bench"
    name = "shared-browser command"
    scored = True

    def __init__(self, endpoint: str) -> None:
        self.endpoint = endpoint

    def config(self) -> dict[str, Any]:
        return {}

    async def attempt(self, ctx: AttemptContext, page: Any) -> AgentOutcome:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(EXAMPLE),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env={"PATH": os.environ.get("PATH", "")},
        )
        payload = json.dumps(agent_input(ctx, self.endpoint)).encode()
        stdout, _ = await proc.communicate(payload)
        final = read_final_line(stdout.decode())
        return AgentOutcome(claim=final.claim, final_message=final.message, steps=final.steps)


async def timed_run(suite: EmbeddedSuite, corpus: Path, out: Path, agent: Any) -> list[float]:
    env = EmbeddedEnvironment(suite, run_seed=0, owns_suite=False)
    result = await execute(
        RunOptions(
            corpus=corpus,
            agent=agent,
            agent_spec=agent.name,
            workers=1,
            out=out,
            environment=env,
            time_limit=120,
        )
    )
    seconds = []
    for record in result.records:
        assert record.facts is not None and record.facts.claim == "gave_up", record.facts
        seconds.append(record.facts.attempt_seconds)
    return seconds


async def reference(suite: EmbeddedSuite, corpus: Path, out: Path) -> list[float]:
    port = free_port()
    async with async_browser(cdp_port=port):
        return await timed_run(suite, corpus, out, SharedBrowserCommand(f"http://127.0.0.1:{port}"))


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--attempts", type=int, default=12)
    parser.add_argument("--write", type=Path)
    args = parser.parse_args()
    command = f"{sys.executable} {EXAMPLE}"
    with tempfile.TemporaryDirectory() as tmp, EmbeddedSuite.start() as suite:
        root = Path(tmp)
        corpus = root / "corpus"
        write_corpus(corpus, args.attempts)
        asyncio.run(reference(suite, corpus, root / "warm"))  # warm disk caches
        began = time.perf_counter()
        ref = asyncio.run(reference(suite, corpus, root / "ref"))
        sandboxed = asyncio.run(timed_run(suite, corpus, root / "sb", CommandAgent(command)))
        plain = asyncio.run(
            timed_run(suite, corpus, root / "none", CommandAgent(command, isolation="none"))
        )
        total = time.perf_counter() - began
    extra = p50(sandboxed) - p50(ref)
    rows = [
        ("sandbox + own Chromium (default)", sandboxed),
        ("no sandbox, own Chromium (`--isolation none`)", plain),
        ("reference: plain process, context of one shared browser", ref),
    ]
    table = "\n".join(
        f"| {what} | {p50(s):.3f} | {max(s):.3f} | {p50(s) - p50(ref):+.3f} | "
        f"{p50(s) / p50(ref):.2f} |"
        for what, s in rows
    )
    body = (
        "## Isolation cost per attempt\n\n"
        f"`examples/cdp_agent.py` through `endstate run`, 1 worker, {args.attempts} attempts per "
        f"configuration, all in one run of {total:.0f} s ({machine()}). Attempt time is the "
        "runner's own: episode open to agent finished, sandbox teardown included; the "
        "sandbox's browser is started ahead of its attempt (one warm sandbox per worker).\n\n"
        "| what | p50 s per attempt | max s | extra vs reference (p50) | ratio (p50) |\n"
        "|---|---:|---:|---:|---:|\n"
        f"{table}\n\n"
        f"Goal: at most 0.3 s extra per attempt for the sandbox and its own browser. "
        f"Measured: {extra:+.3f} s ({'met' if extra <= 0.3 else 'NOT met'}).\n"
    )
    print(body)
    if args.write:
        write_section(args.write, "sandbox", body)


if __name__ == "__main__":
    main()
