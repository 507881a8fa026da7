"""What a model-driven agent sees each turn: the URL, the title and the accessibility tree.

The accessibility snapshot names elements exactly the way action targets address them
(role + accessible name), so what the model reads is what it can act on.
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

DEFAULT_SNAPSHOT_CHARS = 12000


@dataclass(frozen=True)
class Observation:
    url: str
    title: str
    snapshot: str
    full_chars: int
    """Length of the snapshot before truncation."""

    @property
    def truncated(self) -> bool:
        return self.full_chars > len(self.snapshot)


def truncate(text: str, max_chars: int) -> str:
    """Keep the head of the text, cut at a line boundary when one is close, with a marker."""
    if len(text) <= max_chars:
        return text
    head = text[:max_chars]
    cut = head.rfind("\n")
    if cut >= max_chars * 0.8:
        head = head[:cut]
    return (
        f"{head}\n[... snapshot truncated: showing {len(head)} of {len(text)} characters; "
        "the rest of the page is not shown]"
    )


async def observe(
    page: Page, max_chars: int = DEFAULT_SNAPSHOT_CHARS, timeout_ms: float = 5000
) -> Observation:
    """Look at the page; a page that cannot be read yields a note, not an exception."""
    url = page.url
    try:
        title = await page.title()
    except PlaywrightError:
        title = ""
    try:
        snapshot = await page.locator("body").aria_snapshot(timeout=timeout_ms)
    except PlaywrightError as exc:
        first = (exc.message or str(exc)).strip().splitlines()
        snapshot = f"(accessibility snapshot unavailable: {first[0] if first else 'error'})"
    return Observation(url, title, truncate(snapshot, max_chars), len(snapshot))


def render(observation: Observation) -> str:
    """The observation as text for a chat message."""
    return (
        f"URL: {observation.url}\n"
        f"Title: {observation.title}\n"
        f"Accessibility snapshot:\n{observation.snapshot}"
    )
