"""How a run's attempts were executed, in the words of its disclosure.

A local run's workers share one environment; Ray workers each have their own, and each
verified the run's pins before taking work. A worker that refused, and attempts that lost
their worker, are named in line: a reader must see them without opening the run directory.
"""

from __future__ import annotations

from endstate.manifest import ExecutorUse, Manifest, WorkerRefusal


def _short(value: str, width: int = 80) -> str:
    if len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return value[:16] + "…"
    return value if len(value) <= width else value[: width - 1] + "…"


def _one(use: ExecutorUse) -> str:
    if use.kind == "local":
        return f"{use.workers} local worker(s) sharing one environment"
    where = f"the Ray cluster at {use.address}" if use.address else "a local Ray instance"
    ready = use.workers_ready or 0
    took = (
        f"{use.workers} asked for, {ready} passed the pin check and took work (replacements "
        "included)"
        if use.workers_lost
        else f"{ready} of {use.workers} passed the pin check and took work"
    )
    text = (
        f"Ray workers on {where}: {took}, each with its own environment instance, browser and agent"
    )
    if use.workers_lost:
        text += (
            f"; {use.workers_lost} worker(s) lost mid-run, {use.attempts_retried} attempt(s) "
            f"re-run on another worker, {use.attempts_lost} lost on every try (unmeasurable, "
            "executor fault)"
        )
    return text


def execution_text(manifest: Manifest) -> str:
    """Who ran the attempts: one phrase per start and resume of the run."""
    uses = manifest.executors
    if not uses:
        return f"{manifest.limits.workers} worker(s) shared one environment"
    if len(uses) == 1:
        return "attempts ran on " + _one(uses[0])
    phrases = [_one(u) for u in uses]
    return "attempts ran on " + phrases[0] + "; resumed on " + "; then on ".join(phrases[1:])


def _refusal(r: WorkerRefusal) -> str:
    return f"{r.worker}: {r.pin} {_short(r.found)!r} there, the run's {_short(r.expected)!r}"


def pins_text(manifest: Manifest) -> str:
    """For the build item: pins checked on every Ray worker, and every refusal."""
    uses = [u for u in manifest.executors if u.kind == "ray"]
    if not uses:
        return ""
    refusals = [r for u in uses for r in u.refusals]
    text = (
        "; every Ray worker checked this build, the corpus tree hash, the environment "
        "fingerprint and the agent on its own node before taking work"
    )
    if refusals:
        text += f" — REFUSED ({len(refusals)}): " + "; ".join(_refusal(r) for r in refusals)
    return text
