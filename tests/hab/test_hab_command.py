"""A `command:` agent on the benchmark's portals: refused unless asked for, and then measured from
its own browser's storage and disclosed as agent-writable in every report.

The forging agent below is the benchmark's known hole, run for real: it does no work through the
pages, writes the flags the checks read straight into localStorage of its own (sandboxed)
browser, and earns every deterministic point. endstate cannot tell — which is why it refuses such
an agent on this environment without `--allow-agent-writable-state` and says so when allowed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from endstate.hab.build import PortalBuild

from .test_hab_runs import hab_endstate

FORGER = """\
import json, sys, urllib.parse
from playwright.sync_api import sync_playwright
task = json.loads(sys.stdin.readline())
url = task["projection"]["start_url"]
query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
key = "portals_state:%s:%s:forged" % (query["task_id"][0], query["run_id"][0])
forged = {"version": 1, "updatedAt": "9999", "payerA": {}, "payerB": {}, "fax": {},
          "emr": {"agentActions": {"addedAuthNote": True}, "clearedReferrals": ["REF-2025-002"]}}
with sync_playwright() as pw:
    browser = pw.chromium.connect_over_cdp(task["cdp_endpoint"])
    page = browser.contexts[0].new_page()
    page.goto(url)
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, json.dumps(forged)])
    browser.close()
print(json.dumps({"claim": "done", "message": "referral cleared"}))
"""

SLEEPER = "import time\ntime.sleep(60)\n"


def _agent(folder: Path, body: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "agent.py"
    path.write_text(body)
    return f"command:{sys.executable} {path}"


def _run(
    tmp_path: Path, cache: Path, corpus: Path, agent: str, *extra: str
) -> tuple[int, str, str, Path | None]:
    out = tmp_path / "runs"
    proc = hab_endstate(
        "run", "--corpus", corpus, "--tasks", "emr-easy-1", "--agent", agent, "--out", out, *extra,
        cache=cache, cwd=tmp_path,
    )  # fmt: skip
    runs = [p for p in out.iterdir() if p.is_dir()] if out.exists() else []
    return proc.returncode, proc.stdout, proc.stderr, runs[0] if runs else None


def _record(run: Path) -> dict[str, object]:
    (line,) = (run / "records.jsonl").read_text().splitlines()
    record: dict[str, object] = json.loads(line)
    return record


def test_a_command_agent_is_refused_without_the_flag(
    portal_build: PortalBuild, hab_cache: Path, hab_train: Path, tmp_path: Path
) -> None:
    code, _, err, run = _run(tmp_path, hab_cache, hab_train, _agent(tmp_path / "a", FORGER))
    assert code == 1 and "Traceback" not in err
    (line,) = [x for x in err.splitlines() if x.startswith("error:")]
    assert "keeps the end state in the browser the agent drives" in line
    assert "--allow-agent-writable-state" in line
    assert run is None


def test_with_the_flag_its_own_browser_is_read_and_every_report_says_so(
    portal_build: PortalBuild, hab_cache: Path, hab_train: Path, tmp_path: Path
) -> None:
    code, stdout, err, run = _run(
        tmp_path, hab_cache, hab_train, _agent(tmp_path / "a", FORGER),
        "--allow-agent-writable-state",
    )  # fmt: skip
    assert code == 0, err[-2000:]
    assert run is not None
    record = _record(run)
    checks = record["checks"]
    assert isinstance(checks, list)
    deterministic = [c for c in checks if c["type"] == "jmespath"]
    assert [c["outcome"] for c in deterministic] == ["pass", "pass"]  # forged, not earned
    assert stdout.splitlines()[0].endswith(
        "AGENT-WRITABLE STATE: the end state lived in the agent's own browser"
    )
    assert "AGENT-WRITABLE STATE: the end state lived in the browser the agent drove" in stdout
    manifest = json.loads((run / "manifest.json").read_text())
    details = manifest["environment"]["details"]
    assert details["agent_writable_state"] is True
    assert details["agent_writable_state_allowed"] is True
    assert "AGENT-WRITABLE" in (run / "report.html").read_text()


@pytest.mark.parametrize("limit", ["3"])
def test_an_agent_stopped_at_the_limit_is_still_measured_from_its_browser(
    portal_build: PortalBuild, hab_cache: Path, hab_train: Path, tmp_path: Path, limit: str
) -> None:
    code, _, err, run = _run(
        tmp_path, hab_cache, hab_train, _agent(tmp_path / "a", SLEEPER),
        "--allow-agent-writable-state", "--time-limit", limit,
    )  # fmt: skip
    assert code == 0, err[-2000:]
    assert run is not None
    record = _record(run)
    assert record["status"] == "failed", record.get("error")
    facts = record["facts"]
    assert isinstance(facts, dict) and facts["claim"] == "timeout"
