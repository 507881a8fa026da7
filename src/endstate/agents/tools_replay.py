"""Tools replay: plays a recorded run of tool calls (`DIR/<task id>.json`) against the
episode's tool service, then answers with the recorded final JSON. It knows the answer in
advance, so its runs are validation, never scored.

    {"system": "scheduling", "calls": [{"tool": ..., "arguments": {...}, "key": ...}],
     "answer": {...} | null}
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from endstate.agents.base import ActionRecord, AgentOutcome, AttemptContext, InProcessAgent
from endstate.agents.tool_client import ToolClient
from endstate.errors import EndstateError

if TYPE_CHECKING:
    from playwright.async_api import Page


def read_tool_run(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EndstateError(f"{path}: not a readable tool run ({exc})") from exc
    calls = data.get("calls") if isinstance(data, dict) else None
    if not isinstance(calls, list) or not all(
        isinstance(c, dict) and isinstance(c.get("tool"), str) for c in calls
    ):
        raise EndstateError(f"{path}: $.calls must be a list of {{tool, arguments, key}}")
    found: dict[str, Any] = data
    return found


class ToolsReplayAgent(InProcessAgent):
    kind = "tools-replay"
    scored = False
    uses_page = False

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.name = f"tools-replay:{folder.name}"

    def config(self) -> dict[str, Any]:
        return {"folder": str(self.folder)}

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        path = self.folder / f"{ctx.projection.task_id}.json"
        if not path.is_file():
            return AgentOutcome(claim="gave_up", error=f"no tool run {path.name} in {self.folder}")
        run = read_tool_run(path)
        system = str(run.get("system", "scheduling"))
        start = ctx.start_urls.get(system)
        if start is None:
            return AgentOutcome(claim="gave_up", error=f"the episode has no {system!r} system")
        records: list[ActionRecord] = []
        began = time.monotonic()
        async with ToolClient(start) as client:
            for step, call in enumerate(run["calls"]):
                got = await client.call(call["tool"], call.get("arguments", {}), call.get("key"))
                records.append(
                    ActionRecord(
                        step=step,
                        action={"type": "tool", "tool": call["tool"]},
                        ok=got.get("status") != "refused",
                        result=str(got.get("code") or got.get("status")),
                        at=round(time.monotonic() - began, 3),
                    )
                )
        answer = run.get("answer")
        return AgentOutcome(
            claim="done",
            final_message=json.dumps(answer) if answer is not None else "done",
            steps=len(records),
            actions=records,
        )
