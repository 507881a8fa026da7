"""The null agent: does nothing. Every report can show this floor."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from endstate.agents.base import AgentOutcome, AttemptContext, InProcessAgent

if TYPE_CHECKING:
    from playwright.async_api import Page


class NullAgent(InProcessAgent):
    kind = "null"
    name = "null"
    scored = True
    uses_page = False

    def config(self) -> dict[str, Any]:
        return {}

    async def attempt(self, ctx: AttemptContext, page: Page | None) -> AgentOutcome:
        return AgentOutcome(claim="none", final_message=None, steps=0)
