"""Recording a trajectory by doing it: a fresh episode, one action per line, kept if it worked.

Actions come from a stream (a file or a terminal) as one JSON object per line, in the replay
vocabulary. Each is performed in a real browser at once and written only when it succeeded,
so a saved trajectory has already replayed once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from endstate import firewall
from endstate.agents.actions import Done, GiveUp
from endstate.agents.replay import TrajectoryRecorder
from endstate.browser import async_browser
from endstate.corpus.model import Task
from endstate.runs.environment import open_task_episode
from endstate.runs.run_setup import start_environment


async def record(
    task: Task,
    actions: TextIO,
    out: Path,
    say: Callable[[str], None],
    headed: bool = False,
    world_seed: int | None = None,
) -> int:
    """Record until EOF or a done/give_up action; returns the number of actions kept."""
    async with (
        start_environment("embedded", 0, world_seed) as env,
        async_browser(headless=not headed) as browser,
    ):
        episode = await open_task_episode(env, task, f"{task.id}#record")
        projection = firewall.project(task, episode.binding)
        context = await browser.new_context(accept_downloads=True)
        page = await context.new_page()
        if projection.start_url:
            await page.goto(projection.start_url)
        say(f"recording {task.id} at {page.url}")
        recorder = TrajectoryRecorder(page)
        loop = asyncio.get_running_loop()
        while True:
            line = await loop.run_in_executor(None, actions.readline)
            if not line:
                break
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as exc:
                say(f"skipped: not JSON ({exc.msg})")
                continue
            result = await recorder.do(raw, strict=False)
            say(("kept: " if result.ok else "failed, not kept: ") + result.message)
            if recorder.actions and isinstance(recorder.actions[-1], Done | GiveUp):
                break
        recorder.save(out, description=f"recorded for {task.id}")
        await context.close()
        await env.close_episode(episode)
        return len(recorder.actions)
