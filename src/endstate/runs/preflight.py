"""Before anything of a run starts: the model endpoints it depends on answer and take their
keys (`endstate.endpoints`), so a dead URL or a missing key is a one-line refusal, never a run
of attempts that each measured nothing.

The agent's model is checked whenever the agent calls one (its `preflight`); the judge when one
is configured and the run's tasks hold rubric checks (otherwise it is never asked). Both are
checked together; each refusal names its endpoint.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from endstate.agents.base import Agent, check_agent_endpoints
from endstate.corpus.model import Task
from endstate.errors import EndstateError
from endstate.manifest import EndpointCheck
from endstate.scoring.judge import Judge


def judge_needed(tasks: list[Task]) -> bool:
    """Whether any task holds a rubric check: only then is the judge ever asked."""
    return any(c.type == "llm_judge" for t in tasks for c in t.grading.checks)


async def check_endpoints(
    agent: Agent, judge: Judge | None, tasks: list[Task]
) -> list[EndpointCheck]:
    """Every endpoint's check, or the refusal of the first that failed (naming the others)."""
    checks: list[Awaitable[list[EndpointCheck]]] = [check_agent_endpoints(agent)]
    if judge is not None and judge_needed(tasks):
        checks.append(_as_list(judge.preflight()))
    results = await asyncio.gather(*checks, return_exceptions=True)
    refusals = [r for r in results if isinstance(r, BaseException)]
    if refusals:
        if not all(isinstance(r, EndstateError) for r in refusals):
            raise next(r for r in refusals if not isinstance(r, EndstateError))
        raise EndstateError(" — and ".join(str(r) for r in refusals))
    return [c for r in results if not isinstance(r, BaseException) for c in r]


async def _as_list(check: Awaitable[EndpointCheck]) -> list[EndpointCheck]:
    return [await check]
