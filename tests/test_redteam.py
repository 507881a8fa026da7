"""The red team as shipped: every attack holds against the sandbox, and breaks without one.

The second half is what makes the first mean something: the same attacks, run unsandboxed,
really do read the grading specification, reach the grading channel, forge records and leave
processes behind — and the red team says so.
"""

from __future__ import annotations

import html
import importlib
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from endstate import redteam
from endstate.agents.agent_output import read_final_line
from endstate.envs.suite.limits import SuiteLimits
from endstate.envs.systems.scheduling import TOOL_CALL_BYTES
from endstate.errors import EndstateError
from endstate.redteam.attacks import ATTACKS
from endstate.redteam.run_dir_bound import attempt_bytes, episode_footprint, oversized
from endstate.redteam.suite import run_redteam
from endstate.redteam.viewer_probe import page_problems
from endstate.runs.store import RunStore
from endstate.sandbox.platform import probe
from endstate.visible import for_template, hidden

ENDSTATE = Path(sys.executable).with_name("endstate")
INVARIANTS = {
    "records intact",
    "victims untouched",
    "harness files intact",
    "reports intact",
    "no survivors",
    "run directory bounded",
}

requires_sandbox = pytest.mark.skipif(
    not probe().available and not os.environ.get("ENDSTATE_REQUIRE_SANDBOX"),
    reason=f"no sandbox on this machine: {probe().reason}",
)


@requires_sandbox
def test_every_attack_holds_against_the_installed_harness(tmp_path: Path) -> None:
    out = tmp_path / "findings.json"
    done = subprocess.run(
        [str(ENDSTATE), "redteam", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    findings = {f["name"]: f for f in json.loads(out.read_text())["findings"]}
    broken = {n: f["evidence"] for n, f in findings.items() if f["verdict"] != "held"}
    assert broken == {}, broken
    assert done.returncode == 0, done.stderr[-2000:]
    assert "every attack held" in done.stdout
    assert set(findings) == {a.name for a in ATTACKS} | INVARIANTS
    assert {f["verdict"] for f in findings.values()} == {"held"}
    # The evidence shows each attack really ran into its wall, not that it did nothing.
    assert "refused: HTTP 400" in findings["nonce-scope"]["evidence"]
    assert "No space left on device" in findings["disk-fill"]["evidence"]
    assert "fork refused after" in findings["exhaustion"]["evidence"]
    assert "memory refused after" in findings["exhaustion"]["evidence"]
    assert "file:///etc/passwd: Error" in findings["shared-browser"]["evidence"]
    assert "claim done" in findings["false-claim"]["evidence"]
    assert "the supervisor outlived SIGINT" in findings["supervisor-ptrace"]["evidence"]
    assert "ptrace: EPERM" in findings["supervisor-ptrace"]["evidence"]
    assert re.search(r"(\d+) of \1 calls refused", findings["seccomp"]["evidence"])
    assert "No space left on device" in findings["inode-flood"]["evidence"]
    assert "victim attempt(s), all untouched" in findings["victims untouched"]["evidence"]
    assert "lone surrogates written as escapes" in findings["lone-surrogate"]["evidence"]
    assert "5,000 digits" in findings["number-bombs"]["evidence"]
    assert "shown as escapes" in findings["viewer-text"]["evidence"]
    assert "upload:" in findings["body-bomb"]["evidence"]
    assert "flood held to" in findings["request-flood"]["evidence"]
    assert "tool calls refused: 12 of 12" in findings["tool-arguments"]["evidence"]


def test_without_a_sandbox_the_same_attacks_break(tmp_path: Path) -> None:
    result = run_redteam(
        ["answers-on-disk", "grading-channel", "survivors", "exhaustion"],
        isolation="none",
        workspace=tmp_path / "workspace",
    )
    verdicts = {f.name: f for f in result.findings}
    assert verdicts["answers-on-disk"].verdict == "broken"
    assert "its task passed" in verdicts["answers-on-disk"].evidence
    assert verdicts["grading-channel"].verdict == "broken"
    assert "grading channel answered" in verdicts["grading-channel"].evidence
    assert verdicts["no survivors"].verdict == "broken"
    assert "es-rt-survivor" in verdicts["no survivors"].evidence
    assert verdicts["exhaustion"].verdict == "skipped"  # would harm this machine unsandboxed


@requires_sandbox
def test_the_sandbox_attacks_hold_and_break_without_its_hardening(tmp_path: Path) -> None:
    names = ["supervisor-ptrace", "seccomp", "inode-flood"]
    held = {f.name: f for f in run_redteam(names, workspace=tmp_path / "on").findings}
    assert {n: held[n].verdict for n in names} == dict.fromkeys(names, "held"), held
    assert "the supervisor outlived" in held["supervisor-ptrace"].evidence
    assert held["inode-flood"].evidence.count("No space left on device") == 3
    # The same attacks against the sandbox as it was: no filter, a reachable supervisor,
    # tmpfs without an inode quota (the test-only hardened=False).
    off = run_redteam(names, workspace=tmp_path / "off", hardened=False).findings
    broken = {f.name: f.evidence for f in off if f.name in names}
    assert broken["supervisor-ptrace"].startswith("found ptrace attached to the supervisor")
    assert re.match(r"found \w+ reached the kernel \(\w+\) \(\+\d+\)", broken["seccomp"])
    assert "empty files in /tmp without an inode quota" in broken["inode-flood"]
    assert {f.verdict for f in off if f.name in names} == {"broken"}


@requires_sandbox
def test_the_flood_holds_and_breaks_a_suite_without_a_fair_share(tmp_path: Path) -> None:
    held = run_redteam(["request-flood"], workspace=tmp_path / "on").findings[0]
    assert held.verdict == "held", held.evidence
    rate = int(re.search(r"flood held to (\d+) requests/s", held.evidence).group(1))  # type: ignore[union-attr]
    assert rate <= 60
    # The suite as it was: every request served at once, however many one attempt sends.
    unbounded = SuiteLimits(
        requests_per_second=1e6,
        request_burst=10**6,
        concurrent_requests=10**4,
        queued_requests=10**6,
    )
    off = run_redteam(
        ["request-flood"], workspace=tmp_path / "off", suite_limits=unbounded
    ).findings[0]
    assert off.verdict == "broken"
    assert "requests a second served to one attempt" in off.evidence or "stayed 0" in off.evidence


def test_without_a_sandbox_a_forged_record_stops_the_run_and_is_reported(tmp_path: Path) -> None:
    result = run_redteam(["forged-record"], isolation="none", workspace=tmp_path / "workspace")
    verdicts = {f.name: f for f in result.findings}
    assert verdicts["forged-record"].verdict == "broken"
    assert verdicts["records intact"].verdict == "broken"
    # Caught when the harness writes its own record, or when the report reads them: either way
    # no report is made from a file holding a record the harness did not write.
    assert re.search("already recorded|duplicate record", verdicts["records intact"].evidence)


def test_an_unknown_attack_is_a_clear_error() -> None:
    with pytest.raises(EndstateError, match="--attack 'telepathy': unknown"):
        run_redteam(["telepathy"])


def test_the_output_attacks_break_a_naive_reader_and_not_the_harness() -> None:
    """Each final line really breaks reading it the plain way (decode, write as UTF-8, keep the
    number), which is what the harness did before its reading became total; the harness reads
    every one without raising and names each repair."""
    sys.path.insert(0, str(Path(redteam.__file__).parent))
    try:
        hostile_output = importlib.import_module("hostile_output")
    finally:
        sys.path.pop(0)
    with pytest.raises(UnicodeEncodeError):
        json.dumps(json.loads(hostile_output.SURROGATE_LINE), ensure_ascii=False).encode()
    with pytest.raises(ValueError, match="4300 digits"):
        json.loads(hostile_output.DIGITS_LINE)
    assert math.isinf(json.loads(hostile_output.INFINITE_LINE)["steps"])
    assert json.loads(hostile_output.HUGE_LINE)["steps"] > 2**63  # no Parquet int64 holds it
    for line in (
        hostile_output.SURROGATE_LINE,
        hostile_output.DIGITS_LINE,
        hostile_output.INFINITE_LINE,
        hostile_output.HUGE_LINE,
    ):
        final = read_final_line(line)
        assert final.problems and 0 <= final.steps <= 10**6


@requires_sandbox
def test_the_viewer_text_attack_holds_and_breaks_an_escape_only_page(tmp_path: Path) -> None:
    result = run_redteam(["viewer-text"], workspace=tmp_path / "workspace")
    verdicts = {f.name: f for f in result.findings}
    assert verdicts["viewer-text"].verdict == "held", verdicts["viewer-text"].evidence
    assert "U+202E" in verdicts["viewer-text"].evidence
    assert result.run_dir is not None
    (record,) = [
        r for r in RunStore(result.run_dir).read_records() if r.task_id == "rt-viewer-text"
    ]
    message = record.facts.final_message if record.facts else None
    assert message is not None and "\u202e" in message and "\x1b" in message  # held raw
    planted = hidden(message)
    # The viewer as it was: HTML escaping alone. The same judgement finds the attack broken.
    before = page_problems(f"<dd>{html.escape(message)}</dd>", planted, "the page")
    assert before[0].startswith("the page holds raw U+0000, U+0007, U+001B")
    assert "does not show U+202E" in before[1]
    # The viewer now: the same message through its templates' finalize, then escaped.
    after = page_problems(f"<dd>{html.escape(for_template(message))}</dd>", planted, "the page")
    assert after == []


def _plainly_unusable(raw: bytes) -> bool:
    """Whether the plain reading fails on a body: decode it, store its strings in SQLite and
    serve it back as strict JSON (what the scheduling service did before its gate)."""
    try:
        body = json.loads(raw)
        text = json.dumps(body, allow_nan=False)
        json.dumps(body, ensure_ascii=False).encode()
        if re.search(r"\d{20}", text):  # no SQLite INTEGER holds it
            return True
    except (ValueError, RecursionError):
        return True
    return len(raw) > TOOL_CALL_BYTES


@requires_sandbox
def test_the_tool_argument_attack_holds_and_breaks_a_plain_reader(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(redteam.__file__).parent))
    try:
        hostile_tools = importlib.import_module("hostile_tools")
    finally:
        sys.path.pop(0)
    # Every body really is one the plain reading cannot use; MCP's own decoder takes these.
    assert all(_plainly_unusable(raw) for _what, raw in hostile_tools.BODIES)
    assert all(_plainly_unusable(b'{"a": %s}' % a) for _w, a in hostile_tools.MCP_ARGUMENTS)
    held = run_redteam(["tool-arguments"], workspace=tmp_path / "on").findings[0]
    assert held.verdict == "held", held.evidence
    assert "tool calls refused: 12 of 12" in held.evidence


def test_an_attempt_folder_past_its_bound_is_found(tmp_path: Path) -> None:
    attempt = tmp_path / "traces" / "rt-exhaustion" / "1"
    attempt.mkdir(parents=True)
    (attempt / "agent.stdout.txt").write_bytes(b"x" * 4096)
    (attempt / "end_state.json").write_bytes(b"{}")
    assert oversized(tmp_path, bound=8192)[0] is None
    (attempt / "agent.stderr.txt").write_bytes(b"y" * 8192)
    problem, _ = oversized(tmp_path, bound=8192)
    assert problem is not None and "rt-exhaustion/1: 12,290 bytes" in problem
    # As shipped: each file's own bound, summed (docs/trust-boundary.md states the figure).
    mib = 1024 * 1024
    assert attempt_bytes() == (2 + 8 + 32 + 1) * mib + 6 * 1_000_000 + 20_000_000


def test_an_end_state_past_the_suites_bounds_is_found(tmp_path: Path) -> None:
    attempt = tmp_path / "traces" / "rt-request-flood" / "1"
    attempt.mkdir(parents=True)
    (attempt / "end_state.json").write_text(json.dumps({"events": [{"kind": "page"}] * 3}))
    assert episode_footprint(tmp_path, "rt-request-flood", SuiteLimits(events=3))[0] is None
    problem, seen = episode_footprint(tmp_path, "rt-request-flood", SuiteLimits(events=2))
    assert problem == "its end state keeps 3 events (bound 2)"
    assert "3 events kept" in seen
    small = SuiteLimits(state_document_bytes=16)
    assert "bytes (bound 16)" in str(episode_footprint(tmp_path, "rt-request-flood", small)[0])
