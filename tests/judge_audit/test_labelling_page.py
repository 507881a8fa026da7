"""The labelling page in real Chromium, served by the real CLI: blind until labelled, the
verdict shown after, and the report's agreement equal to the hand count of the labels given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Error, Page, Response

from agents.browser_harness import Browser
from endstate.judge_audit.labels import labels_path, read_labels

from .conftest import DETAIL_MARK, HUMAN, JUDGE, TASKS, LabelServer, run_cli

# What would give the judge's verdict away in a response about an unlabelled item.
TELLS = (DETAIL_MARK, "judge majority", 'id="judge-verdict"', "judge-outcome", "calls said pass")


async def _bodies_of_the_page_shown(responses: list[Response]) -> tuple[list[str], set[str]]:
    """The bodies still readable, and their URLs. Chromium drops a response's body once its
    page is navigated away from, and a late response of the page before (seen after the list
    was cleared) is such a body; the page shown keeps every body of its own, its document's
    included (which the caller checks was read)."""
    texts, read = [], set()
    for response in responses:
        if response.status != 200:
            continue
        try:
            texts.append(await response.text())
        except Error as exc:
            if "navigated away" not in exc.message:
                raise
            continue
        read.add(response.url)
    return texts, read


async def label_every_item(page: Page) -> dict[str, Any]:
    seen: dict[str, Any] = {"blind": [], "revealed": {}, "tasks": []}
    bodies: list[Response] = []
    page.on("response", lambda r: bodies.append(r))
    await page.fill("#labeller", "ana")
    await page.click("#start button")
    await page.wait_for_url("**/label/ana/1")
    for _ in TASKS:
        await page.wait_for_selector("#label-form")
        task = await page.inner_text("#task-id")
        seen["tasks"].append(task)
        # Before the label: nothing the page loaded carries the verdict.
        texts, read = await _bodies_of_the_page_shown(bodies)
        seen["blind"].append(
            (
                task,
                [t for t in TELLS if any(t in x for x in texts)],
                await page.locator("#judge-verdict").count(),
                page.url in read,
            )
        )
        if task == "t-03":
            seen["answer"] = await page.inner_text("#answer")
            seen["pwned"] = await page.evaluate("window.__pwned === undefined")
        await page.check(f"#label-{HUMAN[task]}")
        if task == "t-06":
            await page.fill("#comment", "The note never names the payer.")
        await page.click("#save")
        await page.wait_for_selector("#judge-verdict")
        seen["revealed"][task] = (
            await page.inner_text("#judge-outcome"),
            await page.inner_text("#your-label"),
            await page.inner_text("#agreement"),
        )
        bodies.clear()
        await page.click("#next-open")
    await page.wait_for_selector("#items")
    seen["progress"] = await page.inner_text("#progress")
    return seen


def test_labelling_blind_then_the_report_matches_the_hand_count(
    browser: Browser, label_server: LabelServer, judged_run: Path, tmp_path: Path
) -> None:
    assert any("sampled 10 of 10 judged checks (seed 3)" in line for line in label_server.said)
    seen = browser.run(label_every_item, label_server.url)
    assert sorted(seen["tasks"]) == TASKS and seen["tasks"] != TASKS  # shuffled, all of them
    assert seen["blind"] == [(task, [], 0, True) for task in seen["tasks"]]
    for task, (judge, mine, said) in seen["revealed"].items():
        assert (judge, mine) == (JUDGE[task], HUMAN[task])
        assert said == ("you agree" if judge == mine else "you disagree")
    assert seen["progress"] == "10 of 10"
    # Agent text is shown as the text it is, hidden characters as marked escapes.
    assert seen["answer"] == "Done. <script>window.__pwned = 1</script> invoice<U+202E>fdp.exe"
    assert seen["pwned"] is True
    assert len(read_labels(labels_path(judged_run, "ana"))) == 10

    out = tmp_path / "audit.json"
    done = run_cli("judge", "audit", "report", str(judged_run), "--json", str(out))
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    (ana,) = report["labellers"]
    # The hand count of tests/judge_audit/test_agreement.py: 8 of 10 alike, kappa 0.28 / 0.48.
    assert (ana["items"], ana["agree"], ana["agreement"]) == (10, 8, 0.8)
    assert abs(ana["kappa"] - 0.28 / 0.48) < 1e-9
    assert [round(x, 4) for x in ana["interval_95"]] == [0.4902, 0.9433]
    assert report["run_weighted"]["judged_checks_covered"] == 10
    disagreements = [d for r in report["rubrics"] for d in r["disagreements"]]
    assert {(d["task_id"], d["judge"], d["human"]) for d in disagreements} == {
        ("t-06", "pass", "fail"),
        ("t-10", "fail", "pass"),
    }
    assert (
        "judge vs ana: 8/10 agree = 80.0% [49.0%, 94.3%] (Wilson 95%), Cohen's kappa 0.583"
        in done.stdout
    )
    assert "comment: The note never names the payer." in done.stdout


def test_the_served_page_refuses_a_label_without_its_token(
    label_server: LabelServer, judged_run: Path
) -> None:
    url = f"{label_server.url}label/mallory/1"
    page = httpx.get(url)
    assert page.status_code == 200 and 'name="token"' in page.text
    forged = httpx.post(url, data={"label": "fail", "token": "guessed"})
    assert forged.status_code == 403
    rebound = httpx.get(label_server.url, headers={"host": "attacker.example"})
    assert rebound.status_code == 421
    assert not labels_path(judged_run, "mallory").exists()
