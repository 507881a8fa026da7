"""Links from the EHR into the other systems: each carries the episode's start token."""

from __future__ import annotations

from endstate.envs.shared.web import Ctx


def portal_url(ctx: Ctx, system: str | None, next_path: str = "") -> str:
    """The system's start link for this episode, landing on `next_path` ("" where the
    system is not running, so the page shows no link)."""
    base = ctx.runtime.base_urls.get(system or "")
    if not base or system is None:
        return ""
    url = f"{base}/start?t={ctx.episode.start_tokens[system]}"
    return url + (f"&next={next_path}" if next_path else "")
