#!/usr/bin/env python3
"""An example `command:` agent: reads its task on stdin, drives its own browser over CDP.

Run it with `endstate run --agent "command:python examples/cdp_agent.py" ...`. It runs in a
sandbox with its own Chromium, and receives one JSON object on stdin — the projection (task id,
instruction, family, scenario label, start URL), the start URL of every system, and the CDP
endpoint of its browser — and must print one JSON object on its last stdout line:
{"claim": "done" | "gave_up" | "error", "message": ...}. `python` there is a Python with
Playwright; nothing of the harness is visible.

This one does not solve anything: it opens the start page in its own browser context, opens
the first record in the page's main table and gives up, reporting what it saw. Replace the
middle with your agent.
"""

from __future__ import annotations

import json
import sys

from playwright.sync_api import sync_playwright


def main() -> None:
    task = json.load(sys.stdin)
    projection = task["projection"]
    endpoint = task["cdp_endpoint"]
    if not endpoint:
        print(json.dumps({"claim": "error", "message": "no CDP endpoint offered"}))
        return
    steps = 0
    with sync_playwright() as pw:
        browser = pw.chromium.connect_over_cdp(endpoint)
        context = browser.new_context()
        page = context.new_page()
        page.goto(projection["start_url"])
        steps += 1
        first = page.locator("main table a").first
        opened = None
        if first.count():
            opened = first.inner_text()
            first.click()
            page.wait_for_load_state()
            steps += 1
        heading = page.get_by_role("heading", level=1).first.inner_text()
        context.close()
    message = (
        f"opened {opened!r}; page heading {heading!r}; not attempting: {projection['task_id']}"
    )
    print(json.dumps({"claim": "gave_up", "message": message, "steps": steps}))


if __name__ == "__main__":
    main()
