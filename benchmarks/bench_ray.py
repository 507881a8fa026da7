"""Throughput of `endstate run --executor ray` against the local asyncio runner, in one run.

N Ray workers (each its own process with its own environment instance, browser and agent)
against the asyncio runner with N workers (one process, one environment, one browser shared),
N in (1, 2), for the null agent and the replay agent on a slice of the built-in corpus. Ray
here is a local instance on loopback started for each run, as `--executor ray` without an
address does: its start and the workers' start are shown apart from the attempts, so the
table shows both what a short run pays and what the attempts themselves cost.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine, write_section
from endstate.agents.registry import make_agent
from endstate.builtin import builtin_corpus_path
from endstate.builtin.trajectory import write_replays
from endstate.records import TaskRecord
from endstate.runs.executors import ExecutorChoice, RaySettings
from endstate.runs.session import RunOptions, execute

SLICE = "pa-*-00[1-8],dn-*-00[1-8]"  # 16 tasks of both big families, for the replay agent
TASKS = {"null": None, "replay": SLICE}  # the null agent's attempts are short: every task
REPEATS = 2  # the faster of two runs of each: the machine may be busy with other work


@dataclass
class Measured:
    attempts: int
    wall: float  # the whole run: start, attempts, report
    span: float  # first attempt's start to last attempt's end
    ray_start: float | None = None
    first_ready: float | None = None

    @property
    def per_second(self) -> float:
        return self.attempts / self.wall

    @property
    def span_per_second(self) -> float:
        return self.attempts / self.span


def attempt_span(records: list[TaskRecord]) -> float:
    """Seconds from the first attempt's start to the last one's end (set-up excluded)."""
    spans = [
        (
            datetime.fromisoformat(r.facts.started_at).timestamp(),
            r.facts.attempt_seconds + r.facts.scoring_seconds,
        )
        for r in records
        if r.facts and r.facts.started_at
    ]
    first = min(start for start, _ in spans)
    return max(start + took for start, took in spans) - first


def measure(
    spec: str, workers: int, executor: ExecutorChoice, out: Path, tasks: str | None
) -> Measured:
    opts = RunOptions(
        corpus=builtin_corpus_path(),
        agent=make_agent(spec),
        agent_spec=spec,
        workers=workers,
        out=out,
        tasks=tasks,
        executor=executor,
    )
    began = time.perf_counter()
    result = asyncio.run(execute(opts))
    wall = time.perf_counter() - began
    assert all(r.status != "unmeasurable" for r in result.records), "an attempt was unmeasurable"
    row = Measured(len(result.records), wall, attempt_span(result.records))
    journal = result.store.root / "executor.json"
    if journal.exists():
        timings = json.loads(journal.read_text())["timings"]
        row.ray_start = timings["ray_start_seconds"]
        row.first_ready = timings["first_ready_seconds"]
    return row


def table(rows: dict[tuple[str, int, str], Measured]) -> str:
    lines = [
        "| agent | workers | local: run s | local: attempts/s (run · attempts only) | "
        "Ray: run s | Ray: attempts/s (run · attempts only) | Ray ÷ local (run · attempts "
        "only) | Ray start + first worker ready, s |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for agent in ("null", "replay"):
        for n in (1, 2):
            lo, ra = rows[(agent, n, "local")], rows[(agent, n, "ray")]
            lines.append(
                f"| {agent} | {n} | {lo.wall:.1f} | {lo.per_second:.2f} · "
                f"{lo.span_per_second:.2f} | {ra.wall:.1f} | {ra.per_second:.2f} · "
                f"{ra.span_per_second:.2f} | {ra.per_second / lo.per_second:.2f} · "
                f"{ra.span_per_second / lo.span_per_second:.2f} | "
                f"{ra.ray_start or 0:.1f} + {ra.first_ready or 0:.1f} |"
            )
    return "\n".join(lines)


def crossover(rows: dict[tuple[str, int, str], Measured], noise: float) -> str:
    """Where Ray's fixed start is paid back by faster attempts, row by row, if anywhere: only
    where Ray's attempts were faster by more than two runs of the same figure differed."""
    found = []
    for agent in ("null", "replay"):
        for n in (1, 2):
            lo, ra = rows[(agent, n, "local")], rows[(agent, n, "ray")]
            saved = 1 / lo.span_per_second - 1 / ra.span_per_second  # seconds per attempt
            extra = (ra.wall - ra.span) - (lo.wall - lo.span)  # Ray's fixed cost, seconds
            if ra.span_per_second > (1 + noise) * lo.span_per_second:
                found.append(
                    f"{agent} with {n} worker(s): Ray's attempts ran "
                    f"{ra.span_per_second / lo.span_per_second:.2f}× as fast, so its "
                    f"{extra:.1f} s of extra start is paid back after about "
                    f"{max(0.0, extra / saved):.0f} attempts"
                )
    starts = [r.ray_start or 0 for k, r in rows.items() if k[2] == "ray"]
    ready = [r.first_ready or 0 for k, r in rows.items() if k[2] == "ray"]
    text = (
        f"Two runs of the same figure differed by up to {noise:.0%} (attempts only) on this "
        "machine today: smaller differences between columns are noise. "
        f"Ray's start here: {min(starts):.1f}–{max(starts):.1f} s for the instance, then "
        f"{min(ready):.1f}–{max(ready):.1f} s until the first worker had its environment up and "
        "its pins checked; paid once per run, never per attempt. Each attempt also travels to "
        "its worker and back with its trace files. "
    )
    if not found:
        return text + (
            "On this machine no row crosses over beyond that noise: Ray's attempts are no "
            "faster than the local runner's (both share the same cores), so its start is not "
            "paid back here. The "
            "executor pays off where one machine runs out: more workers than one machine holds "
            "(each needs a browser and an environment), nodes added to the cluster."
        )
    return text + "Crossover: " + "; ".join(found) + "."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", type=Path)
    args = parser.parse_args()
    rows: dict[tuple[str, int, str], Measured] = {}
    noise = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        write_replays(builtin_corpus_path(), base / "replays")
        specs = {"null": "null", "replay": f"replay:{base / 'replays'}"}
        measure("null", 2, ExecutorChoice(), base / "warm", SLICE)  # imports, caches, browser
        for agent, spec in specs.items():
            for n in (1, 2):
                for kind in ("local", "ray"):
                    chosen = ExecutorChoice(kind, RaySettings())
                    runs = [
                        measure(spec, n, chosen, base / "runs", TASKS[agent])
                        for _ in range(REPEATS)
                    ]
                    rows[(agent, n, kind)] = row = min(runs, key=lambda r: r.wall)
                    rates = [r.span_per_second for r in runs]
                    noise = max(noise, max(rates) / min(rates) - 1)
                    print(f"{agent} ×{n} {kind}: {row}", file=sys.stderr)
    body = (
        "## Ray executor against the local runner\n\n"
        f"The null agent on the whole built-in corpus ({rows[('null', 1, 'local')].attempts} "
        "attempts; no browser: episode, state readback and scoring only) and the replay agent "
        f"on `--tasks '{SLICE}'` ({rows[('replay', 1, 'local')].attempts} attempts; the "
        "reference trajectories as `replay:DIR`, through Chromium). Each Ray run starts its "
        f"own local instance on loopback; each figure is the faster of {REPEATS} runs "
        f"({machine()}). *Run* is the whole `endstate run`; *attempts only* is first attempt "
        "start to last attempt end.\n\n" + table(rows) + "\n\n" + crossover(rows, noise) + "\n"
    )
    print(body)
    if args.write:
        write_section(args.write, "ray", body)


if __name__ == "__main__":
    main()
