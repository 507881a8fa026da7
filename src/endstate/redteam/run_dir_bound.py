"""What one attempt may leave in the run directory and its end state, and the red team's
checks of both.

Every file of an attempt's trace folder has a bound of its own (docs/trust-boundary.md): the
agent's stdout and stderr (head and tail kept), its final message, its actions, a computer-use
agent's screenshots and the end state. Their sum is the most one attempt may cost the run
directory, whatever the agent does; an attempt folder past it means some writer is unbounded.
"""

from __future__ import annotations

import json
from pathlib import Path

from endstate.agents.computer_loop import DEFAULT_SCREENS_CAP
from endstate.envs.suite.limits import SuiteLimits
from endstate.manifest import AgentOutputLimits
from endstate.sandbox.policy import SandboxLimits

SMALL_FILES = 1024 * 1024  # the record's other small files (actions' index, metadata)
ESCAPED = 6  # the most bytes one character of the final message takes in JSON (\u0000)


def attempt_bytes(
    output: AgentOutputLimits | None = None,
    sandbox: SandboxLimits | None = None,
    suite: SuiteLimits | None = None,
    screens: int = DEFAULT_SCREENS_CAP,
) -> int:
    """The most an attempt's trace folder may hold under these bounds (defaults: as shipped)."""
    output = output or AgentOutputLimits()
    sandbox = sandbox or SandboxLimits()
    suite = suite or SuiteLimits()
    return (
        2 * sandbox.output_bytes
        + ESCAPED * output.message_chars
        + output.actions_bytes
        + screens
        + suite.state_document_bytes
        + SMALL_FILES
    )


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def oversized(run_dir: Path, bound: int | None = None) -> tuple[str | None, str]:
    """(which attempt folders passed the bound, or None; what was found) for a run."""
    limit = attempt_bytes() if bound is None else bound
    sizes = {
        f"{folder.parent.name}/{folder.name}": folder_bytes(folder)
        for folder in (run_dir / "traces").glob("*/*")
        if folder.is_dir()
    }
    over = [f"{name}: {size:,} bytes" for name, size in sorted(sizes.items()) if size > limit]
    largest = max(sizes.values(), default=0)
    fine = (
        f"{len(sizes)} attempt folder(s), the largest {largest / 2**20:.1f} MiB "
        f"of {limit / 2**20:.0f} MiB allowed"
    )
    problem = f"over {limit:,} bytes: " + "; ".join(over[:3]) if over else None
    return problem, fine


def episode_footprint(
    run_dir: Path, task_id: str, suite: SuiteLimits | None = None
) -> tuple[str | None, str]:
    """(why an attempt's end state is past the suite's bounds, or None; its size and events).

    A flood of page views is kept as events only up to the bound (the rest counted), and the
    document scored is bounded in bytes: the red team checks both on the attacker's own."""
    limits = suite or SuiteLimits()
    path = run_dir / "traces" / task_id / "1" / "end_state.json"
    try:
        size = path.stat().st_size
        events = json.loads(path.read_text()).get("events") or []
    except (OSError, ValueError, AttributeError) as exc:
        return f"its end state cannot be read ({type(exc).__name__})", ""
    seen = f"end state {size / 1024:.0f} KiB, {len(events):,} events kept"
    if size > limits.state_document_bytes:
        return f"its end state holds {size:,} bytes (bound {limits.state_document_bytes:,})", seen
    if len(events) > limits.events:
        return f"its end state keeps {len(events):,} events (bound {limits.events:,})", seen
    return None, seen
