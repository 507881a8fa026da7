"""The HealthAdminBench state reader against the benchmark's own harness.

Our own storage fixtures (tests/fixtures/hab_state) pin the behaviour. The differential tests
load the harness's `EpicEnvironment` from ../shared/peers by file path (its heavy imports stood
in for while it loads) and give it and ours the same inputs: snapshots in Python (fixtures,
the recorded documents of ../shared/fixtures turned back into storage, generated ones), then
the same localStorage in a real Chromium page, where its script and ours both run. Skipped,
saying why, where the harness is not beside the checkout.
"""

from __future__ import annotations

import asyncio
import copy
import importlib.util
import json
import sys
import threading
import types
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page

from conftest import FIXTURES as FIXTURE_DIR
from conftest import _shared
from endstate.browser import BrowserHost, async_browser
from endstate.hab.state_reader import (
    READ_SCRIPT,
    HabStateError,
    assemble_state,
    parse_js_json,
    read_arguments,
    read_state_document,
    snapshot_from_storage,
)
from endstate.scoring.states import writable_state

TASK, RUN = "easy_7", "a1b2c3d4"  # what every fixture's keys are written for
STAMP = "2026-02-25T09:00:00-08:00"  # the portals' frozen clock: every write carries it
PREFIX = f"portals_state:{TASK}:{RUN}:"
TAB1, TAB2, TAB3 = (f"{PREFIX}tab_20260225_000{i}" for i in (1, 2, 3))
LEGACY_EMR, LEGACY_FAX = f"epic_{TASK}_{RUN}", f"fax_portal_{TASK}_{RUN}"
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DOC_KEYS = (  # noqa: SIM905
    "success task_id run_id environment signals episode_completed actions actions_history "
    "full_state payer_a_state payer_b_state aetna_state anthem_state"
).split()

Storage = list[tuple[str, str]]
Reference = Callable[..., dict[str, Any]]


def _load_fixtures() -> dict[str, Storage]:
    raw = json.loads((FIXTURE_DIR / "hab_state" / "storage.json").read_text(encoding="utf-8"))
    return {
        name: [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in items]
        for name, items in raw.items()
        if not name.startswith("_")
    }


FIXTURES = _load_fixtures()


def state(storage: Storage, **kw: Any) -> dict[str, Any]:
    return assemble_state(snapshot_from_storage(storage, TASK, RUN), TASK, RUN, **kw)


def dump(doc: Any) -> str:
    """Equal dumps: equal values, types (1 vs 1.0, -0.0), key order and list order."""
    return json.dumps(doc)


# -- behaviour, on our own fixtures ------------------------------------------------------------


def test_empty_storage_is_the_null_agent_document() -> None:
    doc = state([], action_history=["click([x])"], episode_completed=True)
    assert list(doc) == DOC_KEYS and doc["full_state"] == {}
    assert (doc["task_id"], doc["run_id"], doc["success"]) == (TASK, RUN, True)
    assert not any(doc["signals"].values()) and len(doc["signals"]) == 12
    assert doc["actions"] == dict(history=["click([x])"], visited_pages=[], viewed_documents=[])
    differences = dict(priorAuth={"added": []}, authSearches=[], eligibilityChecks=[])
    assert doc["payer_a_state"]["differences"] == differences
    assert dump(assemble_state(None, TASK, RUN)) == dump(state([]))  # a failed read


def test_slices_feed_full_state_signals_actions_and_payers() -> None:
    doc = state(FIXTURES["one_slice"])
    assert doc["full_state"]["agentActions"]["readClinicalNote"] is True
    assert doc["signals"]["read_clinical_note"] is True
    assert doc["signals"]["downloaded_auth_letter_filename"] is None
    assert doc["actions"]["visited_pages"] == ["/emr/worklist"]
    doc = state(FIXTURES["fax_and_payers"])
    assert list(doc["full_state"]) == ["taskId", "agentActions", "faxPortal"]
    assert doc["signals"]["submitted"] is True  # from submittedAppeal
    assert doc["signals"]["downloaded_auth_letter_filename"] == "auth.pdf"
    payer = doc["payer_a_state"]
    assert payer is doc["aetna_state"] and doc["payer_b_state"] is doc["anthem_state"]
    assert payer["config"] == {"plan": "x"}
    assert payer["agentActions"] == payer["full_state"]["agentActions"] == {"searchedClaims": True}
    submissions = payer["differences"]["priorAuth"]["added"]
    assert [s["confirmationId"] for s in submissions] == ["PA-2026-000001", "PA-2026-000002"]
    assert payer["initialfinaldiff"]["added"] == {"priorAuth": submissions[-1]}
    other = doc["payer_b_state"]
    assert other["agentActions"] == {"loggedIn": True} and other["config"] == {}
    assert other["differences"]["priorAuth"] == {"added": []}  # submissions not a list
    assert other["differences"]["eligibilityChecks"] == [{"memberId": "M1"}]


def test_each_slice_from_the_last_non_empty_entry_else_a_legacy_key() -> None:
    doc = state(FIXTURES["several_tabs"])
    assert doc["full_state"] == {"from": 2, "faxPortal": {"from": 3}}  # tab 3's empty emr skipped
    assert doc["payer_a_state"]["agentActions"] == {"x": 1}  # only tab 1 has payerA
    reordered = [FIXTURES["several_tabs"][i] for i in (1, 0, 2)]
    assert state(reordered)["full_state"]["from"] == 1  # a tie goes to the later entry
    assert state(FIXTURES["newer_stamp_wins"])["full_state"] == {"from": 1}  # "…T10" > "…T09…"
    assert state(FIXTURES["legacy"])["full_state"] == {"legacy": 1, "faxPortal": {"sent": 2}}
    both = FIXTURES["legacy"] + FIXTURES["one_slice"]  # legacy keys fill only empty slices
    assert list(state(both)["full_state"]) == ["taskId", "agentActions", "faxPortal"]


def test_values_that_are_not_json_are_skipped_whole() -> None:
    assert state(FIXTURES["not_json"])["full_state"] == {"from": 2}  # NaN is not JSON either
    for name in ("only_not_json", "not_objects", "other_runs"):
        assert dump(state(FIXTURES[name])) == dump(state([])), name


def test_numbers_and_keys_arrive_as_from_the_browser() -> None:
    emr = state(FIXTURES["js_numbers"])["full_state"]
    assert dump(emr) == dump({"1": float("inf"), "2": -0.0, "b": 2.5, "n": 12345678901234567000})
    assert dump(parse_js_json('{"a": 1, "a": 2, "0": 0}')) == '{"0": 0, "a": 2}'
    for text in ("NaN", "[Infinity]", "{", "", "\ufeff{}", "[1,]"):
        with pytest.raises(ValueError):
            parse_js_json(text)


def test_input_the_harness_would_crash_on_is_a_named_error() -> None:
    raw = {"entries": [{"key": TAB1, "updatedAt": 5, "emr": {"a": 1}}]}
    with pytest.raises(HabStateError, match=TAB1) as caught:
        assemble_state(raw, TASK, RUN)
    assert isinstance(caught.value, ValueError)
    quiet = {"entries": [{"key": TAB1, "updatedAt": 5, "emr": {}}]}  # never compared: no crash
    assert dump(assemble_state(quiet, TASK, RUN)) == dump(state([]))


def test_a_lone_surrogate_in_stored_json_reaches_the_document_and_is_written_as_an_escape() -> None:
    # "\\ud800" is plain ASCII in the stored text; decoded, it is a lone surrogate.
    key = f"portals_state:{TASK}:{RUN}:tab-1"
    text = '{"updatedAt": "2026-01-01T00:00:00Z", "emr": {"note": "\\ud800"}}'
    doc = state([(key, text)])
    assert doc["full_state"]["note"] == "\ud800"
    kept, raw = writable_state(doc)
    assert kept["full_state"]["note"] == "\\ud800"  # the document scored is the one written
    assert json.loads(raw.decode("utf-8")) == kept
    untouched = state([])
    assert writable_state(untouched)[0] is untouched  # nothing to repair: the same object


def test_assembling_leaves_its_input_alone() -> None:
    raw = snapshot_from_storage(FIXTURES["fax_and_payers"], TASK, RUN)
    before = copy.deepcopy(raw)
    doc = assemble_state(raw, TASK, RUN)
    doc["full_state"]["taskId"] = "changed"
    assert raw == before


# -- the harness's own code, loaded by path ------------------------------------------------------


def _stub(name: str, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__path__ = []  # a package, so its submodules resolve
    module.__dict__.update(attrs)
    return module


def _stubs() -> dict[str, types.ModuleType]:
    """Stand-ins for what environment.py imports besides the standard library and Playwright
    (installed here): loguru, PIL and the rest of the harness."""
    nothing = lambda *a, **k: None  # noqa: E731
    urls = ("get_emr_url", "get_fax_portal_url", "get_portal_url", "normalize_env_base_url")
    attrs: dict[str, dict[str, Any]] = {name: {} for name in ("PIL", "harness", "harness.utils")}
    attrs |= {
        "loguru": {"logger": types.SimpleNamespace(info=nothing, warning=nothing, error=nothing)},
        "PIL.Image": {"Image": object},
        "harness.base_environment": {"BaseEnvironment": object},
        "harness.config": {"TaskV2": object, "settings": None},
        "harness.config.urls": dict.fromkeys(urls, nothing),
        "harness.utils.html_utils": {"prune_html": nothing},
        "harness.real_obs": {"build_axtree_text": nothing},
    }
    return {name: _stub(name, **values) for name, values in attrs.items()}


def _load_environment_class(path: Path) -> Any:
    """`EpicEnvironment`, loaded with stand-ins in sys.modules that are taken out again (and
    whatever they displaced put back) as soon as it is loaded."""
    stubs = _stubs()
    saved = {name: sys.modules.get(name) for name in stubs}
    try:
        sys.modules.update(stubs)
        spec = importlib.util.spec_from_file_location("hab_reference_environment", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
    assert not any(sys.modules.get(name) is stub for name, stub in stubs.items())
    return module.EpicEnvironment


class SnapshotPage:
    """Stands in for the page: the harness's script 'returns' a snapshot we give it."""

    def __init__(self, snapshot: Any, task: str = TASK, run: str = RUN) -> None:
        self.snapshot, self.expected = snapshot, read_arguments(task, run)

    def evaluate(self, script: str, arg: Any) -> Any:
        assert "portals_state:" in script and arg == self.expected
        return copy.deepcopy(self.snapshot)  # the harness writes into what it gets


class RecordingPage:
    """A real page that keeps what the harness's own script returned."""

    def __init__(self, page: Page) -> None:
        self.page, self.returned = page, None

    def evaluate(self, script: str, arg: Any) -> Any:
        self.returned = self.page.evaluate(script, arg)
        return copy.deepcopy(self.returned)


@pytest.fixture(scope="module")
def reference() -> Reference:
    harness = _shared("peers/health-admin-bench-harness")
    env_class = _load_environment_class(harness / "harness" / "environment.py")

    def final_state(
        page: Any, history: Any = (), done: bool = False, task: str = TASK, run: str = RUN
    ) -> Any:
        env = env_class.__new__(env_class)  # no __init__: it reads settings and URLs
        env.task = types.SimpleNamespace(config=types.SimpleNamespace(task_id=task))
        env.run_id, env.page, env.done, env.action_history = run, page, done, list(history)
        return env.get_final_state()

    return final_state


def test_reference_agrees_on_our_fixtures(reference: Reference) -> None:
    for name, storage in FIXTURES.items():
        snapshot = snapshot_from_storage(storage, TASK, RUN)
        theirs = reference(SnapshotPage(snapshot), ["scroll(down)", "done()"], True)
        ours = assemble_state(
            snapshot, TASK, RUN, action_history=["scroll(down)", "done()"], episode_completed=True
        )
        assert dump(ours) == dump(theirs), name


def _payer_slice(payer: dict[str, Any]) -> dict[str, Any]:
    """The smallest payer slice the harness turns into `payer` (its inverse)."""
    actions, differences = payer["full_state"]["appealActions"], payer["differences"]
    found = {
        "initialState": payer["config"],
        "appealActions": actions,
        "agentActions": actions,
        "submissions": differences["priorAuth"]["added"],
        "authSearches": differences["authSearches"],
        "eligibilityChecks": differences["eligibilityChecks"],
    }
    return {k: v for k, v in found.items() if v}


def recorded_cases() -> Iterator[tuple[str, dict[str, Any], Storage]]:
    """Each recorded document with one tab's storage rebuilt from it (the harness's inverse)."""
    for path in sorted(_shared("fixtures/hab-v2-states").glob("*.state.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        emr = dict(doc["full_state"])
        fax = emr.pop("faxPortal", {})
        payer_a, payer_b = _payer_slice(doc["payer_a_state"]), _payer_slice(doc["payer_b_state"])
        body = {"updatedAt": STAMP, "emr": emr, "payerA": payer_a, "payerB": payer_b, "fax": fax}
        key = f"portals_state:{doc['task_id']}:{doc['run_id']}:tab_20260225_0001"
        yield path.name, doc, [(key, json.dumps(body))]


def _recorded_args(doc: dict[str, Any]) -> tuple[str, str, list[str], bool]:
    return doc["task_id"], doc["run_id"], doc["actions_history"], doc["episode_completed"]


def test_reference_and_ours_rebuild_the_recorded_documents(reference: Reference) -> None:
    cases = list(recorded_cases())
    assert len(cases) >= 13
    for name, doc, storage in cases:
        task, run, history, done = _recorded_args(doc)
        snapshot = snapshot_from_storage(storage, task, run)
        ours = assemble_state(snapshot, task, run, action_history=history, episode_completed=done)
        theirs = reference(SnapshotPage(snapshot, task, run), history, done, task, run)
        assert dump(ours) == dump(theirs) == dump(doc), name


# -- generated inputs ----------------------------------------------------------------------------

FLAGS = ["readClinicalNote", "clickedGoToPortal", "submittedAppeal", "visitedPages"]
KEYS = st.sampled_from(
    ["a", "0", "1", "10", "01", "__proto__", *FLAGS, "submissions", "agentActions"]
)
SCALARS = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.text(max_size=6)
NUMBERS = st.floats(allow_nan=False, allow_infinity=False)
VALUES = st.recursive(
    SCALARS | NUMBERS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=10,
)
PAYERISH = {"agentActions": st.dictionaries(KEYS, VALUES, max_size=4), "initialState": VALUES}
PAYERISH |= {"submissions": st.lists(VALUES, max_size=3), "authSearches": VALUES}
SLICE = st.dictionaries(KEYS, VALUES, max_size=4) | st.fixed_dictionaries({}, optional=PAYERISH)
SLICE = SLICE | VALUES
STAMPS = st.sampled_from([STAMP, "2026-02-25T10:00:00Z", "", "9", None, 0])
SLICES = st.dictionaries(st.sampled_from(["emr", "payerA", "payerB", "fax"]), SLICE)
ENTRY_TEXT = (
    st.builds(lambda stamp, slices: json.dumps({"updatedAt": stamp, **slices}), STAMPS, SLICES)
    | VALUES.map(json.dumps)
    | st.sampled_from(["", "{", "NaN", '{"emr": {"a": Infinity}}', "null", "[]"])
)
STORAGE_KEYS = st.sampled_from(
    [TAB1, TAB2, TAB3, PREFIX, LEGACY_EMR, LEGACY_FAX, f"portals_state:{TASK}:x:t", "other"]
)
STORAGE = st.lists(st.tuples(STORAGE_KEYS, ENTRY_TEXT), max_size=5, unique_by=lambda kv: kv[0])

ODD = VALUES | st.sampled_from([5, [1], "x"])
ANY_STAMP = STAMPS | st.sampled_from([5, True, [1], 0.5])
ENTRY_PARTS = {"updatedAt": ANY_STAMP, "emr": SLICE, "payerA": SLICE, "payerB": SLICE, "fax": SLICE}
SNAPSHOT_ENTRY = st.fixed_dictionaries({"key": st.sampled_from([TAB1, TAB2])}, optional=ENTRY_PARTS)
SNAPSHOT_PARTS = {"entries": st.lists(SNAPSHOT_ENTRY | ODD, max_size=4) | ODD}
SNAPSHOT_PARTS |= dict.fromkeys(["legacyEmr", "legacyFax"], SLICE)
SNAPSHOT = st.fixed_dictionaries({}, optional=SNAPSHOT_PARTS) | ODD


@FUZZ
@given(storage=STORAGE, history=st.lists(st.text(max_size=5), max_size=2), done=st.booleans())
def test_reference_agrees_on_generated_storage(
    reference: Reference, storage: Storage, history: list[str], done: bool
) -> None:
    snapshot = snapshot_from_storage(storage, TASK, RUN)
    theirs = reference(SnapshotPage(snapshot), history, done)
    ours = assemble_state(snapshot, TASK, RUN, action_history=history, episode_completed=done)
    assert dump(ours) == dump(theirs)


@FUZZ
@given(snapshot=SNAPSHOT)
def test_reference_agrees_on_generated_snapshots_crashes_included(
    reference: Reference, snapshot: Any
) -> None:
    try:
        theirs = reference(SnapshotPage(snapshot))
    except TypeError:  # it compared an updatedAt that is not a string with one that is
        with pytest.raises(HabStateError):
            assemble_state(snapshot, TASK, RUN)
        return
    assert dump(assemble_state(snapshot, TASK, RUN)) == dump(theirs)


# -- the same storage in a real page: their script, ours, and our emulation of it ---------------


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A loopback http origin serving a blank page (localStorage needs a real origin)."""
    root = tmp_path_factory.mktemp("origin")
    (root / "index.html").write_text("<!doctype html><title>blank</title>")
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def page(origin: str) -> Iterator[Page]:
    with BrowserHost() as host:
        context = host.new_context()
        blank = context.new_page()
        blank.goto(origin)
        yield blank
        context.close()


SEED = "items => { localStorage.clear(); for (const [k, v] of items) localStorage.setItem(k, v); }"
KEY_ORDER = "() => Array.from({length: localStorage.length}, (_, i) => localStorage.key(i))"


def seed(page: Page, storage: Storage) -> Storage:
    """Replace the page's localStorage with `storage`; its items in the page's own key order."""
    page.evaluate(SEED, storage)
    stored = dict(storage)
    return [(key, stored[key]) for key in page.evaluate(KEY_ORDER)]


def three_ways(page: Page, reference: Reference, storage: Storage, args: Any = None) -> list[str]:
    """The harness on the page, ours on the page, ours on the storage (no page), dumped."""
    task, run, history, done = args or (TASK, RUN, ["done()"], True)
    in_order = seed(page, storage)
    try:
        raw = page.evaluate(READ_SCRIPT, read_arguments(task, run))
    except PlaywrightError:  # too deep to return: the harness then reads empty storage
        raw = None
    emulated = snapshot_from_storage(in_order, task, run, url=raw["url"] if raw else None)
    assert dump(emulated) == dump(raw)
    recording = RecordingPage(page)
    theirs = reference(recording, history, done, task, run)
    assert dump(recording.returned) == dump(raw and {k: v for k, v in raw.items() if k != "url"})
    ours = {"action_history": history, "episode_completed": done}
    return [
        dump(theirs),
        dump(assemble_state(raw, task, run, **ours)),
        dump(assemble_state(emulated, task, run, **ours)),
    ]


def test_in_the_browser_on_fixtures_and_recorded_documents(
    page: Page, reference: Reference
) -> None:
    for name, storage in FIXTURES.items():
        theirs, ours, emulated = three_ways(page, reference, storage)
        assert theirs == ours == emulated, name
    for name, doc, storage in recorded_cases():
        assert three_ways(page, reference, storage, _recorded_args(doc)) == [dump(doc)] * 3, name


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(storage=STORAGE)
def test_in_the_browser_on_generated_storage(
    page: Page, reference: Reference, storage: Storage
) -> None:
    theirs, ours, emulated = three_ways(page, reference, storage)
    assert theirs == ours == emulated


def test_in_the_browser_at_the_depth_a_page_can_return(page: Page, reference: Reference) -> None:
    nestings = (('{"a": ', "}", range(93, 100)), ("[", "]", range(140, 150)))
    for leaf in ("1", '"s"', "null", "[]", "{}", "-0"):
        for opening, closing, depths in nestings:
            outcomes = set()
            for depth in depths:
                value = opening * depth + leaf + closing * depth
                for storage in ([(TAB1, f'{{"emr": {{"z": {value}}}}}')], [(LEGACY_EMR, value)]):
                    theirs, ours, emulated = three_ways(page, reference, storage)
                    assert theirs == ours == emulated, (leaf, depth, storage[0][0])
                    outcomes.add(snapshot_from_storage(storage, TASK, RUN) is None)
            assert outcomes == {True, False}, leaf  # the limit lies inside the depths tried


def test_a_page_without_storage_reads_as_empty(page: Page, reference: Reference) -> None:
    seed(page, FIXTURES["one_slice"])
    other = page.context.new_page()
    try:
        other.goto("about:blank")
        theirs = reference(other)  # the harness catches the SecurityError: empty slices
        with pytest.raises(Exception, match="localStorage"):
            other.evaluate(READ_SCRIPT, read_arguments(TASK, RUN))
    finally:
        other.close()
    assert dump(theirs) == dump(assemble_state(None, TASK, RUN))


# -- read_state_document: a reader page of its own, on the portals' origin -----------------------


def in_own_thread(main: Coroutine[Any, Any, Any]) -> Any:
    """asyncio.run(main) on a thread of its own: the sync browser above may still be up."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, main).result(timeout=120)


def test_read_state_document_reads_the_origin_without_running_its_pages(origin: str) -> None:
    storage = [*FIXTURES["fax_and_payers"], (LEGACY_FAX, "{")]

    async def read() -> tuple[dict[str, Any], Storage, int]:
        async with async_browser() as browser:
            context = await browser.new_context()
            agent_page = await context.new_page()
            await agent_page.goto(origin)
            await agent_page.evaluate(SEED, storage)
            await agent_page.goto("about:blank")  # the agent ended somewhere else
            doc = await read_state_document(agent_page, origin, TASK, RUN, episode_completed=True)
            await agent_page.goto(origin)
            after = await agent_page.evaluate("() => Object.entries(localStorage)")
            pages = len(context.pages)
            await context.close()
            return doc, [(k, v) for k, v in after], pages

    doc, after, pages = in_own_thread(read())
    assert dump(doc) == dump(state(storage, episode_completed=True))
    assert sorted(after) == sorted(storage) and pages == 1  # nothing written, reader closed
