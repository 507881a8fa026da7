"""The executor of the UI action vocabulary: one action, real Playwright input, a result.

Failures come back as results the agent reads (ok=False and why), never as exceptions: a
missing element, an ambiguous name or a slow page is part of the work, not a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from endstate.agents.actions import (
    Action,
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
from endstate.scratch import scratch


@dataclass(frozen=True)
class ActOptions:
    """How actions run. Timeouts are short on purpose: a missing element should fail fast."""

    timeout_ms: float = 3000
    navigation_timeout_ms: float = 15000
    download_timeout_ms: float = 15000
    download_dir: Path | None = None
    files_dir: Path | None = None
    upload_roots: tuple[Path, ...] | None = None


@dataclass
class ActionResult:
    ok: bool
    message: str
    details: dict[str, Any] = field(default_factory=dict)


class ActionFailed(Exception):
    """An action cannot be done as asked; its message is shown to the agent as is."""


async def perform(page: Page, action: Action, options: ActOptions | None = None) -> ActionResult:
    """Do one action with real Playwright input. Failures come back as ok=False, never raised."""
    options = options or ActOptions()
    popups: list[Page] = []

    def opened(popup: Page) -> None:
        popups.append(popup)

    page.on("popup", opened)
    try:
        result = await _dispatch(page, action, options)
        if isinstance(action, Click | Press) and not popups:
            # A new tab's event can trail the click; a link that targets one is waited for.
            expected = bool(result.details.pop(OPENS_TAB, False))
            deadline = time.monotonic() + (
                options.navigation_timeout_ms / 1000 if expected else 0.05
            )
            while not popups and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        return await follow_new_tab(page, popups, result, options)
    except ActionFailed as exc:
        return ActionResult(False, str(exc))
    except PlaywrightTimeoutError as exc:
        return ActionResult(False, f"{_verb(action)}: timed out ({first_line(exc)})")
    except PlaywrightError as exc:
        return ActionResult(False, f"{_verb(action)}: {first_line(exc)}")
    except OSError as exc:
        return ActionResult(False, f"{_verb(action)}: {exc}")
    finally:
        page.remove_listener("popup", opened)


def _verb(action: Action) -> str:
    target = getattr(action, "target", None)
    return f"{action.type} {target.describe()}" if isinstance(target, Target) else action.type


def first_line(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc)
    line = str(text).strip().splitlines()[0] if str(text).strip() else type(exc).__name__
    return re.sub(r"^\w+\.\w+: ", "", line)


async def _dispatch(page: Page, action: Action, opts: ActOptions) -> ActionResult:
    t = opts.timeout_ms
    match action:
        case Click(target=target):
            loc = await resolve(page, target, t)
            if await loc.is_disabled():  # says so now: waiting would only run out the clock
                raise ActionFailed(f"click {target.describe()}: it is disabled")
            opens_tab = await _targets_new_tab(loc)
            await loc.click(timeout=t)
            await _settle(page, opts)
            return ActionResult(True, f"clicked {target.describe()}", {OPENS_TAB: opens_tab})
        case Fill(target=target, value=value):
            loc = await resolve(page, target, t)
            await loc.fill(value, timeout=t)
            return ActionResult(True, f"filled {target.describe()}")
        case Select(target=target, option=option):
            return await _select(page, target, option, opts)
        case Press(key=key, target=target):
            if target is None:
                await page.keyboard.press(key)
            else:
                loc = await resolve(page, target, t)
                await loc.press(key, timeout=t)
            await _settle(page, opts)
            where = f" in {target.describe()}" if target else ""
            return ActionResult(True, f"pressed {key}{where}")
        case Check(target=target):
            loc = await resolve(page, target, t)
            await loc.check(timeout=t)
            return ActionResult(True, f"checked {target.describe()}")
        case Uncheck(target=target):
            loc = await resolve(page, target, t)
            await loc.uncheck(timeout=t)
            return ActionResult(True, f"unchecked {target.describe()}")
        case Upload():
            return await _upload(page, action, opts)
        case Download(target=target):
            return await _download(page, target, opts)
        case Goto(url=url):
            return await _goto(page, url, opts)
        case Wait(seconds=seconds):
            await asyncio.sleep(seconds)
            return ActionResult(True, f"waited {seconds:g}s")
        case Done(message=message) | GiveUp(message=message):
            return ActionResult(True, f"{action.type}: {message}")
    raise ActionFailed(f"unsupported action {action.type!r}")  # pragma: no cover


OPENS_TAB = "opens_tab"
_TARGETS_NEW_TAB = """e => {
  const link = e.closest('a[target], area[target]');
  return !!link && !['', '_self', '_top', '_parent'].includes(link.target.toLowerCase());
}"""


async def _targets_new_tab(loc: Locator) -> bool:
    """Whether clicking this element follows a link into another tab (target=_blank...)."""
    try:
        return bool(await loc.evaluate(_TARGETS_NEW_TAB))
    except PlaywrightError:
        return False


async def follow_new_tab(
    page: Page, opened: list[Page], result: ActionResult, opts: ActOptions
) -> ActionResult:
    """A link that opened a new tab is followed in this one, and the new tab closed.

    Agents work in one page; portals like to open another. Following the link here keeps the
    agent's view and the harness's page the same, and says so in the result.
    """
    if not opened:
        return result
    url = ""
    for tab in opened:
        with contextlib.suppress(PlaywrightError):
            await tab.wait_for_load_state("domcontentloaded", timeout=opts.navigation_timeout_ms)
        url = url or tab.url
        with contextlib.suppress(PlaywrightError):
            await tab.close()
    if not url or url == "about:blank":
        return result
    await page.goto(url, wait_until="load", timeout=opts.navigation_timeout_ms)
    return ActionResult(
        result.ok,
        f"{result.message} (it opened a new tab; followed here: {page.url})",
        result.details,
    )


async def _settle(page: Page, opts: ActOptions) -> None:
    """Let a navigation the input started finish loading before the next look at the page."""
    with contextlib.suppress(PlaywrightError):
        await page.wait_for_load_state("load", timeout=opts.navigation_timeout_ms)


# ---------------------------------------------------------------------------------------------
# Finding elements


Root = Page | Locator


def _locator(root: Root, target: Target, exact: bool, hidden: bool) -> Locator:
    if target.role is not None:
        role: Any = target.role
        if target.name is None:
            return root.get_by_role(role, include_hidden=hidden)
        return root.get_by_role(role, name=target.name, exact=exact, include_hidden=hidden)
    if target.label is not None:
        return root.get_by_label(target.label, exact=exact)
    assert target.text is not None
    return root.get_by_text(target.text, exact=exact)


async def resolve(
    root: Root, target: Target, timeout_ms: float, *, visible: bool = True
) -> Locator:
    """One element for a target, or ActionFailed saying why not (missing, hidden, ambiguous).

    Waits up to `timeout_ms` for a first match so pages that are still loading are not
    reported as missing; ambiguity is never resolved by guessing.
    """
    exact_all = _locator(root, target, exact=True, hidden=not visible)
    loose_all = exact_all if target.exact else _locator(root, target, False, not visible)
    exact = exact_all.filter(visible=True) if visible else exact_all
    loose = loose_all.filter(visible=True) if visible else loose_all
    try:
        await loose.first.wait_for(state="visible" if visible else "attached", timeout=timeout_ms)
    except PlaywrightTimeoutError:
        hidden = await loose_all.count()
        if hidden:
            raise ActionFailed(
                f"{target.describe()}: {hidden} match(es) on the page, none visible"
            ) from None
        raise ActionFailed(
            f"no {target.describe()} on the page (waited {timeout_ms / 1000:g}s)"
        ) from None
    for loc in (exact, loose):
        count = await loc.count()
        if count == 0:
            continue
        if target.nth is not None:
            if target.nth >= count:
                raise ActionFailed(
                    f"{target.describe()}: nth={target.nth} but only {count} match(es)"
                )
            return loc.nth(target.nth)
        if count > 1:
            raise ActionFailed(
                f"{target.describe()} is ambiguous: {count} matches; "
                "add 'nth' (0-based) or use a more specific name"
            )
        return loc
    raise ActionFailed(f"no {target.describe()} on the page")


def _pick_label(labels: list[str], wanted: str) -> str:
    """The option label meant by `wanted`: exact, else case-insensitive, else unique substring."""
    clean = [" ".join(label.split()) for label in labels]
    for candidates in (
        [c for c in clean if c == wanted],
        [c for c in clean if c.casefold() == wanted.casefold()],
        [c for c in clean if wanted.casefold() in c.casefold()],
    ):
        if len(candidates) == 1:
            return candidates[0]
        if len(candidates) > 1:
            raise ActionFailed(f"option {wanted!r} is ambiguous: {_preview(candidates)}")
    raise ActionFailed(f"no option {wanted!r}; options are: {_preview(clean)}")


def _preview(items: list[str], limit: int = 12) -> str:
    shown = ", ".join(repr(i) for i in items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


async def _select(page: Page, target: Target, option: str, opts: ActOptions) -> ActionResult:
    t = opts.timeout_ms
    loc = await resolve(page, target, t)
    tag = await loc.evaluate("el => el.tagName.toLowerCase()", timeout=t)
    if tag == "select":
        labels: list[str] = await loc.evaluate(
            "el => Array.from(el.options).map(o => o.label || o.textContent || '')", timeout=t
        )
        label = _pick_label(labels, option)
        await loc.select_option(label=label, timeout=t)
        await _settle(page, opts)
        return ActionResult(True, f"selected {label!r} in {target.describe()}")
    # A custom listbox: open it like a person would, then click the option by its label.
    role = await loc.get_attribute("role", timeout=t)
    scope: Root = page
    if role == "listbox":
        scope = loc
    else:
        controls = await loc.get_attribute("aria-controls", timeout=t)
        await loc.click(timeout=t)
        if controls:
            scope = page.locator(f"[id={json.dumps(controls)}]")
    try:
        choice = await _entry(page, scope, loc, option, t)
    except ActionFailed as exc:
        shown = [" ".join(x.split()) for x in await scope.get_by_role("option").all_inner_texts()]
        raise ActionFailed(f"{exc}; visible options: {_preview(shown) or 'none'}") from None
    chosen = " ".join((await choice.inner_text(timeout=t)).split())
    await choice.click(timeout=t)
    await _settle(page, opts)
    return ActionResult(True, f"selected {chosen!r} in {target.describe()}")


async def _entry(page: Page, scope: Root, trigger: Locator, option: str, t: float) -> Locator:
    """The entry to click in an opened list: an option by its name; in a list without option
    roles (a button that opens a column of buttons or menu items), the one named exactly so."""
    if scope is page:
        plain = page.get_by_role("menuitem", name=option, exact=True).or_(
            page.get_by_role("button", name=option, exact=True)
        )
        shown = page.get_by_role("option").or_(plain).filter(visible=True)
        with contextlib.suppress(PlaywrightTimeoutError):
            await shown.first.wait_for(state="visible", timeout=t)
        if not await page.get_by_role("option").filter(visible=True).count():
            own = await trigger.element_handle(timeout=t)
            found = [
                e
                for e in await plain.filter(visible=True).all()
                if not await e.evaluate("(el, trigger) => el === trigger", own)
            ]
            if len(found) == 1:
                return found[0]
            if found:
                raise ActionFailed(f"{len(found)} entries named {option!r}: which one is unclear")
            raise ActionFailed(f"no option {option!r} on the page (waited {t / 1000:g}s)")
    return await resolve(scope, Target(role="option", name=option), t)


def _upload_path(raw: str, opts: ActOptions) -> Path:
    path = Path(raw).expanduser()
    if not path.is_absolute() and opts.files_dir is not None:
        path = opts.files_dir / path
    path = path.resolve()
    if opts.upload_roots is not None and not any(
        path.is_relative_to(root.resolve()) for root in opts.upload_roots
    ):
        allowed = ", ".join(str(r) for r in opts.upload_roots) or "nowhere"
        raise ActionFailed(f"upload {raw!r} refused: files may only come from {allowed}")
    if not path.is_file():
        raise ActionFailed(f"upload: no such file {raw!r}")
    return path


async def _upload(page: Page, action: Upload, opts: ActOptions) -> ActionResult:
    t = opts.timeout_ms
    files = [_upload_path(p, opts) for p in action.paths]
    # File inputs are often visually hidden behind a styled label, so hidden ones count here.
    loc = await resolve(page, action.target, t, visible=False)
    kind = await loc.evaluate(
        "el => el.tagName.toLowerCase() === 'input' ? el.type : ''", timeout=t
    )
    if kind == "file":
        await loc.set_input_files(files, timeout=t)
    else:
        async with page.expect_file_chooser(timeout=t) as chooser_info:
            await loc.click(timeout=t)
        chooser = await chooser_info.value
        await chooser.set_files(files, timeout=t)
    names = ", ".join(f.name for f in files)
    return ActionResult(
        True,
        f"attached {names} to {action.target.describe()}",
        {"files": [str(f) for f in files]},
    )


def _unique_path(directory: Path, name: str) -> Path:
    base = Path(name).name or "download"
    path = directory / base
    stem, suffix = Path(base).stem, Path(base).suffix
    n = 1
    while path.exists():
        path = directory / f"{stem}-{n}{suffix}"
        n += 1
    return path


async def _download(page: Page, target: Target, opts: ActOptions) -> ActionResult:
    t = opts.timeout_ms
    loc = await resolve(page, target, t)
    async with page.expect_download(timeout=opts.download_timeout_ms) as info:
        await loc.click(timeout=t)
    download = await info.value
    directory = opts.download_dir or scratch("endstate-downloads-")
    directory.mkdir(parents=True, exist_ok=True)
    saved = _unique_path(directory, download.suggested_filename)
    await download.save_as(saved)
    return ActionResult(
        True,
        f"downloaded {download.suggested_filename!r}, saved at {saved}",
        {"suggested_filename": download.suggested_filename, "saved_path": str(saved)},
    )


async def _goto(page: Page, url: str, opts: ActOptions) -> ActionResult:
    absolute = urljoin(page.url, url) if page.url and page.url != "about:blank" else url
    if urlsplit(absolute).scheme not in {"http", "https"}:
        raise ActionFailed(f"goto {url!r}: only http(s) URLs can be opened")
    response = await page.goto(absolute, timeout=opts.navigation_timeout_ms)
    status = response.status if response is not None else None
    if status is not None and status >= 400:
        return ActionResult(False, f"goto {absolute}: HTTP {status}", {"status": status})
    return ActionResult(True, f"opened {absolute}", {"status": status})
