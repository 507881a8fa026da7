"""Weakenings of the trust boundary travel with the scores: report, baseline, compare, gate,
viewer, exports — on real runs of one command agent, sandboxed and then with --isolation none.

The two runs differ only in isolation: the same command, the same configuration, the same
score. Before weakenings were recorded, `compare` said "nothing else differs" between them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from endstate.boundary import AGENT_NOT_ISOLATED, BROWSER_SANDBOX_OFF, WEAKENING_IDS
from endstate.runs.store import RunStore
from endstate.sandbox.platform import probe
from viewer.conftest import Viewer

from .conftest import clear_task, referral_id

ENDSTATE = Path(sys.executable).with_name("endstate")
# What the agent says: a bidi override that reverses a file name, isolates and marks, a
# zero-width space, a terminal escape, NUL, BEL, a C1 control and markup that closes a script.
HOSTILE = (
    "invoice\u202efdp.exe \u2066iso\u2069 \u200fmark\u061c zero\u200bwidth "
    "\x1b[2J bell\x07 nul\x00 c1\x85 </script><script>window.__es_pwned=1</script>"
)
PLANTED = ("U+202E", "U+2066", "U+2069", "U+200F", "U+061C", "U+200B", "U+001B", "U+0007")
GATES = """\
gates:
  - metric: weakenings
    max: 0
  - metric: no_regression
    baseline: contained
"""

requires_sandbox = pytest.mark.skipif(
    not probe().available and not os.environ.get("ENDSTATE_REQUIRE_SANDBOX"),
    reason=f"no sandbox on this machine: {probe().reason}",
)
pytestmark = requires_sandbox


def _cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ENDSTATE), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
        env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"},
    )


@dataclass(frozen=True)
class Runs:
    cwd: Path  # where `.endstate/baselines` lives
    contained: Path  # --isolation sandbox
    unsandboxed: Path  # --isolation none, gates declared

    def unsandboxed_ids(self) -> list[str]:
        """What the unsandboxed run must disclose: not isolated, and, where its records say
        Chromium's own sandbox was off (it is, as root), that too."""
        records = RunStore(self.unsandboxed).read_records()
        off = any(
            (r.facts.sandbox.browser_sandbox or "").startswith("off")
            for r in records
            if r.facts and r.facts.sandbox
        )
        return [AGENT_NOT_ISOLATED] + ([BROWSER_SANDBOX_OFF] if off else [])


def _contained_ids() -> list[str]:
    """A sandboxed run is whole when the harness is root (a dedicated uid per attempt)."""
    return [] if os.geteuid() == 0 else ["agent-shares-harness-uid"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    base = tmp_path_factory.mktemp("boundary")
    corpus = base / "corpus" / "prior_auth"
    corpus.mkdir(parents=True)
    (corpus / "pa-easy-1.json").write_text(json.dumps(clear_task("pa-easy-1", referral_id())))
    agent = base / "agent"  # readable by the sandbox's own uid (the base folder is 0700)
    agent.mkdir(mode=0o755)
    (agent / "agent.py").write_text(
        "import json, sys\n"
        "sys.stdin.readline()\n"
        f"sys.stderr.buffer.write({HOSTILE!r}.encode() + b'\\n')\n"
        f"sys.stdout.buffer.write(('thinking ' + {HOSTILE!r}).encode() + b'\\n')\n"
        f"print(json.dumps({{'claim': 'done', 'message': {HOSTILE!r}}}), flush=True)\n"
    )
    spec = f"command:{sys.executable} {agent / 'agent.py'}"
    made = []
    for isolation in ("sandbox", "none"):
        out = base / f"runs-{isolation}"
        extra: list[str | Path] = []
        if isolation == "none":
            (base / "gates.yaml").write_text(GATES)
            extra = ["--gates", base / "gates.yaml"]
        proc = _cli("run", "--corpus", corpus.parent, "--agent", spec, "--isolation", isolation,
                    "--out", out, *extra, cwd=base)  # fmt: skip
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        (run_dir,) = out.iterdir()
        made.append(run_dir)
        if isolation == "sandbox":
            frozen = _cli("baseline", "freeze", run_dir, "--name", "contained", cwd=base)
            assert frozen.returncode == 0, frozen.stderr
    return Runs(base, made[0], made[1])


def test_the_report_states_every_weakening_in_its_title_and_disclosure(runs: Runs) -> None:
    report = (runs.unsandboxed / "report.txt").read_text()
    title = report.splitlines()[0]
    assert "NOT ISOLATED: the agent ran unsandboxed" in title
    assert ("BROWSER SANDBOX OFF in 1 of 1 attempt(s)" in title) == (
        BROWSER_SANDBOX_OFF in runs.unsandboxed_ids()
    )
    weakened = f"BOUNDARY WEAKENED ({len(runs.unsandboxed_ids())}): agent-not-isolated — "
    assert weakened in report
    contained = (runs.contained / "report.txt").read_text()
    if not _contained_ids():
        assert "boundary weakenings: none (the trust boundary was whole)" in contained
        assert "WEAKENED" not in contained and "NOT ISOLATED" not in contained
    # The agent's message never reaches the report raw (it holds no agent text beyond claims).
    for text in (report, (runs.unsandboxed / "report.html").read_text()):
        assert "\u202e" not in text and "\x1b" not in text and "\x00" not in text


def test_compare_names_a_difference_in_weakenings_where_nothing_else_differs(runs: Runs) -> None:
    ids = ", ".join(runs.unsandboxed_ids())
    for how in (["--against", runs.contained], ["--baseline", "contained"]):
        proc = _cli("compare", runs.unsandboxed, *how, cwd=runs.cwd)
        assert proc.returncode == 0, proc.stdout + proc.stderr  # the same score: no change
        lines = proc.stdout.splitlines()
        assert lines[1] == "Verdict: NO CHANGE — no task regressed or improved"
        contained = ", ".join(_contained_ids()) or "none"
        assert lines[2] == f"Boundary: WEAKENED — baseline: {contained}; run: {ids}"
        assert f"  compared: boundary weakenings: baseline {contained}, run {ids}" in lines
        assert "nothing else differs" not in proc.stdout
        assert any(line.startswith("  run boundary: agent-not-isolated — ") for line in lines)
    same = _cli("compare", runs.contained, "--baseline", "contained", cwd=runs.cwd)
    assert same.returncode == 0 and "nothing else differs" in same.stdout
    if not _contained_ids():
        assert same.stdout.splitlines()[2] == (
            "Boundary: whole on both sides (no weakening of the trust boundary)"
        )


def test_a_frozen_baseline_keeps_its_weakenings_and_an_older_one_reads_as_unknown(
    runs: Runs,
) -> None:
    folder = runs.cwd / "older"
    frozen = _cli("baseline", "freeze", runs.unsandboxed, "--name", "open",
                  "--baselines", folder, cwd=runs.cwd)  # fmt: skip
    assert frozen.returncode == 0, frozen.stderr
    assert f"boundary WEAKENED: {', '.join(runs.unsandboxed_ids())}" in frozen.stdout
    listed = _cli("baseline", "list", "--baselines", folder, cwd=runs.cwd)
    assert "agent-not-isolated" in listed.stdout
    stored = json.loads((folder / "open.json").read_text())
    pins = stored["baseline"]["sheet"]["pins"]
    assert [w["id"] for w in pins["weakenings"]] == runs.unsandboxed_ids()
    assert all(w["id"] in WEAKENING_IDS and w["text"] for w in pins["weakenings"])
    against = _cli("compare", runs.contained, "--baseline", "open", "--baselines", folder,
                   cwd=runs.cwd)  # fmt: skip
    contained = ", ".join(_contained_ids()) or "none"
    assert f"baseline: {', '.join(runs.unsandboxed_ids())}; run: {contained}" in against.stdout

    # A baseline frozen before weakenings were recorded: no `weakenings`, its own hash. It
    # still verifies, and the comparison says the baseline's boundary is not known.
    del pins["weakenings"]
    canonical = json.dumps(stored["baseline"], sort_keys=True, separators=(",", ":")).encode()
    stored["sha256"] = hashlib.sha256(canonical).hexdigest()
    old = folder / "before.json"
    old.write_text(json.dumps(stored))
    proc = _cli("compare", runs.unsandboxed, "--baseline", "before", "--baselines", folder,
                cwd=runs.cwd)  # fmt: skip
    assert "edited" not in proc.stderr, proc.stderr
    assert "baseline: not recorded (frozen before endstate recorded them)" in proc.stdout
    assert "compared: boundary weakenings: baseline not recorded" in proc.stdout


def test_gate_output_states_the_boundary_and_a_gate_can_require_none(runs: Runs) -> None:
    ids = ", ".join(runs.unsandboxed_ids())
    proc = _cli("gate", runs.unsandboxed, cwd=runs.cwd)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Gates: 1 of 2 passed — 1 FAILED" in proc.stdout
    assert f"FAIL  boundary weakenings ≤ 0: {ids}" in proc.stdout
    assert (
        "pass  no regression against contained: no change; boundary weakenings: baseline "
        f"{', '.join(_contained_ids()) or 'none'}, run {ids}"
    ) in proc.stdout
    assert f"  boundary WEAKENED: {ids} (see the report's disclosure" in proc.stdout
    assert f"FAIL  boundary weakenings ≤ 0: {ids}" in (runs.unsandboxed / "report.txt").read_text()


def test_a_weakenings_gate_scoped_to_a_family_is_refused_before_the_run(tmp_path: Path) -> None:
    gates = tmp_path / "gates.yaml"
    gates.write_text("gates:\n  - metric: weakenings\n    max: 0\n    family: prior_auth\n")
    proc = _cli("run", "--agent", "null", "--gates", gates, "--out", tmp_path / "runs",
                cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 1
    assert "gates.0: Value error, weakenings are the whole run's: no `family` or `tier`" in (
        proc.stderr
    )
    assert not (tmp_path / "runs").exists()


def _fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as reply:
        assert reply.status == 200
        return str(reply.read().decode("utf-8"))


def _assert_shown_not_raw(html: str) -> None:
    for code in PLANTED:
        assert f"&lt;{code}&gt;" in html, code  # made visible, never dropped
        assert chr(int(code[2:], 16)) not in html, code  # and never raw
    assert "\x00" not in html and "&lt;U+0000&gt;" in html
    assert "<script>window.__es_pwned" not in html
    assert "&lt;/script&gt;&lt;script&gt;window.__es_pwned=1" in html


def test_the_viewer_shows_the_weakenings_and_the_agents_hidden_characters_as_escapes(
    runs: Runs, tmp_path: Path
) -> None:
    # A copy whose trace also holds what a hostile agent can leave in a trace file on disk:
    # a lone surrogate (`"\ud800"` in the JSON), in its final word and its end state.
    copy = tmp_path / "run"
    shutil.copytree(runs.unsandboxed, copy)
    trace = copy / "traces" / "pa-easy-1" / "1"
    final = json.loads((trace / "final.json").read_text())
    (trace / "final.json").write_text(json.dumps({**final, "note": "lone \ud800 half"}))
    state = json.loads((trace / "end_state.json").read_text())
    (trace / "end_state.json").write_text(json.dumps({**state, "typed": "x\ud83d\u202ey"}))
    (trace / os.fsdecode(b"download-\xff\xe2\x80\xae.txt")).write_text("a name not UTF-8")
    served = Viewer(copy)
    try:
        page = _fetch(served.url + "attempts/pa-easy-1/1")
        run_page = _fetch(served.url)
    finally:
        served.stop()
    for html in (page, run_page):
        assert 'class="boundary weakened" id="boundary"' in html
        for weakening in runs.unsandboxed_ids():
            assert f'data-weakening="{weakening}"' in html
        assert "NOT ISOLATED: the agent ran unsandboxed" in html
    assert "This attempt was made with part of the trust boundary off" in page
    _assert_shown_not_raw(page)
    message = re.search(r'<dd class="pre" id="final-message">(.*?)</dd>', page, re.S)
    outputs = re.findall(r'<pre class="output">(.*?)</pre>', page, re.S)
    assert message is not None and len(outputs) == 2  # stdout and stderr, shown inline
    for shown in (message.group(1), *outputs):
        assert "invoice&lt;U+202E&gt;fdp.exe" in shown and "&lt;U+001B&gt;[2J" in shown
    assert outputs[0].startswith("thinking invoice")
    assert "lone &lt;U+D800&gt; half" in page and "x&lt;U+D83D&gt;&lt;U+202E&gt;y" in page
    assert '<a href="/files/traces/pa-easy-1/1/download-%FF%E2%80%AE.txt">' in page
    assert "download-&lt;U+DCFF&gt;&lt;U+202E&gt;.txt</a>" in page

    contained = Viewer(runs.contained)
    try:
        whole = _fetch(contained.url + "attempts/pa-easy-1/1")
    finally:
        contained.stop()
    _assert_shown_not_raw(whole)
    if not _contained_ids():
        assert "Trust boundary whole: no weakening recorded for this attempt." in whole
        assert "data-weakening" not in whole


def test_exports_carry_the_weakenings(runs: Runs, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    ids = runs.unsandboxed_ids()
    rows = tmp_path / "rows.parquet"
    log = tmp_path / "log.json"
    for fmt, out in (("parquet", rows), ("inspect", log)):
        proc = _cli("export", runs.unsandboxed, "--format", fmt, "--out", out, cwd=runs.cwd)
        assert proc.returncode == 0, proc.stderr
    table = pq.read_table(rows)
    assert table.column("weakenings").to_pylist() == [ids]
    meta = json.loads(table.schema.metadata[b"endstate.weakenings"])
    assert [w["id"] for w in meta] == ids
    data = json.loads(log.read_text())
    assert [w["id"] for w in data["eval"]["metadata"]["weakenings"]] == ids
    assert "boundary-weakened" in data["eval"]["tags"]
    (sample,) = data["samples"]
    assert sample["metadata"]["weakenings"] == ids
    whole = tmp_path / "whole.parquet"
    proc = _cli("export", runs.contained, "--format", "parquet", "--out", whole, cwd=runs.cwd)
    assert proc.returncode == 0, proc.stderr
    assert pq.read_table(whole).column("weakenings").to_pylist() == [_contained_ids()]
