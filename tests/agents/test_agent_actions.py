"""Every action kind through `perform`, with real Chromium against a real local web app."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.async_api import Page
from pydantic import ValidationError

from endstate.agents.actions import (
    Check,
    Click,
    Done,
    Download,
    Fill,
    GiveUp,
    Goto,
    Press,
    Select,
    Target,
    Uncheck,
    Upload,
    Wait,
)
from endstate.agents.perform import ActionResult, ActOptions, perform

from .browser_harness import Browser
from .form_site import LETTER, FormSite

FAST = ActOptions(timeout_ms=800)


def role(role: str, name: str | None = None, **extra: object) -> Target:
    return Target.model_validate({"role": role, "name": name, **extra})


def label(text: str, **extra: object) -> Target:
    return Target.model_validate({"label": text, **extra})


def text(value: str, **extra: object) -> Target:
    return Target.model_validate({"text": value, **extra})


def assert_ok(result: ActionResult) -> None:
    assert result.ok, result.message


def test_form_actions_reach_the_server(browser: Browser, site: FormSite, attachment: Path) -> None:
    async def go(page: Page) -> list[ActionResult]:
        results = [
            await perform(page, Fill(target=label("Patient name"), value="Dana Reyes")),
            await perform(page, Fill(target=label("Service date"), value="03/14/2026")),
            await perform(page, Select(target=label("Visit type"), option="Follow-up")),
            await perform(page, Select(target=role("button", "Note category"), option="Appeal")),
            await perform(page, Check(target=role("checkbox", "Urgent"))),
            await perform(page, Upload(target=label("Attachment"), path=str(attachment))),
            await perform(page, Click(target=role("button", "Submit request"))),
        ]
        results.append(
            ActionResult(True, await page.get_by_role("status").inner_text(timeout=2000))
        )
        return results

    results = browser.run(go, f"{site.url}/form")
    for result in results:
        assert_ok(result)
    assert results[3].message == "selected 'Appeal' in button 'Note category'"
    assert results[-1].message == "Confirmation REQ-0001"
    assert site.submissions == [
        {
            "patient": "Dana Reyes",
            "service_date": "03/14/2026",
            "visit_type": "fu",
            "category": "appeal",
            "urgent": "yes",
            "attachment_name": "clinical-notes.txt",
            "attachment_text": "Clinical notes for the referral\n",
        }
    ]


def test_uncheck_clears_a_checked_box(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> tuple[ActionResult, ActionResult, bool]:
        box = role("checkbox", "Urgent")
        checked = await perform(page, Check(target=box))
        unchecked = await perform(page, Uncheck(target=box))
        return checked, unchecked, await page.get_by_label("Urgent").is_checked()

    checked, unchecked, state = browser.run(go, f"{site.url}/form")
    assert_ok(checked)
    assert_ok(unchecked)
    assert state is False


def test_click_by_visible_text_and_nth(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> tuple[str, str]:
        assert_ok(await perform(page, Click(target=text("REF-2025-002"))))
        first = await page.locator("#picked").inner_text()
        assert_ok(await perform(page, Click(target=role("button", "Open", nth=1))))
        return first, await page.locator("#picked").inner_text()

    first, second = browser.run(go, f"{site.url}/form")
    assert first == "Opened REF-2025-002 row"
    assert second == "Opened REF-2025-002"


def test_ambiguous_target_is_refused_not_guessed(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> tuple[ActionResult, str]:
        result = await perform(page, Click(target=role("button", "Open")), FAST)
        return result, await page.locator("#picked").inner_text()

    result, picked = browser.run(go, f"{site.url}/form")
    assert not result.ok
    assert "ambiguous: 2 matches" in result.message
    assert "nth" in result.message
    assert picked == ""


def test_nth_out_of_range(browser: Browser, site: FormSite) -> None:
    result = browser.run(
        lambda page: perform(page, Click(target=role("button", "Open", nth=5)), FAST),
        f"{site.url}/form",
    )
    assert not result.ok
    assert "nth=5 but only 2 match(es)" in result.message


def test_missing_target_fails_fast_with_a_clear_message(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> tuple[ActionResult, float]:
        started = time.monotonic()
        result = await perform(page, Click(target=role("button", "Cancel order")), FAST)
        return result, time.monotonic() - started

    result, elapsed = browser.run(go, f"{site.url}/form")
    assert not result.ok
    assert result.message == "no button 'Cancel order' on the page (waited 0.8s)"
    assert elapsed < 2.5


def test_a_disabled_button_is_refused_at_once_not_waited_for(
    browser: Browser, site: FormSite
) -> None:
    async def go(page: Page) -> tuple[ActionResult, float]:
        await page.evaluate(
            "document.body.insertAdjacentHTML('beforeend', '<button disabled>Release hold</button>')"
        )
        started = time.monotonic()
        result = await perform(page, Click(target=role("button", "Release hold")))
        return result, time.monotonic() - started

    result, elapsed = browser.run(go, f"{site.url}/form")
    assert not result.ok
    assert result.message == "click button 'Release hold': it is disabled"
    assert elapsed < ActOptions().timeout_ms / 1000  # not the whole action timeout


def test_hidden_target_is_reported_as_hidden(browser: Browser, site: FormSite) -> None:
    result = browser.run(
        lambda page: perform(page, Click(target=text("Secret action")), FAST),
        f"{site.url}/form",
    )
    assert not result.ok
    assert "none visible" in result.message


def test_waits_for_an_element_that_appears_late(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> ActionResult:
        assert_ok(await perform(page, Click(target=role("button", "Load details"))))
        return await perform(page, Click(target=text("Details loaded")), ActOptions(3000))

    assert_ok(browser.run(go, f"{site.url}/form"))


def test_partial_names_match_only_when_unique_and_not_exact(
    browser: Browser, site: FormSite
) -> None:
    async def go(page: Page) -> tuple[ActionResult, ActionResult, str]:
        loose = await perform(page, Fill(target=label("patient"), value="A. Loose"), FAST)
        strict = await perform(page, Fill(target=label("patient", exact=True), value="x"), FAST)
        return loose, strict, await page.get_by_label("Patient name").input_value()

    loose, strict, value = browser.run(go, f"{site.url}/form")
    assert_ok(loose)
    assert not strict.ok
    assert value == "A. Loose"


def test_press_enter_submits_the_focused_form(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> tuple[ActionResult, str, str]:
        assert_ok(await perform(page, Fill(target=label("Search"), value="REF-2025-002")))
        result = await perform(page, Press(key="Enter", target=label("Search")))
        return result, page.url, await page.get_by_role("heading").inner_text()

    result, url, heading = browser.run(go, f"{site.url}/form")
    assert_ok(result)
    assert url.endswith("/search?q=REF-2025-002")
    assert heading == "Results for REF-2025-002"


def test_press_without_target_uses_the_keyboard(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> tuple[ActionResult, str]:
        await page.get_by_label("Patient name").focus()
        result = await perform(page, Press(key="X"))
        return result, await page.get_by_label("Patient name").input_value()

    result, value = browser.run(go, f"{site.url}/form")
    assert_ok(result)
    assert value == "X"


def test_download_records_name_and_saved_path(
    browser: Browser, site: FormSite, tmp_path: Path
) -> None:
    options = ActOptions(download_dir=tmp_path / "dl")
    action = Download(target=role("link", "Download referral letter"))

    async def go(page: Page) -> tuple[ActionResult, ActionResult]:
        return await perform(page, action, options), await perform(page, action, options)

    first, second = browser.run(go, f"{site.url}/form")
    assert_ok(first)
    assert first.details["suggested_filename"] == "referral-letter.txt"
    saved = Path(first.details["saved_path"])
    assert saved == tmp_path / "dl" / "referral-letter.txt"
    assert saved.read_text() == LETTER
    assert Path(second.details["saved_path"]).name == "referral-letter-1.txt"
    assert str(saved) in first.message


def test_download_of_a_non_download_fails(browser: Browser, site: FormSite) -> None:
    options = ActOptions(timeout_ms=800, download_timeout_ms=800)
    result = browser.run(
        lambda page: perform(page, Download(target=role("button", "Load details")), options),
        f"{site.url}/form",
    )
    assert not result.ok
    assert result.message.startswith("download button 'Load details': timed out")


def test_goto_resolves_relative_urls_and_reports_http_errors(
    browser: Browser, site: FormSite
) -> None:
    async def go(page: Page) -> tuple[ActionResult, str, ActionResult, ActionResult]:
        ok = await perform(page, Goto(url="/other"))
        heading = await page.get_by_role("heading").inner_text()
        missing = await perform(page, Goto(url="/no-such-page"))
        local = await perform(page, Goto(url="file:///etc/passwd"))
        return ok, heading, missing, local

    ok, heading, missing, local = browser.run(go, f"{site.url}/form")
    assert_ok(ok)
    assert ok.message == f"opened {site.url}/other"
    assert heading == "Other page"
    assert not missing.ok
    assert "HTTP 404" in missing.message
    assert not local.ok
    assert "only http(s)" in local.message


def test_wait_sleeps_and_is_bounded(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> tuple[ActionResult, float]:
        started = time.monotonic()
        result = await perform(page, Wait(seconds=0.3))
        return result, time.monotonic() - started

    result, elapsed = browser.run(go, f"{site.url}/form")
    assert_ok(result)
    assert elapsed >= 0.3
    with pytest.raises(ValidationError):
        Wait(seconds=60)
    with pytest.raises(ValidationError):
        Wait(seconds=0)


def test_terminal_actions_do_nothing_to_the_page(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> tuple[ActionResult, ActionResult, str]:
        done = await perform(page, Done(message="submitted"))
        gave_up = await perform(page, GiveUp(message="no coverage"))
        return done, gave_up, page.url

    done, gave_up, url = browser.run(go, f"{site.url}/form")
    assert (done.ok, done.message) == (True, "done: submitted")
    assert (gave_up.ok, gave_up.message) == (True, "give_up: no coverage")
    assert url == f"{site.url}/form"


def test_a_dropdown_of_plain_buttons_is_driven_like_a_list_box(
    browser: Browser, site: FormSite
) -> None:
    """No listbox or option roles (as on the benchmark's portals): open it, click the entry."""

    async def go(page: Page) -> tuple[ActionResult, str, ActionResult]:
        chosen = await perform(
            page, Select(target=role("button", "Appeal reason"), option="Clinical")
        )
        picked = await page.locator("#reason-picked").inner_text()
        missing = await perform(
            page, Select(target=role("button", "Appeal reason"), option="Billing"), FAST
        )
        return chosen, picked, missing

    chosen, picked, missing = browser.run(go, f"{site.url}/form")
    assert chosen.ok, chosen.message
    assert chosen.message == "selected 'Clinical' in button 'Appeal reason'"
    assert picked == "Reason: Clinical"
    assert not missing.ok and "no option 'Billing'" in missing.message


def test_unknown_options_are_listed(browser: Browser, site: FormSite) -> None:
    async def go(page: Page) -> tuple[ActionResult, ActionResult]:
        native = await perform(page, Select(target=label("Visit type"), option="Urgent care"))
        custom = await perform(
            page, Select(target=role("button", "Note category"), option="Billing"), FAST
        )
        return native, custom

    native, custom = browser.run(go, f"{site.url}/form")
    assert not native.ok
    assert "no option 'Urgent care'" in native.message
    assert "'Follow-up'" in native.message
    assert not custom.ok
    assert "'Prior authorization'" in custom.message


def test_uploads_outside_the_allowed_roots_are_refused(
    browser: Browser, site: FormSite, attachment: Path, tmp_path: Path
) -> None:
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    options = ActOptions(timeout_ms=800, upload_roots=(allowed,))

    async def go(page: Page) -> tuple[ActionResult, ActionResult]:
        outside = await perform(
            page, Upload(target=label("Attachment"), path=str(attachment)), options
        )
        missing = await perform(page, Upload(target=label("Attachment"), path="nope.txt"), FAST)
        return outside, missing

    outside, missing = browser.run(go, f"{site.url}/form")
    assert not outside.ok
    assert "refused" in outside.message
    assert not missing.ok
    assert "no such file 'nope.txt'" in missing.message


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"role": "button", "label": "Save"}, "exactly one of"),
        ({"name": "Save"}, "exactly one of"),
        ({"label": "Save", "name": "x"}, "only used together with 'role'"),
        ({"role": "btn", "name": "Save"}, "unknown ARIA role 'btn'"),
        ({"css": "#save"}, "Extra inputs are not permitted"),
    ],
)
def test_targets_are_validated(data: dict[str, str], problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        Target.model_validate(data)
