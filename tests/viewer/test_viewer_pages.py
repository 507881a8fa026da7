"""The viewer in real Chromium over a real run: the attempts table, stepping, checks, escaping."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Page

from agents.browser_harness import Browser
from endstate.records import NOT_RECORDED, TaskRecord
from endstate.runs.store import RunStore

from .conftest import HOSTILE, ODD_TASK, SCREEN_WIDTHS, THOUGHT, Viewer

SHOWN_STEP = "section.step:not([hidden])"


def records(run: Path) -> dict[tuple[str, str], TaskRecord]:
    return {(r.task_id, r.attempt): r for r in RunStore(run).read_records()}


async def shown_screen(page: Page) -> dict[str, Any]:
    """The shown step's screen once it has loaded: its src and natural width."""
    await page.wait_for_function(
        f"() => {{ const i = document.querySelector('{SHOWN_STEP} img');"
        " return i && i.complete && i.naturalWidth > 0; }"
    )
    return await page.eval_on_selector(
        f"{SHOWN_STEP} img", "i => ({src: i.getAttribute('src'), width: i.naturalWidth})"
    )


def test_the_run_table_lists_every_scheduled_attempt_with_its_status(
    browser: Browser, viewer: Viewer, viewed_run: Path
) -> None:
    on_disk = records(viewed_run)
    expected = {pair: r.status for pair, r in on_disk.items()} | {(ODD_TASK, "2"): "unmeasurable"}

    async def go(page: Page) -> tuple[list[list[str]], list[list[str]], str]:
        rows = page.locator("#attempts tbody tr")
        attrs = "tr => [tr.dataset.task, tr.dataset.attempt, tr.dataset.status]"
        table = await rows.evaluate_all(f"rows => rows.map({attrs})")
        await page.get_by_role("link", name="failed").click()
        await page.wait_for_url("**/?status=failed")
        failed = await rows.evaluate_all(f"rows => rows.map({attrs})")
        return table, failed, await page.inner_text("main")

    table, failed, summary = browser.run(go, viewer.url)
    assert {(t, a): s for t, a, s in table} == expected
    assert len(table) == 4 and expected[("pa-easy-1", "1")] == "passed"
    assert failed == [[t, a, s] for (t, a), s in expected.items() if s == "failed"] != []
    manifest = RunStore(viewed_run).read_manifest()
    assert manifest.run_id in summary and manifest.agent.spec in summary
    assert manifest.corpus.tree_hash[:16] in summary


def test_an_attempt_steps_forward_and_back_with_its_screens(
    browser: Browser, viewer: Viewer, viewed_run: Path
) -> None:
    record = records(viewed_run)[("pa-easy-1", "1")]
    assert record.facts is not None

    async def go(page: Page) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        await page.locator('#attempts tr[data-task="pa-easy-1"][data-attempt="1"] a').click()
        await page.wait_for_url("**/attempts/pa-easy-1/1")
        seen["list"] = await page.locator("#step-list a").all_inner_texts()
        seen["first"] = await shown_screen(page)
        seen["instruction"] = await page.inner_text("#instruction")
        await page.keyboard.press("ArrowRight")
        seen["second"] = await shown_screen(page)
        seen["thought"] = await page.inner_text(f"{SHOWN_STEP} .thought")
        seen["action"] = await page.inner_text(f"{SHOWN_STEP} pre.action")
        seen["hash"] = page.url.rsplit("#", 1)[1]
        await page.click("#next-step")
        seen["third"] = await shown_screen(page)
        await page.keyboard.press("ArrowRight")
        seen["bare"] = await page.locator(f"{SHOWN_STEP} img").count()
        seen["bare_title"] = await page.inner_text(f"{SHOWN_STEP} h3")
        await page.keyboard.press("ArrowLeft")
        seen["back"] = await shown_screen(page)
        seen["counter"] = await page.inner_text("#step-counter")
        seen["shown"] = await page.locator(SHOWN_STEP).count()
        return seen

    seen = browser.run(go, viewer.url)
    assert len(seen["list"]) == record.facts.steps + 1  # step 0: the first screen
    for key, step in (("first", 0), ("second", 1), ("third", 2), ("back", 2)):
        assert seen[key]["src"].endswith(f"/screens/step-{step:04d}.png"), seen[key]
        assert seen[key]["width"] == SCREEN_WIDTHS[step]
    assert "Open referral" in seen["instruction"]
    assert THOUGHT in seen["thought"] and '"type": "goto"' in seen["action"]
    assert seen["hash"] == "step-1"
    assert seen["bare"] == 0 and seen["bare_title"].startswith("Step 3: fill")
    assert seen["counter"] == f"3 of {record.facts.steps + 1}" and seen["shown"] == 1


def test_checks_and_the_final_word_come_from_the_record(
    browser: Browser, viewer: Viewer, viewed_run: Path
) -> None:
    record = records(viewed_run)[(ODD_TASK, "1")]
    dialogs: list[str] = []

    async def go(page: Page) -> dict[str, Any]:
        page.on("dialog", lambda d: dialogs.append(d.message))
        await page.locator(f'#attempts tr[data-task="{ODD_TASK}"][data-attempt="1"] a').click()
        await page.wait_for_selector("#checks")
        cells = await page.locator("#checks tbody tr").evaluate_all(
            "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))"
        )
        await page.click("#end-state summary")
        return {
            "path": page.url,
            "cells": cells,
            "message": await page.inner_text("#final-message"),
            "end_state": await page.inner_text("#end-state pre"),
            "pwned": await page.evaluate("window.__pwned === undefined"),
            "images": await page.locator("#final img").count(),
        }

    seen = browser.run(go, viewer.url)
    assert urlsplit(seen["path"]).path == "/attempts/pa%3Aeasy%2B2%40x/1"
    assert len(seen["cells"]) == len(record.checks) == 2
    for cells, check in zip(seen["cells"], record.checks, strict=True):
        assert cells[1].startswith(check.description)
        assert cells[3] == check.outcome == "fail"
        assert cells[4] == f"{check.earned:g} / {check.points:g}"
        assert cells[5] == check.detail
    # Agent-controlled markup is shown as the text it is: nothing ran, nothing was injected.
    assert seen["message"] == HOSTILE
    assert seen["pwned"] is True and dialogs == [] and seen["images"] == 0
    assert '"ehr"' in seen["end_state"] and '"cleared_referrals"' in seen["end_state"]


def test_an_attempt_without_a_trace_says_why(browser: Browser, viewer: Viewer) -> None:
    async def go(page: Page) -> tuple[str, str, int]:
        await page.locator(f'#attempts tr[data-task="{ODD_TASK}"][data-attempt="2"] a').click()
        await page.wait_for_selector("#no-trace")
        return (
            await page.inner_text("#no-trace"),
            await page.inner_text("#attempt-status"),
            await page.locator("section.step").count(),
        )

    why, status, steps = browser.run(go, viewer.url)
    assert why == f"No trace: {NOT_RECORDED}."
    assert status == "unmeasurable" and steps == 0


def test_a_screen_is_served_from_the_run_and_loads(browser: Browser, viewer: Viewer) -> None:
    url = f"{viewer.url}files/traces/pa-easy-1/1/screens/step-0001.png"

    async def go(page: Page) -> tuple[int, str | None]:
        response = await page.goto(url)
        assert response is not None
        return response.status, response.headers.get("content-type")

    assert browser.run(go) == (200, "image/png")


def test_a_changed_task_file_and_a_broken_trace_file_are_named_on_the_page(
    browser: Browser, viewed_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(viewed_run, run, symlinks=True)
    manifest = json.loads((run / "manifest.json").read_text())
    corpus = tmp_path / "corpus"
    shutil.copytree(manifest["corpus"]["root"], corpus)
    manifest["corpus"]["root"] = str(corpus)
    (run / "manifest.json").write_text(json.dumps(manifest))
    task_file = corpus / "prior_auth" / "task-1.json"
    doc = json.loads(task_file.read_text())
    doc["goal"] = "An instruction written after the run."
    task_file.write_text(json.dumps(doc))
    (run / "traces" / "pa-easy-1" / "1" / "actions.json").write_text('[{"step": 1,')
    served = Viewer(run)
    try:

        async def go(page: Page) -> tuple[str, str, list[str], str, int]:
            await page.goto(f"{served.url}attempts/pa-easy-1/1")
            return (
                await page.inner_text("#instruction"),
                await page.inner_text("#steps"),
                await page.locator("#step-list a").all_inner_texts(),
                await page.inner_text("#final-message"),
                await page.locator("#checks tbody tr").count(),
            )

        instruction, steps, listed, message, checks = browser.run(go)
    finally:
        served.stop()
    assert "An instruction written after the run." in instruction
    assert "prior_auth/task-1.json has changed since the run" in instruction
    assert "actions.json: not valid JSON (line 1" in steps
    # The screens are still there, each its own step; the rest of the attempt still shows.
    assert listed == ["0. start ▣", "1. screen ▣", "2. screen ▣"]
    assert message == "Documented and cleared." and checks == 2
