"""What every vendor's computer-use backend shares: the system prompt, screenshots as the wire
wants them, outcomes gathered per vendor call, and coordinates checked against the display.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass

from endstate.agents.computer import ActionOutcome, Screen, Viewport
from endstate.endpoints import Endpoint, EndpointApi

COMPUTER_PROMPT = """\
You are operating a web browser to do healthcare operations work on behalf of the person
described in the task. You see the browser's page as screenshots and act with the mouse and
keyboard at pixel coordinates of the screenshot. There is no address bar: reach pages through
the links and buttons on the page. Change nothing the task does not ask for. Check the result of
each step on the next screenshot before moving on. When the task is finished, or you find it
cannot be done, reply with a short account of what you did and no further tool call; the account
is recorded, but only what the systems recorded decides whether the task was completed.
"""
PROMPT_VERSION = hashlib.sha256(COMPUTER_PROMPT.encode()).hexdigest()[:16]
DUMMY_KEY = "endstate-local"  # a local double needs no key, but the SDK clients want one


def api_key(env_var: str) -> str:
    """The vendor key from the environment, or a dummy so a local endpoint works without one."""
    return os.environ.get(env_var) or DUMMY_KEY


def vendor_endpoint(api: EndpointApi, model: str, base_url: str | None, env_var: str) -> Endpoint:
    """A vendor backend's endpoint, for the check before the run (the SDK's default URL, or
    its environment variable, when no base URL is given)."""
    return Endpoint(
        role="agent model",
        api=api,
        model=model,
        base_url=base_url,
        api_key=api_key(env_var),
        key_set=bool(os.environ.get(env_var)),
        key_hint=f"${env_var}",
        option="--agent-base-url",
    )


def png_base64(screen: Screen) -> str:
    """The screenshot as base64 text; a backend that sees pixels cannot go on without one."""
    if screen.png is None:
        raise ValueError(f"no screenshot of {screen.url}: a computer-use backend needs pixels")
    return base64.b64encode(screen.png).decode("ascii")


def png_data_url(screen: Screen) -> str:
    return f"data:image/png;base64,{png_base64(screen)}"


@dataclass(frozen=True)
class CallResult:
    """The outcome of one vendor call, which may have been performed as several actions."""

    ok: bool
    message: str


def gather_outcomes(outcomes: list[ActionOutcome]) -> dict[str, CallResult]:
    """Outcomes per vendor call id, in order: failed if any of its actions failed."""
    messages: dict[str, list[str]] = {}
    failed: set[str] = set()
    for outcome in outcomes:
        messages.setdefault(outcome.call_id, [])
        if outcome.message:
            messages[outcome.call_id].append(outcome.message)
        if not outcome.ok:
            failed.add(outcome.call_id)
    return {
        call_id: CallResult(call_id not in failed, "; ".join(parts) or "done")
        for call_id, parts in messages.items()
    }


NOT_PERFORMED = CallResult(False, "not performed: an earlier action of this turn failed")


class ActionRefused(ValueError):
    """A vendor call the harness cannot perform; its message goes back to the model."""


def point_in(viewport: Viewport, x: object, y: object) -> tuple[int, int]:
    """A coordinate the model gave, checked to be whole pixels on the display."""
    if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, int | float):
        raise ActionRefused(f"coordinate must be two numbers, got {[x, y]!r}")
    if not isinstance(y, int | float):
        raise ActionRefused(f"coordinate must be two numbers, got {[x, y]!r}")
    px, py = round(x), round(y)
    if not (0 <= px < viewport.width and 0 <= py < viewport.height):
        raise ActionRefused(
            f"coordinate ({px}, {py}) is outside the {viewport.width}x{viewport.height} display"
        )
    return px, py
