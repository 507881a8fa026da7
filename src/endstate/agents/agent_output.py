"""What an agent hands back, read through one bounded, total step.

Everything an agent returns — its final line, its claim, its step count, its messages, the
actions and model words it recorded, its browser's storage — is the system under test's own
account: it may be huge, malformed or built to break the harness (a lone surrogate cannot be
written as UTF-8; a 5,000-digit integer makes Python's decoder raise; `1e999` decodes to
infinity). Nothing here raises on any input: what cannot be used is replaced or cut, and each
such repair is named, with its size, in the attempt's record (`output_problems`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from endstate.agents.base import ActionRecord, AgentClaim, AgentOutcome
from endstate.jsonfile import printable
from endstate.manifest import AgentOutputLimits

LIMITS = AgentOutputLimits()  # the bounds, as every manifest records them
MAX_LINE_BYTES = LIMITS.final_line_bytes
MAX_MESSAGE_CHARS = LIMITS.message_chars
MAX_TEXT_CHARS = LIMITS.text_chars
MAX_ACTIONS = LIMITS.actions
MAX_ACTIONS_BYTES = LIMITS.actions_bytes
MAX_STEPS = LIMITS.steps
MAX_INT_DIGITS = LIMITS.integer_digits
MAX_DEPTH = 32  # nesting of an action's arguments
MAX_REPAIRS = 20  # kinds of repair named per attempt


@dataclass
class Repairs:
    """The repairs made to one attempt's output: each kind once, with how often it was made."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, text: str) -> None:
        if text in self.counts or len(self.counts) < MAX_REPAIRS:
            self.counts[text] = self.counts.get(text, 0) + 1

    @property
    def items(self) -> list[str]:
        return [t if n == 1 else f"{t} ({n:,} times)" for t, n in self.counts.items()]


@dataclass(frozen=True)
class FinalLine:
    """The command agent's last JSON line: {"claim": ..., "message": ..., "steps": ...}."""

    claim: AgentClaim
    message: str | None
    steps: int
    found: bool  # a JSON object line was found at all
    problems: tuple[str, ...] = ()


class _Unusable(ValueError):
    """A number the final line may not carry."""


def _bounded_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Unusable(f"an integer of {digits:,} digits")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Unusable(f"the number {text[:24]} (not finite)")
    return value


def _no_constant(name: str) -> Any:
    raise _Unusable(f"{name} (not a JSON number)")


def _decode_line(line: str) -> tuple[Any, str | None]:
    """A JSON value, or None and why the line could not be one we use."""
    try:
        return (
            json.loads(
                line,
                parse_int=_bounded_int,
                parse_float=_finite_float,
                parse_constant=_no_constant,
            ),
            None,
        )
    except _Unusable as exc:
        return None, f"final line refused: it holds {exc}"
    except (ValueError, RecursionError):  # not JSON, or nested past the decoder's depth
        return None, None


def read_final_line(stdout: str) -> FinalLine:
    """The last line of stdout that is a JSON object; nothing on it can raise or leak."""
    refused: list[str] = []  # later lines that looked like the final one, and why not
    for raw in reversed(stdout.strip().splitlines()):
        size = len(raw.encode("utf-8", "surrogatepass"))
        if size > MAX_LINE_BYTES:
            refused.append(f"final line refused: {size:,} bytes (limit {MAX_LINE_BYTES:,})")
            continue
        data, why = _decode_line(raw)
        if why is not None:
            refused.append(why)
            continue
        if isinstance(data, dict):
            return _final(data, refused[:MAX_REPAIRS])
    return FinalLine(
        claim="error", message=None, steps=0, found=False, problems=tuple(refused[:MAX_REPAIRS])
    )


def _final(data: dict[str, Any], earlier: list[str]) -> FinalLine:
    problems = list(earlier)
    said = data.get("claim", "done")
    claim: AgentClaim = "error"
    if said in ("done", "gave_up", "error"):
        claim = said
    else:
        problems.append(f"claim {printable(repr(said))[:60]} is not one of done, gave_up, error")
    repairs = Repairs()
    message = data.get("message")
    if message is not None and not isinstance(message, str):
        message = json.dumps(message, ensure_ascii=False)
    if message is not None:
        message = bounded_text(message, MAX_MESSAGE_CHARS, "final message", repairs)
    steps = bounded_steps(data.get("steps", 0), repairs)
    problems += repairs.items
    return FinalLine(claim, message, steps, found=True, problems=tuple(problems))


def bounded_steps(value: Any, repairs: Repairs) -> int:
    """A step count the agent reported, if it is one; else 0 and the repair named."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_STEPS:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        repairs.add(f"steps {value} out of range 0..{MAX_STEPS:,}: recorded as 0")
    else:
        repairs.add(f"steps of type {type(value).__name__} is not a count: recorded as 0")
    return 0


def bounded_text(text: str, limit: int, what: str, repairs: Repairs) -> str:
    """Text that can be written as UTF-8 and is at most `limit` characters long."""
    safe = printable(text)
    if safe != text:
        repairs.add(f"{what}: lone surrogates written as escapes")
    if len(safe) > limit:
        repairs.add(f"{what}: {len(safe):,} characters cut to {limit:,}")
        safe = safe[:limit]
    return safe


def bounded_value(value: Any, what: str, repairs: Repairs, depth: int = 0) -> Any:
    """A JSON-like value whose every string is bounded text, nested at most MAX_DEPTH."""
    if isinstance(value, str):
        return bounded_text(value, MAX_TEXT_CHARS, what, repairs)
    if isinstance(value, bool | int | None):
        if isinstance(value, int) and abs(value) > 10**18:
            repairs.add(f"{what}: an integer beyond 64 bits written as text")
            return str(value)
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if depth >= MAX_DEPTH:
        repairs.add(f"{what}: nested deeper than {MAX_DEPTH} levels, cut")
        return None
    if isinstance(value, dict):
        return {
            bounded_text(str(k), MAX_TEXT_CHARS, what, repairs): bounded_value(
                v, what, repairs, depth + 1
            )
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [bounded_value(v, what, repairs, depth + 1) for v in value]
    return bounded_text(repr(value), MAX_TEXT_CHARS, what, repairs)


def _optional_text(text: str | None, limit: int, what: str, repairs: Repairs) -> str | None:
    return None if text is None else bounded_text(text, limit, what, repairs)


def contained(outcome: AgentOutcome) -> tuple[AgentOutcome, list[str]]:
    """The outcome with every agent-supplied value bounded and writable, and the repairs.

    Whatever kind of agent returned it: a model's words and a command's output are alike the
    system under test's, and either can hold what the harness cannot write."""
    repairs = Repairs()
    for problem in outcome.output_problems:
        repairs.add(bounded_text(problem, MAX_TEXT_CHARS, "a repair", repairs))
    actions = outcome.actions
    if len(actions) > MAX_ACTIONS:
        repairs.add(f"actions: {len(actions):,} recorded, the first {MAX_ACTIONS:,} kept")
        actions = actions[:MAX_ACTIONS]
    kept: list[ActionRecord] = []
    size = 0
    for a in actions:
        bounded = a.model_copy(
            update={
                "action": bounded_value(a.action, "an action", repairs),
                "result": bounded_text(a.result, MAX_TEXT_CHARS, "an action's result", repairs),
                "thought": _optional_text(a.thought, MAX_TEXT_CHARS, "a model's words", repairs),
            }
        )
        size += len(bounded.model_dump_json())
        if size > MAX_ACTIONS_BYTES:
            repairs.add(
                f"actions: {len(kept):,} kept of {len(outcome.actions):,}, "
                f"the trace's {MAX_ACTIONS_BYTES:,} bytes for actions reached"
            )
            break
        kept.append(bounded)
    storage = outcome.browser_storage
    if storage is not None:
        storage = {
            printable(origin): [[printable(k), printable(v)] for k, v in items]
            for origin, items in storage.items()
        }
    update: dict[str, Any] = {
        "final_message": _optional_text(
            outcome.final_message, MAX_MESSAGE_CHARS, "final message", repairs
        ),
        "error": _optional_text(outcome.error, MAX_TEXT_CHARS, "the agent's error", repairs),
        "steps": bounded_steps(outcome.steps, repairs),
        "actions": kept,
        "browser_storage": storage,
        "browser_storage_error": _optional_text(
            outcome.browser_storage_error, MAX_TEXT_CHARS, "storage error", repairs
        ),
        "infrastructure_error": _optional_text(
            outcome.infrastructure_error, MAX_TEXT_CHARS, "infrastructure error", repairs
        ),
        "output_problems": [],
    }
    return outcome.model_copy(update=update), repairs.items
