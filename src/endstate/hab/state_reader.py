"""Reading a HealthAdminBench episode's end state the way the benchmark's own harness does.

The portals keep all state in the browser's localStorage, so the benchmark's harness reads it
from the page at the end of an episode and assembles the document its checks query
(`EpicEnvironment.get_final_state` in the harness's `harness/environment.py`, reading through
`_extract_portal_state_from_local_storage`). This module does the same in two steps:

1. `READ_SCRIPT`, evaluated in a page on the portals' origin with
   `read_arguments(task_id, run_id)`, returns the *snapshot*: the same
   `{entries, legacyEmr, legacyFax}` the harness's script returns, plus `url` (the page read;
   unused below). `snapshot_from_storage` builds it from a localStorage dump, without a browser.
2. `assemble_state(snapshot, task_id, run_id, ...)` builds the document, key for key and in
   the harness's order. It is pure: no clock, no randomness, no page.
   `read_state_document` does both through a Playwright page.

| read from                              | becomes                                               |
|----------------------------------------|-------------------------------------------------------|
| `portals_state:<task>:<run>:<tab>`.emr | `full_state`                                          |
| same, `.emr.agentActions`              | `signals`, `actions.{visited_pages,viewed_documents}` |
| same, `.fax` (if non-empty)            | `full_state.faxPortal`                                |
| same, `.payerA`                        | `payer_a_state`, also as `aetna_state`                |
| same, `.payerB`                        | `payer_b_state`, also as `anthem_state`               |
| `epic_<task>_<run>` (legacy)           | `full_state`, if no entry has an `emr`                |
| `fax_portal_<task>_<run>` (legacy)     | `full_state.faxPortal`, if none has a `fax`           |
| the caller: task id, run id            | `task_id`, `run_id`                                   |
| the caller: agent's action strings     | `actions.history`, `actions_history`                  |
| the caller: did the episode end        | `episode_completed`                                   |
| constants                              | `success` (true), `environment` ("emr")               |

Per slice, among several tabs' entries the one with the greatest `updatedAt` (compared as
strings) wins, a later entry in localStorage's key order winning a tie; entries whose slice is
empty or not an object are passed over, and a value that is not JSON is skipped whole. All of
it is written by page script, so the agent can write all of it.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from endstate.errors import EndstateError

if TYPE_CHECKING:
    from playwright.async_api import Page, Route

__all__ = [
    "READ_SCRIPT",
    "SLICES",
    "HabStateError",
    "assemble_state",
    "parse_js_json",
    "read_arguments",
    "read_state_document",
    "select_slices",
    "snapshot_from_storage",
    "transfer_depth",
]

SLICES: tuple[str, ...] = ("emr", "payerA", "payerB", "fax")
READ_PATH = "/__endstate/state-read"  # answered with a blank page by the reader, never served
BLANK_PAGE = "<!doctype html><title>endstate state read</title>"

READ_SCRIPT = """
({ taskId, runId }) => {
  const prefix = `portals_state:${taskId}:${runId}:`;
  const FAILED = {};
  const parse = (text, fallback) => {
    try { return JSON.parse(text); } catch (_) { return fallback; }
  };
  const slice = (doc, name) => {
    const value = doc == null ? undefined : doc[name];
    return value == null ? {} : value;
  };
  const entries = [];
  for (let index = 0; index < localStorage.length; index += 1) {
    const key = localStorage.key(index);
    if (!key || !key.startsWith(prefix)) continue;
    const text = localStorage.getItem(key);
    if (!text) continue;
    const doc = parse(text, FAILED);
    if (doc === FAILED) continue;
    const stamp = doc == null ? undefined : doc.updatedAt;
    entries.push({
      key,
      updatedAt: typeof stamp === 'string' ? stamp : '',
      emr: slice(doc, 'emr'),
      payerA: slice(doc, 'payerA'),
      payerB: slice(doc, 'payerB'),
      fax: slice(doc, 'fax'),
    });
  }
  const legacy = (key) => parse(localStorage.getItem(key) || 'null', null);
  return {
    entries,
    legacyEmr: legacy(`epic_${taskId}_${runId}`),
    legacyFax: legacy(`fax_portal_${taskId}_${runId}`),
    url: location.href,
  };
}
"""
"""Mirrors the script `_extract_portal_state_from_local_storage` evaluates: each
`portals_state:<task>:<run>:` entry in localStorage index order (empty values and values that
are not JSON skipped), its string `updatedAt` (else "") and its four slices (null or missing
→ {}), and the two legacy keys parsed (missing or not JSON → null). It throws where the page
has no localStorage (about:blank, opaque origins) or the result nests deeper than
`TRANSFER_DEPTH_LIMIT`; the harness then uses empty slices — pass `None` to `assemble_state`.
"""

# (document key, agentActions keys, whether the value is reduced to a bool), in the harness's order
SIGNALS: tuple[tuple[str, tuple[str, ...], bool], ...] = (
    ("read_clinical_note", ("readClinicalNote",), True),
    ("viewed_auth_letter", ("viewedAuthLetter",), True),
    ("downloaded_auth_letter", ("downloadedAuthLetter",), True),
    ("downloaded_auth_letter_filename", ("downloadedAuthLetterFilename",), False),
    ("downloaded_clinical_note", ("downloadedClinicalNote",), True),
    ("downloaded_clinical_note_filename", ("downloadedClinicalNoteFilename",), False),
    ("clicked_go_to_portal", ("clickedGoToPortal",), True),
    ("clicked_coverages_tab", ("clickedCoveragesTab",), True),
    ("clicked_diagnoses_tab", ("clickedDiagnosesTab",), True),
    ("clicked_services_tab", ("clickedServicesTab",), True),
    ("clicked_referral_tab", ("clickedReferralTab",), True),
    ("submitted", ("submitted", "submittedAppeal"), True),
)

_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_MAX_ARRAY_INDEX = 2**32 - 2
_JS_INTEGER_DIGITS_BELOW = 1e21  # JSON.stringify writes integral numbers below this as digits
_NOT_JSON = object()  # what the page's JSON.parse would have thrown on
# The deepest result (see `transfer_depth`) Chromium lets page.evaluate return; measured on
# Chromium 156 with Playwright 1.65, and checked there by tests/hab/test_hab_state.py.
TRANSFER_DEPTH_LIMIT = 298


class HabStateError(EndstateError, ValueError):
    """Input the harness itself would crash on (or that cannot be mirrored), named by key."""


def read_arguments(task_id: str, run_id: str) -> dict[str, str]:
    """The argument `READ_SCRIPT` is evaluated with (the task's `config.task_id`, the run id)."""
    return {"taskId": task_id, "runId": run_id}


def parse_js_json(text: str) -> Any:
    """`JSON.parse(text)` as Python receives it back from Playwright; ValueError when not JSON.

    Matches the browser where Python's json differs: NaN/Infinity tokens are refused; numbers
    become IEEE doubles (integral ones below 1e21 arrive as int, -0 as -0.0, overflow as inf);
    an object lists its array-index keys first, ascending, as JavaScript objects do; and a
    `__proto__` key is dropped, as Playwright's transfer drops it.
    """
    return json.loads(
        text,
        parse_int=_js_number,
        parse_float=_js_number,
        parse_constant=_refuse_constant,
        object_pairs_hook=_js_object,
    )


def _js_number(token: str) -> int | float:
    value = float(token)
    if math.isinf(value) or math.isnan(value):
        return value
    if value == 0:
        return -0.0 if math.copysign(1.0, value) < 0 else 0
    if value.is_integer() and abs(value) < _JS_INTEGER_DIGITS_BELOW:
        # JS writes the shortest digits that round-trip, then zeros: 2**64 arrives as
        # 18446744073709552000, not 18446744073709551616. Python's repr is that same shortest.
        return int(Decimal(repr(value)))
    return value


def _refuse_constant(token: str) -> Any:
    raise ValueError(f"{token} is not JSON")


def _js_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    merged = dict(pairs)  # a repeated key keeps its first place and its last value, as in JS
    merged.pop("__proto__", None)
    indexes = sorted(
        (k for k in merged if _ARRAY_INDEX.fullmatch(k) and int(k) <= _MAX_ARRAY_INDEX), key=int
    )
    if not indexes:
        return merged
    ordered = {k: merged[k] for k in indexes}
    ordered.update((k, v) for k, v in merged.items() if k not in ordered)
    return ordered


def snapshot_from_storage(
    items: Iterable[tuple[str, str | None]], task_id: str, run_id: str, url: str | None = None
) -> dict[str, Any] | None:
    """What `READ_SCRIPT` returns on a page whose localStorage holds `items`, in that order;
    None where the page could not return it (nested deeper than `TRANSFER_DEPTH_LIMIT`).

    The order is the page's own key order (`localStorage.key(i)`; Playwright's
    `storage_state()` lists the same); it decides ties. In Chromium it is a hash order, neither
    insertion nor alphabetical order. A value too deep for Python's parser (about 1000 levels)
    is a HabStateError: whether the page would have thrown on it as not JSON, making it skipped,
    or parsed it, making the whole read fail, is not decided here.
    """
    prefix = f"portals_state:{task_id}:{run_id}:"
    stored: dict[str, str | None] = {}
    entries: list[dict[str, Any]] = []
    for key, text in items:
        stored[key] = text
        if not key or not key.startswith(prefix) or not text:
            continue
        doc = _parse_stored(key, text)
        if doc is _NOT_JSON:
            continue
        stamp = doc.get("updatedAt") if isinstance(doc, dict) else None
        entry: dict[str, Any] = {"key": key, "updatedAt": stamp if isinstance(stamp, str) else ""}
        for name in SLICES:
            value = doc.get(name) if isinstance(doc, dict) else None
            entry[name] = {} if value is None else value
        entries.append(entry)
    legacy = {}
    for name, key in (
        ("legacyEmr", f"epic_{task_id}_{run_id}"),
        ("legacyFax", f"fax_portal_{task_id}_{run_id}"),
    ):
        value = _parse_stored(key, stored.get(key) or "null")
        legacy[name] = None if value is _NOT_JSON else value
    snapshot = {"entries": entries, **legacy, "url": url}
    return snapshot if transfer_depth(snapshot) <= TRANSFER_DEPTH_LIMIT else None


def transfer_depth(value: object) -> int:
    """How deep `value` nests once Playwright has serialised it for the DevTools protocol.

    An object becomes `{o: [{k, v}]}` (three levels a member), an array `{a: [...]}` (two), and
    null, -0 and the infinities `{v: ...}` (one): Chromium refuses a result deeper than
    `TRANSFER_DEPTH_LIMIT` ("Object reference chain is too long").
    """
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, level + (3 if item else 1))
            stack.extend((child, level + 3) for child in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, level + 1)
            stack.extend((child, level + 2) for child in item)
        elif item is None or (isinstance(item, float) and _boxed(item)):
            deepest = max(deepest, level + 1)
        else:
            deepest = max(deepest, level)
    return deepest


def _boxed(number: float) -> bool:
    """Numbers Playwright sends as `{v: "..."}` rather than as JSON numbers."""
    return not math.isfinite(number) or (number == 0 and math.copysign(1.0, number) < 0)


def _parse_stored(key: str, text: str) -> Any:
    """The parsed value, or `_NOT_JSON` where `JSON.parse` would throw."""
    try:
        return parse_js_json(text)
    except RecursionError:
        raise HabStateError(f"{key}: nested too deeply to mirror the page's reading") from None
    except ValueError:
        return _NOT_JSON


def select_slices(raw: object) -> dict[str, Any]:
    """Pick one value per slice from a snapshot, as the harness's Python does after its script.

    Per slice: among entries whose slice is a non-empty object, the greatest `updatedAt`
    (string comparison), a later entry winning a tie; then the legacy EMR / fax value where
    that slice is still empty. A snapshot that is not a dict (a failed read) gives empty slices.
    Values are returned as they are (not copied).
    """
    snapshot: dict[str, Any] = raw if isinstance(raw, dict) else {}
    entries = snapshot.get("entries", [])
    if not isinstance(entries, list):
        entries = []
    chosen: dict[str, Any] = {}
    for name in SLICES:
        best: Any = {}
        best_stamp = ""
        for entry in entries:
            if not isinstance(entry, dict):
                continue
            candidate = entry.get(name)
            if not isinstance(candidate, dict) or not candidate:
                continue
            stamp = entry.get("updatedAt") or ""
            if not isinstance(stamp, str):
                raise HabStateError(
                    f"{entry.get('key', '(entry without a key)')}: updatedAt is "
                    f"{type(stamp).__name__}, not a string (the harness fails comparing it)"
                )
            if stamp >= best_stamp:
                best, best_stamp = candidate, stamp
        chosen[name] = best
    for name, legacy_key in (("emr", "legacyEmr"), ("fax", "legacyFax")):
        legacy = snapshot.get(legacy_key)
        if not chosen[name] and isinstance(legacy, dict):
            chosen[name] = legacy
    return chosen


def assemble_state(
    raw: object,
    task_id: str,
    run_id: str,
    *,
    action_history: Sequence[str] = (),
    episode_completed: bool = False,
) -> dict[str, Any]:
    """The harness's end-state document from a snapshot (`READ_SCRIPT`'s result; None when
    the read failed), as `EpicEnvironment.get_final_state` builds it.

    `task_id` is the task's `config.task_id` (e.g. `easy_1`, not `emr-easy-1`); `run_id` the
    episode's run id (the harness draws 8 hex digits from uuid4 at reset). `action_history`
    (the agent's action strings) and `episode_completed` (the agent said done(), or the step
    or time limit ended the episode) are the harness's own, not the page's. There is no
    initial snapshot: the payer `differences` are the portal's own lists, not a diff. As in
    the harness, `aetna_state` *is* `payer_a_state` (one object, likewise `anthem_state`);
    nothing in the result is shared with `raw`.
    """
    try:
        snapshot = copy.deepcopy(raw)
    except RecursionError:
        raise HabStateError("snapshot: nested too deeply to read") from None
    slices = select_slices(snapshot)
    full_state: dict[str, Any] = slices["emr"]
    fax = slices["fax"]
    if isinstance(fax, dict) and fax:
        full_state["faxPortal"] = fax
    actions = full_state.get("agentActions")
    if not isinstance(actions, dict):
        actions = {}
    visited = actions.get("visitedPages")
    viewed = actions.get("viewedDocuments")
    state: dict[str, Any] = {
        "success": True,
        "task_id": task_id,
        "run_id": run_id,
        "environment": "emr",
        "signals": _signals(full_state),
        "episode_completed": episode_completed,
        "actions": {
            "history": list(action_history),
            "visited_pages": visited if isinstance(visited, list) else [],
            "viewed_documents": viewed if isinstance(viewed, list) else [],
        },
        "actions_history": list(action_history),
        "full_state": full_state,
    }
    payer_a = _payer_state(slices["payerA"])
    payer_b = _payer_state(slices["payerB"])
    state["payer_a_state"] = payer_a
    state["payer_b_state"] = payer_b
    state["aetna_state"] = payer_a
    state["anthem_state"] = payer_b
    return state


def _signals(full_state: dict[str, Any]) -> dict[str, Any]:
    actions = full_state.get("agentActions", {})
    if not isinstance(actions, dict):
        actions = {}
    signals: dict[str, Any] = {}
    for name, sources, as_bool in SIGNALS:
        if as_bool:
            signals[name] = any(bool(actions.get(source)) for source in sources)
        else:
            signals[name] = actions.get(sources[0])
    return signals


def _payer_state(raw_slice: object) -> dict[str, Any]:
    """A payer slice as the harness's `_build_payer_state` reshapes it."""
    state: dict[str, Any] = raw_slice if isinstance(raw_slice, dict) else {}
    submissions = _list_or_empty(state.get("submissions"))
    appeal_actions = state.get("appealActions")
    if not isinstance(appeal_actions, dict):
        fallback = state.get("agentActions")
        appeal_actions = fallback if isinstance(fallback, dict) else {}
    added: dict[str, Any] = {"priorAuth": submissions[-1]} if submissions else {}
    return {
        "config": state.get("initialState", {}),
        "full_state": {"appealActions": appeal_actions, "agentActions": appeal_actions},
        "agentActions": appeal_actions,
        "initialfinaldiff": {"added": added, "updated": {}, "removed": {}},
        "differences": {
            "priorAuth": {"added": submissions},
            "authSearches": _list_or_empty(state.get("authSearches")),
            "eligibilityChecks": _list_or_empty(state.get("eligibilityChecks")),
        },
    }


def _list_or_empty(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


async def read_state_document(
    page: Page,
    base_url: str,
    task_id: str,
    run_id: str,
    *,
    action_history: Sequence[str] = (),
    episode_completed: bool = False,
) -> dict[str, Any]:
    """Read the portals' storage in `page`'s browser context and assemble the document.

    The read happens in a page of the harness's own, opened beside `page` on the portals'
    origin at `READ_PATH`, answered with a blank document by a route of that page: no portal
    code runs, so reading writes nothing, and the agent's page is left where it is. (The
    benchmark's harness reads the agent's page at whatever origin it ended on; there, an agent
    that ends off the portals' origin gets the empty document.) As in the harness, a read that
    fails in the page — storage nested too deeply to return — gives the empty document; a
    browser that fails (closed, timed out) raises.
    """
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    reader = await page.context.new_page()
    try:
        url = base_url.rstrip("/") + READ_PATH

        async def blank(route: Route) -> None:
            await route.fulfill(status=200, content_type="text/html", body=BLANK_PAGE)

        await reader.route(url, blank)
        await reader.goto(url)
        try:
            snapshot = await reader.evaluate(READ_SCRIPT, read_arguments(task_id, run_id))
        except PlaywrightError as exc:
            if isinstance(exc, PlaywrightTimeout) or reader.is_closed():
                raise  # the browser failed, not the page's storage
            snapshot = None  # as the harness: a read the page fails is empty storage
    finally:
        await reader.close()
    return assemble_state(
        snapshot,
        task_id,
        run_id,
        action_history=action_history,
        episode_completed=episode_completed,
    )
