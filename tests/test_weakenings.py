"""`endstate.boundary`: each weakening of the trust boundary, read from what a manifest and its
records say — including the ones this machine cannot produce in a real run (a harness that is
not root, a run from before isolation was pinned). Real runs: tests/runs/test_boundary.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from endstate.boundary import WEAKENING_IDS, boundary_weakenings, weakenings_text
from endstate.build import BuildInfo
from endstate.manifest import (
    AgentPin,
    CorpusPin,
    EnvironmentPin,
    FirewallSummary,
    HostFacts,
    Isolation,
    Manifest,
    RunLimits,
)
from endstate.records import AttemptFacts, SandboxFacts, TaskRecord
from endstate.runs.store import RunStore


def _manifest(isolation: Isolation | None, **env: Any) -> Manifest:
    return Manifest(
        run_id="20260101T000000Z-abcdef",
        mode="scored",
        created_at="2026-01-01T00:00:00+00:00",
        corpus=CorpusPin(name="c", root="/c", tree_hash="0" * 64, files={}, vendored=True),
        tasks=["t-1", "t-2"],
        build=BuildInfo(version="0"),
        agent=AgentPin(spec="command:agent", kind="command", name="agent", scored=True),
        environment=EnvironmentPin(kind="hab", fingerprint="f", details=env),
        limits=RunLimits(attempts=1, workers=1, max_steps=10, time_limit=60),
        seed=0,
        firewall=FirewallSummary(verified=2),
        host=HostFacts(hostname="h", platform="p", python="3", cpus=1),
        isolation=isolation,
    )


def _sandbox(**sandbox: Any) -> Isolation:
    return Isolation(mode="sandbox", browser="own", details={"sandbox": sandbox} if sandbox else {})


def _record(task: str, browser_sandbox: str | None) -> TaskRecord:
    facts = AttemptFacts(
        claim="done", sandbox=SandboxFacts(isolation="sandbox", browser_sandbox=browser_sandbox)
    )
    return TaskRecord(task_id=task, attempt="1", family="f", tier="easy", status="failed",
                      score=0, earned=0, weight=1, facts=facts)  # fmt: skip


@pytest.mark.parametrize(
    ("isolation", "ids"),
    [
        (Isolation(mode="in-process", browser="shared"), []),
        (None, ["isolation-not-recorded"]),
        (Isolation(mode="none", browser="own"), ["agent-not-isolated"]),
        (_sandbox(dedicated_uid=True), []),
        (_sandbox(dedicated_uid=False), ["agent-shares-harness-uid"]),
        # Manifests written before `dedicated_uid`: the uid's description says which.
        (_sandbox(uid="a dedicated unprivileged uid per attempt"), []),
        (
            _sandbox(uid="the harness user's uid in its own user namespace"),
            ["agent-shares-harness-uid"],
        ),
        (_sandbox(), []),  # nothing recorded of the sandbox: no uid claimed either way
    ],
)
def test_isolation_weakenings(isolation: Isolation | None, ids: list[str]) -> None:
    assert [w.id for w in boundary_weakenings(_manifest(isolation))] == ids


def test_agent_writable_state_and_the_browsers_sandbox_counted_per_attempt() -> None:
    manifest = _manifest(
        Isolation(mode="none", browser="own"), state_store="agent_browser",
        agent_writable_state=True,
    )  # fmt: skip
    records = [_record("t-1", "off: no user namespaces"), _record("t-2", "on")]
    found = boundary_weakenings(manifest, records)
    assert [w.id for w in found] == ["agent-not-isolated", "agent-writable-state",
                                     "browser-sandbox-off"]  # fmt: skip
    assert [w.id for w in found] == [i for i in WEAKENING_IDS if i in {w.id for w in found}]
    browser = found[-1]
    assert browser.label == "BROWSER SANDBOX OFF in 1 of 2 attempt(s)"
    assert "off in 1 of 2 attempt(s) (1× no user namespaces)" in browser.text
    # One attempt's own view: only its own browser counts.
    assert [w.id for w in boundary_weakenings(manifest, records[1:])] == [
        "agent-not-isolated", "agent-writable-state",
    ]  # fmt: skip
    assert weakenings_text(found).startswith("BOUNDARY WEAKENED (3): agent-not-isolated — ")
    assert weakenings_text([]) == "boundary weakenings: none (the trust boundary was whole)"


def test_the_report_title_and_disclosure_name_every_weakening(tmp_path: Path) -> None:
    from endstate.runs.session import render

    manifest = _manifest(_sandbox(dedicated_uid=False))
    store = RunStore(tmp_path / "run")
    store.create(manifest)
    for record in (_record("t-1", "off"), _record("t-2", "on")):
        store.append(record)
    _, _, disclosure, text = render(store, store.read_manifest())
    title = text.splitlines()[0]
    assert title.endswith(
        " — SHARED UID: the sandboxed agent kept the harness user's uid"
        " — BROWSER SANDBOX OFF in 1 of 2 attempt(s)"
    )
    (isolation,) = [i.text for i in disclosure.items if i.key == "isolation"]
    assert "BOUNDARY WEAKENED (2): agent-shares-harness-uid — the harness did not run as root" in (
        isolation
    )
    assert "(1× reason not recorded)" in isolation
