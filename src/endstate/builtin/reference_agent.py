"""`reference:CORPUS`: plays each task's own reference trajectory, as a run — the ceiling.

A reference trajectory lives on the grading side, so the agent that plays it knows the answer
in advance: like `replay`, its runs are validation (`scored = False`) and every report of one
says so. It exists to put, beside the null agent's floor, the score of an agent that does
exactly what each task rewards — with no judge, every built-in task it plays to the end
passes (docs/builtin-corpus.md). It reads the corpus named on the command line itself (the
harness hands it only the projection, as it does every agent), and is registered as a plug-in
kind (`endstate.agents` entry point), so the agents layer never imports the built-in corpus.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from endstate.agents.base import AgentOutcome, AttemptContext, InProcessAgent
from endstate.agents.browser_options import ActingOptions
from endstate.agents.perform import ActOptions
from endstate.agents.registry import AgentKind
from endstate.agents.replay import attempt_downloads, time_budget
from endstate.builtin import named_corpus
from endstate.builtin.trajectory import play
from endstate.corpus.loader import load_corpus
from endstate.errors import EndstateError

if TYPE_CHECKING:
    from playwright.async_api import Page


class ReferenceAgent(InProcessAgent):
    kind = "reference"
    scored = False
    uses_page = True

    def __init__(self, corpus: Path, options: ActOptions | None = None) -> None:
        self.corpus = corpus
        loaded = load_corpus(corpus)
        self.references: dict[str, list[dict[str, Any]]] = {
            t.id: list(ref["steps"])
            for t in loaded.tasks
            if isinstance(ref := t.grading.extra.get("reference"), dict) and ref.get("steps")
        }
        if not self.references:
            raise EndstateError(f"{corpus}: no task there carries a reference trajectory")
        self.tree_hash = loaded.tree_hash
        self.options = options or ActOptions()
        self.name = f"reference:{corpus.name}"

    def config(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "corpus": str(self.corpus),
            "tree_hash": self.tree_hash,
            "tasks": len(self.references),
            "timeout_ms": self.options.timeout_ms,
        }

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        if page is None:
            return AgentOutcome(claim="error", error="the reference agent needs a browser page")
        steps = self.references.get(ctx.projection.task_id)
        if steps is None:
            return AgentOutcome(
                claim="error",
                error=f"no reference trajectory for task {ctx.projection.task_id} in {self.corpus}",
            )
        started = time.monotonic()
        with attempt_downloads(self.options, ctx) as downloads:
            options = ActOptions(
                timeout_ms=self.options.timeout_ms,
                download_dir=downloads,
                files_dir=downloads,
                upload_roots=(downloads,),
            )
            played = await _within(play(page, steps, options), time_budget(ctx))
        if played is None:
            return AgentOutcome(claim="timeout", error=f"time limit {ctx.time_limit:g}s reached")
        elapsed = time.monotonic() - started
        if not played.ok:
            return AgentOutcome(claim="error", steps=played.completed, error=played.error)
        return AgentOutcome(
            claim="done",
            steps=len(steps),
            final_message=played.message or f"reference played in {elapsed:.1f}s",
        )


async def _within(coro: Any, seconds: float) -> Any:
    try:
        return await asyncio.wait_for(coro, max(seconds, 0.001))
    except TimeoutError:
        return None


def _make(arg: str, options: ActingOptions) -> ReferenceAgent:
    path = named_corpus(Path(arg))
    if not path.exists():
        raise EndstateError(f"{arg}: no corpus there (a folder, or `builtin`)")
    return ReferenceAgent(path, ActOptions(timeout_ms=options.action_timeout_s * 1000))


KIND = AgentKind(
    "reference",
    "CORPUS",
    _make,
    "plays each task's own reference trajectory from CORPUS (validation: the ceiling)",
    ActingOptions,
)
