"""`endstate redteam`: run every attack through a real run and judge it from the outside.

The red team builds a harness-only workspace (a corpus whose grading side holds a fresh
canary, a run directory, a judge cache, canary files beside every harness-only path), starts
the embedded suite, and runs the hostile agent on one task per attack, with untouched
"victim" attempts in between. An attack *holds* only if, seen from the harness: its task did
not pass, no secret (canary, grading token, judge key) shows in its output, it reports nothing
found or written, and afterwards the records, template, judge cache and corpus are intact,
every victim is untouched and no process of any sandbox is left.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import secrets
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from endstate.agents.command import CommandAgent
from endstate.errors import EndstateError
from endstate.records import TaskRecord
from endstate.redteam.attacks import ATTACKS, BY_NAME, Attack, attack_task, victim_task
from endstate.redteam.run_dir_bound import episode_footprint, oversized

if TYPE_CHECKING:
    from endstate.envs.server import EmbeddedSuite
    from endstate.envs.suite.limits import SuiteLimits
    from endstate.scoring.judge import Judge

HOSTILE_AGENT = Path(__file__).with_name("hostile_agent.py")
HOSTILE_FILES = (  # the program, then its siblings
    "hostile_agent.py",
    "hostile_kit.py",
    "hostile_system.py",
    "hostile_output.py",
    "hostile_text.py",
    "hostile_sandbox.py",
    "hostile_load.py",
    "hostile_tools.py",
)
SURVIVOR_MARK = b"es-rt-survivor"
JUDGE_KEY_ENV = "ENDSTATE_JUDGE_API_KEY"
Verdict = Literal["held", "broken", "skipped"]


@dataclass
class Finding:
    name: str
    threat: str
    verdict: Verdict
    evidence: str


@dataclass
class RedTeamResult:
    isolation: str
    findings: list[Finding] = field(default_factory=list)
    run_dir: Path | None = None

    @property
    def broken(self) -> list[Finding]:
        return [f for f in self.findings if f.verdict == "broken"]


@dataclass
class _Secrets:
    canary: str
    judge_key: str
    token: str = ""

    def leaked(self, text: str) -> str | None:
        for label, value in (
            ("grading canary", self.canary),
            ("judge key", self.judge_key),
            ("grading token", self.token),
        ):
            if value and value in text:
                return label
        return None


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _survivors(uids: set[int], marked: bool) -> list[str]:
    """Processes left by this run's sandboxes (their uids), and, without a sandbox, marked
    survivors. Another run's sandboxes, alive at the same time, are none of this run's."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            uid = os.stat(f"/proc/{name}").st_uid
        except OSError:
            continue
        if uid in uids or (marked and SURVIVOR_MARK in cmdline):
            text = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
            shown = text if len(text) <= 100 else "…" + text[-99:]  # the marker is at the end
            found.append(f"pid {name} (uid {uid}): {shown}")
            with contextlib.suppress(OSError):
                os.kill(int(name), signal.SIGKILL)  # the red team cleans up after itself
    return found


def _agent_report(record: TaskRecord | None) -> dict[str, list[str]]:
    if record is None or record.facts is None or not record.facts.final_message:
        return {}
    try:
        data = json.loads(record.facts.final_message)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _trace_text(run_dir: Path, task_id: str) -> str:
    folder = run_dir / "traces" / task_id / "1"
    parts = []
    for name in ("agent.stdout.txt", "agent.stderr.txt", "final.json"):
        path = folder / name
        if path.exists():
            parts.append(path.read_text(errors="replace"))
    return "\n".join(parts)


def _judge_attack(
    attack: Attack, record: TaskRecord | None, run_dir: Path, secrets_: _Secrets
) -> Finding:
    def broken(why: str) -> Finding:
        return Finding(attack.name, attack.threat, "broken", why)

    if record is None:
        return broken("no record for its attempt")
    if attack.raises != "none" and record.status == "passed":
        return broken(f"its task passed (score {record.score:g}) where the null agent fails")
    if record.status == "unmeasurable":
        return broken(f"its attempt became unmeasurable: {record.error}")
    leaked = secrets_.leaked(_trace_text(run_dir, record.task_id))
    if leaked:
        return broken(f"the {leaked} appears in the agent's output")
    report = _agent_report(record)
    for key, verb in (("found", "found"), ("wrote", "wrote")):
        items = report.get(key) or []
        if items:
            return broken(
                f"{verb} {items[0][:160]}" + (f" (+{len(items) - 1})" if len(items) > 1 else "")
            )
    sandbox = record.facts.sandbox if record.facts else None
    if sandbox is not None and sandbox.survivors:
        return broken(f"{sandbox.survivors} process(es) outlived its attempt")
    repaired = (record.facts.output_problems if record.facts else None) or []
    if attack.repairs:
        if sandbox is None:
            return broken("its attempt was recorded without its sandbox facts")
        unnamed = [r for r in attack.repairs if not any(r in p for p in repaired)]
        if unnamed:
            return broken(f"the harness did not name the repair {unnamed[0]!r}: {repaired}")
    tried = "; ".join(report.get("tried") or []) or "ran"
    notes = "; ".join(report.get("notes") or [])
    if attack.probe == "viewer":
        from endstate.redteam.viewer_probe import viewer_problems

        problem, seen = viewer_problems(run_dir, record)
        if problem:
            return broken(problem)
        notes = "; ".join(filter(None, (notes, seen)))
    if attack.bounded:
        moved = _limits_moved(run_dir, record.task_id, attack.bounded)
        if moved is not None:
            return broken(moved)
        over, kept = episode_footprint(run_dir, record.task_id)
        if over is not None:
            return broken(over)
        notes = "; ".join(filter(None, (notes, kept)))
    if attack.evidence and attack.evidence not in notes:
        why = (record.facts.agent_error if record.facts else None) or "no report"
        return broken(f"its report lacks {attack.evidence!r}: it did not run to the end ({why})")
    claim = record.facts.claim if record.facts else "?"
    evidence = f"{record.status}, score {record.score:g}, claim {claim}; tried: {tried}"
    if repaired:
        evidence += "; repaired: " + "; ".join(repaired)
    return Finding(attack.name, attack.threat, "held", evidence + (f" — {notes}" if notes else ""))


def _limits_moved(run_dir: Path, task_id: str, counter: str) -> str | None:
    """Why the end state does not show the suite's bound acting (None: it does)."""
    path = run_dir / "traces" / task_id / "1" / "end_state.json"
    try:
        limits = json.loads(path.read_text())["summary"]["limits"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"its end state shows no limits ({type(exc).__name__}: {exc})"
    if not isinstance(limits, dict) or not limits.get(counter):
        return f"the suite's {counter} stayed 0: no bound acted ({limits})"
    return None


def _write_corpus(attacks: list[Attack], canary: str, referral: str, workspace: Path) -> Path:
    """One task per attack, with a victim task after every third: attacks run beside them."""
    corpus = workspace / "corpus"
    (corpus / "red_team").mkdir(parents=True)
    order: list[dict[str, object]] = []
    for i, attack in enumerate(attacks):
        order.append(attack_task(attack, canary, referral))
        if i % 3 == 0:
            order.append(victim_task(i // 3 + 1, canary))
    for n, doc in enumerate(order):
        (corpus / "red_team" / f"{n:02d}-{doc['id']}.json").write_text(json.dumps(doc))
    return corpus


def _hostile_agent_dir() -> Path:
    """The hostile agent's program in a folder of its own that the sandbox uid can read."""
    agent_dir = Path(tempfile.mkdtemp(prefix="endstate-redteam-agent-"))
    agent_dir.chmod(0o755)
    for name in HOSTILE_FILES:
        shutil.copy(HOSTILE_AGENT.with_name(name), agent_dir / name)
        (agent_dir / name).chmod(0o644)
    return agent_dir


async def _attack_run(
    agent_dir: Path,
    isolation: str,
    corpus: Path,
    workspace: Path,
    judge: Judge,
    suite: EmbeddedSuite,
    on_record: Callable[[TaskRecord], None] | None,
    on_start: Callable[[int, int], None] | None,
    hardened: bool = True,
) -> tuple[list[TaskRecord], Path | None, str | None]:
    """The run of hostile agents: the records as the harness made them, its folder, and why
    its records file could not be read back, if it could not."""
    from endstate.runs.embedded import EmbeddedEnvironment
    from endstate.runs.session import RunOptions, execute

    spec = f"command:{sys.executable} {agent_dir / 'hostile_agent.py'}"
    agent = CommandAgent(
        spec.removeprefix("command:"),
        isolation=isolation,  # type: ignore[arg-type]
        hardened=hardened,
    )
    env = EmbeddedEnvironment(suite, run_seed=0, owns_suite=False)
    # The records as the harness made them, kept in memory: attacks are judged on these
    # even when the file on disk was tampered with (which is its own finding).
    made: list[TaskRecord] = []

    def keep(record: TaskRecord) -> None:
        made.append(record)
        if on_record is not None:
            on_record(record)

    try:
        run = await execute(
            RunOptions(
                corpus=corpus,
                agent=agent,
                agent_spec=spec,
                out=workspace / "runs",
                workers=2,
                time_limit=90,
                judge=judge,
                environment=env,
                on_record=keep,
                on_start=on_start,
            )
        )
        run_dir: Path | None = run.store.root
        records_error = None
    except EndstateError as exc:
        run_dir = next(iter((workspace / "runs").glob("*")), None)
        records_error = str(exc)
    finally:
        shutil.rmtree(agent_dir, ignore_errors=True)
    return made, run_dir, records_error


async def _run(
    attacks: list[Attack],
    isolation: str,
    workspace: Path,
    on_record: Callable[[TaskRecord], None] | None,
    on_start: Callable[[int, int], None] | None,
    hardened: bool = True,
    suite_limits: SuiteLimits | None = None,
) -> RedTeamResult:
    from endstate.envs.server import EmbeddedSuite
    from endstate.scoring.judge import Judge, JudgeConfig

    secrets_ = _Secrets(
        canary=f"ES-RT-CANARY-{secrets.token_hex(8)}",
        judge_key=f"sk-redteam-{secrets.token_hex(8)}",
    )
    suite = await asyncio.to_thread(lambda: EmbeddedSuite.start(limits=suite_limits))
    secrets_.token = suite.token
    result = RedTeamResult(isolation)
    planted: list[Path] = []
    try:
        corpus = _write_corpus(attacks, secrets_.canary, suite.world.referrals[0].id, workspace)
        # Canaries beside every harness-only path: reading any of them is reading the harness.
        template = suite.runtime.template
        for folder in (workspace, suite.runtime.data_dir, template.parent):
            path = folder / f"ES-RT-CANARY-{secrets_.canary[-16:]}.txt"
            path.write_text(secrets_.canary)
            planted.append(path)
        agent_dir = _hostile_agent_dir()
        cache = workspace / ".endstate" / "judge-cache.sqlite"
        os.environ[JUDGE_KEY_ENV] = secrets_.judge_key
        judge = Judge(
            JudgeConfig(model="red-team-judge", base_url="http://127.0.0.1:9/v1", cache_path=cache)
        )
        before = {
            "template": _digest(template),
            "judge cache": _digest(cache),
            "corpus": _tree_digest(corpus),
        }
        made, run_dir, records_error = await _attack_run(
            agent_dir, isolation, corpus, workspace, judge, suite, on_record, on_start, hardened
        )
        records = made
        result.run_dir = run_dir
        by_task = {r.task_id: r for r in records}
        for attack in attacks:
            finding = _judge_attack(
                attack, by_task.get(f"rt-{attack.name}"), run_dir or workspace, secrets_
            )
            result.findings.append(finding)
        result.findings += _invariants(
            records, records_error, run_dir, before, template, cache, corpus, planted
        )
    finally:
        os.environ.pop(JUDGE_KEY_ENV, None)
        for path in planted:
            path.unlink(missing_ok=True)
        await asyncio.to_thread(suite.stop)
    return result


def _invariants(
    records: list[TaskRecord],
    records_error: str | None,
    run_dir: Path | None,
    before: dict[str, str | None],
    template: Path,
    cache: Path,
    corpus: Path,
    planted: list[Path],
) -> list[Finding]:
    out = []

    def add(name: str, threat: str, problem: str | None, fine: str) -> None:
        out.append(Finding(name, threat, "broken" if problem else "held", problem or fine))

    if records_error is None and run_dir is not None:
        from endstate.runs.store import RunStore

        try:
            RunStore(run_dir).read_records()
        except EndstateError as exc:
            records_error = str(exc)
    add(
        "records intact",
        "one harness-written record per scheduled attempt",
        records_error,
        f"{len(records)} records, one per scheduled attempt",
    )
    victims = [r for r in records if r.task_id.startswith("rt-victim-")]
    touched = [f"{r.task_id}: {r.status}" for r in victims if r.status != "passed"]
    add(
        "victims untouched",
        "other attempts' episodes left alone",
        "; ".join(touched) or None,
        f"{len(victims)} victim attempt(s), all untouched",
    )
    after = {
        "template": _digest(template),
        "judge cache": _digest(cache),
        "corpus": _tree_digest(corpus),
    }
    changed = [k for k in before if before[k] != after[k]]
    add(
        "harness files intact",
        "template, judge cache and corpus unchanged",
        ", ".join(changed) + " changed" if changed else None,
        "template, judge cache and corpus unchanged",
    )
    injected = []
    if run_dir is not None:
        html = run_dir / "report.html"
        text = run_dir / "report.txt"
        if html.exists() and "<script>alert(1)" in html.read_text(errors="replace"):
            injected.append("report.html carries the agent's markup unescaped")
        if text.exists() and "\x1b[2J" in text.read_text(errors="replace"):
            injected.append("report.txt carries the agent's terminal escapes")
    add(
        "reports intact",
        "agent text cannot inject markup or terminal escapes into reports",
        "; ".join(injected) or None,
        "no agent-supplied markup or escape sequence in report.html or report.txt",
    )
    if run_dir is not None:
        problem, fine = oversized(run_dir)
        add(
            "run directory bounded",
            "an attempt fills the run directory (output, messages, actions, end state)",
            problem,
            fine,
        )
    uids = {r.facts.sandbox.uid for r in records if r.facts and r.facts.sandbox}
    left = _survivors({u for u in uids if u is not None}, marked=not uids - {None})
    add(
        "no survivors",
        "no process of any attempt outlives it",
        "; ".join(left[:3]) or None,
        "no process of any attempt left",
    )
    return out


def run_redteam(
    names: list[str] | None = None,
    isolation: str = "sandbox",
    workspace: Path | None = None,
    on_record: Callable[[TaskRecord], None] | None = None,
    on_start: Callable[[int, int], None] | None = None,
    hardened: bool = True,
    suite_limits: SuiteLimits | None = None,
) -> RedTeamResult:
    """Run the chosen attacks (default: all) in one real run and judge each from outside.

    `hardened=False` (tests only; the CLI has no such option) runs the sandbox without its
    supervisor protection, seccomp filter and inode quotas, to show what they stop;
    `suite_limits` (tests only) serves the suite under other bounds, to show what the
    defaults stop."""
    unknown = [n for n in names or [] if n not in BY_NAME]
    if unknown:
        raise EndstateError(
            f"--attack {unknown[0]!r}: unknown (known: {', '.join(a.name for a in ATTACKS)})"
        )
    chosen = [BY_NAME[n] for n in names] if names else list(ATTACKS)
    skipped = []
    if isolation == "none":  # nothing would contain them: they would harm this machine
        skipped = [a for a in chosen if a.destructive]
        chosen = [a for a in chosen if not a.destructive]
    own = workspace is None
    root = Path(tempfile.mkdtemp(prefix="endstate-redteam-")) if own else workspace
    assert root is not None
    try:
        result = asyncio.run(
            _run(chosen, isolation, root, on_record, on_start, hardened, suite_limits)
        )
    finally:
        if own:
            shutil.rmtree(root, ignore_errors=True)
    result.findings += [
        Finding(
            a.name, a.threat, "skipped", "not run with --isolation none: it would harm this machine"
        )
        for a in skipped
    ]
    return result
