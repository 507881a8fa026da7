"""The UI action vocabulary shared by replay and llm agents, its executor and trajectory files.

Targets are named the way a person or a screen reader names them (ARIA role + accessible name,
label text, visible text), never by CSS: trajectories then survive markup changes, and an agent
can only do what real input through the rendered page can do.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import os
import re
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, get_args
from urllib.parse import urljoin, urlsplit

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from endstate.errors import EndstateError

TRAJECTORY_VERSION: Literal[1] = 1
MAX_WAIT_SECONDS = 10.0

# The roles Playwright's get_by_role accepts, read from its own signature so they never drift.
# If that ever stops being introspectable the set is empty and Playwright itself judges roles.
ARIA_ROLES: frozenset[str] = frozenset(
    get_args(inspect.signature(Page.get_by_role).parameters["role"].annotation)
)


class TrajectoryError(EndstateError):
    """A trajectory file cannot be read or does not match the action vocabulary."""


class Target(BaseModel):
    """One element, addressed by role + accessible name, by label, or by visible text.

    Matching prefers an exact (case-sensitive) name; when nothing matches exactly, a unique
    case-insensitive substring match is accepted unless `exact` is set. `nth` (0-based) picks
    one of several visible matches.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str | None = None
    name: str | None = None
    label: str | None = None
    text: str | None = None
    nth: int | None = Field(default=None, ge=0)
    exact: bool | None = None

    @field_validator("role")
    @classmethod
    def _known_role(cls, role: str | None) -> str | None:
        if role is not None and ARIA_ROLES and role not in ARIA_ROLES:
            raise ValueError(f"unknown ARIA role {role!r}")
        return role

    @model_validator(mode="after")
    def _one_address(self) -> Target:
        given = [k for k in ("role", "label", "text") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of 'role' (with optional 'name'), 'label' or 'text'")
        if self.name is not None and self.role is None:
            raise ValueError("'name' is only used together with 'role'")
        return self

    def describe(self) -> str:
        if self.role is not None:
            what = f"{self.role} {self.name!r}" if self.name is not None else self.role
        elif self.label is not None:
            what = f"field labelled {self.label!r}"
        else:
            what = f"text {self.text!r}"
        return what if self.nth is None else f"{what} (nth={self.nth})"


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Click(_Action):
    type: Literal["click"] = "click"
    target: Target


class Fill(_Action):
    type: Literal["fill"] = "fill"
    target: Target
    value: str


class Select(_Action):
    """Choose an option by its visible label, in a native select or a custom listbox."""

    type: Literal["select"] = "select"
    target: Target
    option: str


class Press(_Action):
    """Press a key (Playwright key names: Enter, Tab, Escape, ArrowDown, Control+A...)."""

    type: Literal["press"] = "press"
    key: str = Field(min_length=1)
    target: Target | None = None


class Check(_Action):
    type: Literal["check"] = "check"
    target: Target


class Uncheck(_Action):
    type: Literal["uncheck"] = "uncheck"
    target: Target


class Upload(_Action):
    """Attach files to a file input (or to whatever opens a file chooser when clicked)."""

    type: Literal["upload"] = "upload"
    target: Target
    path: str | list[str]

    @property
    def paths(self) -> list[str]:
        return [self.path] if isinstance(self.path, str) else list(self.path)


class Download(_Action):
    """Click something that starts a download; the file is saved and its path reported."""

    type: Literal["download"] = "download"
    target: Target


class Goto(_Action):
    """Open a URL; a relative URL resolves against the current page."""

    type: Literal["goto"] = "goto"
    url: str = Field(min_length=1)


class Wait(_Action):
    type: Literal["wait"] = "wait"
    seconds: float = Field(gt=0, le=MAX_WAIT_SECONDS)


class Done(_Action):
    type: Literal["done"] = "done"
    message: str


class GiveUp(_Action):
    type: Literal["give_up"] = "give_up"
    message: str


Action = Annotated[
    Click
    | Fill
    | Select
    | Press
    | Check
    | Uncheck
    | Upload
    | Download
    | Goto
    | Wait
    | Done
    | GiveUp,
    Field(discriminator="type"),
]
ACTION_ADAPTER: TypeAdapter[Action] = TypeAdapter(Action)
_MODELS = (Click, Fill, Select, Press, Check, Uncheck, Upload, Download, Goto, Wait, Done, GiveUp)
ACTION_TYPES: tuple[str, ...] = tuple(m.model_fields["type"].default for m in _MODELS)
TERMINAL = (Done, GiveUp)


def action_schema() -> dict[str, Any]:
    """JSON Schema of one action, for documentation and for agents that want it."""
    return ACTION_ADAPTER.json_schema()


def dump_action(action: Action) -> dict[str, Any]:
    return action.model_dump(exclude_none=True, exclude_defaults=False)


# ---------------------------------------------------------------------------------------------
# Validation errors as one line


def describe_validation_error(err: ValidationError) -> str:
    """The first error as `field: problem`, with a count of the rest: short enough for one line."""
    errors = err.errors(include_url=False)
    first = errors[0]
    where, kind = _field_path(first["loc"])
    msg = _error_message(first)
    text = f"{where}: {msg}" if where else msg
    if kind:
        text += f" ({kind} action)"
    if len(errors) > 1:
        text += f" (+{len(errors) - 1} more)"
    return text


def _field_path(loc: tuple[int | str, ...]) -> tuple[str, str | None]:
    """Render a pydantic location as `actions[2].target.role`, dropping union tag names."""
    out = ""
    kind: str | None = None
    prev_index = False
    for i, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
            prev_index = True
            continue
        is_tag = part in ACTION_TYPES and (prev_index or (i == 0 and len(loc) > 1))
        if is_tag and kind is None:
            kind = part
        elif part not in {"str", "list[str]"}:
            out += f".{part}" if out else part
        prev_index = False
    return out, kind


def _error_message(error: Any) -> str:
    kind = error["type"]
    if kind == "union_tag_not_found":
        return f"missing 'type' (one of: {', '.join(ACTION_TYPES)})"
    if kind == "union_tag_invalid":
        tag = error.get("ctx", {}).get("tag")
        return f"unknown action type {tag!r} (one of: {', '.join(ACTION_TYPES)})"
    if kind == "extra_forbidden":
        return "unknown field"
    msg = str(error["msg"])
    return msg.removeprefix("Value error, ")


# ---------------------------------------------------------------------------------------------
# Trajectory files


class Trajectory(BaseModel):
    """A recorded sequence of actions: `{"version": 1, "actions": [...]}`."""

    model_config = ConfigDict(extra="forbid")

    version: Literal[1] = TRAJECTORY_VERSION
    description: str | None = None
    actions: list[Action]


def parse_trajectory(text: str, source: str = "<trajectory>") -> Trajectory:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TrajectoryError(
            f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    try:
        return Trajectory.model_validate(data)
    except ValidationError as exc:
        raise TrajectoryError(f"{source}: {describe_validation_error(exc)}") from None


def load_trajectory(path: Path | str) -> Trajectory:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TrajectoryError(f"{path}: trajectory file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise TrajectoryError(f"{path}: cannot read trajectory: {exc}") from None
    return parse_trajectory(text, str(path))


def save_trajectory(
    actions: Trajectory | Sequence[Action], path: Path | str, description: str | None = None
) -> Path:
    """Write a trajectory file atomically (temp file + rename) so a crash leaves no half file."""
    path = Path(path)
    trajectory = (
        actions
        if isinstance(actions, Trajectory)
        else Trajectory(actions=list(actions), description=description)
    )
    data = trajectory.model_dump(mode="json", exclude_none=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


# ---------------------------------------------------------------------------------------------
# The executor


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
        return await _follow_new_tab(page, popups, result, options)
    except ActionFailed as exc:
        return ActionResult(False, str(exc))
    except PlaywrightTimeoutError as exc:
        return ActionResult(False, f"{_verb(action)}: timed out ({_first_line(exc)})")
    except PlaywrightError as exc:
        return ActionResult(False, f"{_verb(action)}: {_first_line(exc)}")
    except OSError as exc:
        return ActionResult(False, f"{_verb(action)}: {exc}")
    finally:
        page.remove_listener("popup", opened)


def _verb(action: Action) -> str:
    target = getattr(action, "target", None)
    return f"{action.type} {target.describe()}" if isinstance(target, Target) else action.type


def _first_line(exc: BaseException) -> str:
    text = getattr(exc, "message", None) or str(exc)
    line = str(text).strip().splitlines()[0] if str(text).strip() else type(exc).__name__
    return re.sub(r"^\w+\.\w+: ", "", line)


async def _dispatch(page: Page, action: Action, opts: ActOptions) -> ActionResult:
    t = opts.timeout_ms
    match action:
        case Click(target=target):
            loc = await resolve(page, target, t)
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


async def _follow_new_tab(
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
        choice = await resolve(scope, Target(role="option", name=option), t)
    except ActionFailed as exc:
        shown = [" ".join(x.split()) for x in await scope.get_by_role("option").all_inner_texts()]
        raise ActionFailed(f"{exc}; visible options: {_preview(shown) or 'none'}") from None
    chosen = " ".join((await choice.inner_text(timeout=t)).split())
    await choice.click(timeout=t)
    await _settle(page, opts)
    return ActionResult(True, f"selected {chosen!r} in {target.describe()}")


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
    directory = opts.download_dir or Path(tempfile.mkdtemp(prefix="endstate-downloads-"))
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
