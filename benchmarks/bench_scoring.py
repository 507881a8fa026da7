"""Time deterministic scoring of a corpus over its states, against a naive evaluator.

Goal: full task records within the time of the bare minimum, measured in the same run.
The reference, measured in the same run, is the bare minimum: `jmespath.search` per check
(the library keeps its own cache of parsed queries) and a plain `==`, with no semantics and
no record. The ratios show what the benchmark's comparison rules and full task records cost.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import jmespath

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import machine, write_section
from endstate.corpus.loader import load_corpus
from endstate.corpus.model import JmespathCheck, Task
from endstate.scoring.checks import evaluate
from endstate.scoring.states import read_state
from endstate.scoring.task_score import score_task

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def pairs(corpus_dir: Path, states_dir: Path, n_tasks: int) -> list[tuple[Task, Any]]:
    """Each task with a recorded state: its own when recorded, else one of its family's."""
    corpus = load_corpus(corpus_dir)
    states: dict[str, Any] = {}
    by_family: dict[str, Any] = {}
    for path in sorted(states_dir.glob("*.solved.state.json")):
        task_id = path.name.removesuffix(".solved.state.json")
        states[task_id] = read_state(path)
        by_family.setdefault(corpus.task(task_id).family, states[task_id])
    base = [(t, states.get(t.id, by_family[t.family])) for t in corpus.tasks]
    return [base[i % len(base)] for i in range(n_tasks)]


def naive(work: list[tuple[Task, Any]]) -> int:
    passed = 0
    for task, state in work:
        for check in task.grading.checks:
            if isinstance(check, JmespathCheck):
                with contextlib.suppress(jmespath.exceptions.JMESPathError):
                    passed += jmespath.search(check.query, state) == check.expected
    return passed


def endstate_deterministic(work: list[tuple[Task, Any]]) -> int:
    return sum(
        sum(v.outcome == "pass" for v in score_task(task, state).checks if v.type == "jmespath")
        for task, state in work
    )


def endstate_checks_only(work: list[tuple[Task, Any]]) -> int:
    return sum(
        evaluate(c, state)[0]
        for task, state in work
        for c in task.grading.checks
        if isinstance(c, JmespathCheck)
    )


def timed_side_by_side(fns: list[Any], work: Any, repeats: int) -> list[float]:
    """Each function's median time, timed in turn within every repeat, so a drift of the
    machine's pace during the run falls on all of them alike."""
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(repeats):
        for fn, times in zip(fns, samples, strict=True):
            start = time.perf_counter()
            fn(work)
            times.append(time.perf_counter() - start)
    return [statistics.median(times) for times in samples]


GOAL_RATIO = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, default=SHARED / "corpora/hab-v2-train")
    parser.add_argument("--states", type=Path, default=SHARED / "fixtures/hab-v2-states")
    parser.add_argument("--tasks", type=int, default=135)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3, help="runs; each ratio is their median")
    parser.add_argument("--write", type=Path, help="docs/benchmarks.md to update")
    args = parser.parse_args()

    work = pairs(args.corpus, args.states, args.tasks)
    n_checks = sum(isinstance(c, JmespathCheck) for t, _ in work for c in t.grading.checks)
    endstate_deterministic(work)  # warm: compile every query once, as a run would
    ours, bare, ref = [], [], []
    for _ in range(max(1, args.runs)):  # each run times all three, side by side
        times = timed_side_by_side(
            [endstate_deterministic, endstate_checks_only, naive], work, args.repeats
        )
        for found, t in zip((ours, bare, ref), times, strict=True):
            found.append(t)
    ratio = statistics.median(o / r for o, r in zip(ours, ref, strict=True))
    ratio_bare = statistics.median(b / r for b, r in zip(bare, ref, strict=True))
    per_run = ", ".join(f"{o / r:.2f}" for o, r in zip(ours, ref, strict=True))
    verdict = "met" if ratio <= GOAL_RATIO else "NOT met"
    body = (
        "## Scoring deterministic checks\n\n"
        f"{args.tasks} tasks, {n_checks} deterministic checks, one recorded state each "
        f"({len(ours)} runs, each the median of {args.repeats} repeats, the three timed in "
        f"turn within each repeat; {machine()}). Seconds are "
        "medians over the runs; each ratio is the median of the per-run ratios to the "
        "reference timed in the same run.\n\n"
        "| what | seconds | ratio to reference |\n|---|---:|---:|\n"
        f"| endstate `score_task` (full task records, rubric templates rendered) | "
        f"{statistics.median(ours):.4f} | {ratio:.2f} |\n"
        f"| endstate check evaluation only (benchmark semantics, no records) | "
        f"{statistics.median(bare):.4f} | {ratio_bare:.2f} |\n"
        f"| reference: `jmespath.search` per check + `==` | {statistics.median(ref):.4f} | "
        "1.00 |\n\n"
        f"Goal: full records within {GOAL_RATIO:.2f}× the reference. Per run: {per_run}. "
        f"Measured: {ratio:.2f} ({verdict}).\n"
    )
    print(body)
    if args.write:
        write_section(args.write, "scoring", body)


if __name__ == "__main__":
    main()
