"""The nine disclosure items a reader needs to compare results (DESIGN §1.10)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel

from endstate.agent_build import describe_build
from endstate.boundary import agent_writable_state, boundary_weakenings, weakenings_text
from endstate.build import BuildInfo
from endstate.corpus.contamination import describe
from endstate.corpus.loader import Corpus
from endstate.manifest import DisclosureItem, Manifest
from endstate.records import NOT_RECORDED, JudgeIdentity, TaskRecord
from endstate.report.executors_text import execution_text, pins_text
from endstate.report.isolation_text import (
    agent_isolation_text,
    suite_limits_text,
    unmeasurable_reason,
)
from endstate.report.summary import JudgeStats, Summary, judge_stats

OFFLINE = "not applicable: offline scoring of supplied states"


class Disclosure(BaseModel):
    items: list[DisclosureItem]


def corpus_pin(corpus: Corpus) -> str:
    head = f"{corpus.name} ({len(corpus.tasks)} tasks), tree sha256 {corpus.tree_hash[:16]}…"
    if corpus.lock:
        return (
            f"{head}; vendored, lock verified (imported from {corpus.lock.source} "
            f"at {corpus.lock.imported_at})"
        )
    return f"{head}; not vendored: no lock file, hash computed at load"


def _rubric_checks(corpus: Corpus, records: list[TaskRecord]) -> int:
    in_scope = {r.task_id for r in records}
    return sum(
        c.type == "llm_judge" for t in corpus.tasks if t.id in in_scope for c in t.grading.checks
    )


def _rubric_in_manifest(manifest: Manifest) -> int:
    return sum(f.rubric_checks for f in manifest.task_facts.values())


def _count(n: float, noun: str) -> str:
    return f"{n:g} {noun}" + ("" if n == 1 else "s")


def _leg_tasks(records: list[TaskRecord], kind: str | None = None) -> int:
    """Tasks with errand leg verdicts in scope (of `kind`, read or write, when given)."""
    return len(
        {
            r.task_id
            for r in records
            for c in r.checks
            if c.leg_kind is not None and kind in (None, c.leg_kind)
        }
    )


def _errand_pass(records: list[TaskRecord]) -> str:
    """What a pass and a score mean for errands; empty when no errand legs are in scope."""
    n = _leg_tasks(records)
    if not n:
        return ""
    legs = [c for r in records for c in r.checks if c.leg_kind is not None]
    score = (
        "each leg is one check worth one point, so an errand's score is legs correct / legs"
        if all(c.points == 1 for c in legs)
        else "each leg is one check weighted by its points, so an errand's score is the points "
        "of its correct legs / the points of its legs"
    )
    return (
        f". Errands ({_count(n, 'task')}): {score}, and it passes only when every leg is "
        "correct (a set leg counts only at F1 = 1.0)"
    )


def _answer_contract(records: list[TaskRecord], lead: str) -> str:
    """The answer contract in the projection, named for the tasks with read legs, after
    `lead`; empty when no task in scope has read legs."""
    n = _leg_tasks(records, "read")
    if not n:
        return ""
    return (
        f"{lead}and, for the {_count(n, 'task')} with read legs, the answer contract "
        "(answer_fields: the keys to answer with and what each holds)"
    )


def judge_text(
    identity: JudgeIdentity | None, records: list[TaskRecord], rubric_in_scope: int = 0
) -> str:
    """`rubric_in_scope`: rubric checks the tasks hold, evaluated or not."""
    rubric = [c for r in records for c in r.checks if c.type == "llm_judge"]
    ungraded = [c for c in rubric if c.outcome == "ungraded"]
    if not rubric:
        if rubric_in_scope:
            return (
                f"{_count(rubric_in_scope, 'rubric check')} in scope, none evaluated (their "
                "attempts were unmeasurable or blocked), so no judge was asked"
            )
        return "no rubric checks in scope: no judge needed, and none could change a verdict"
    if identity is None:
        judged = {r.task_id for r in records if any(c.type == "llm_judge" for c in r.checks)}
        tasks = {r.task_id for r in records}
        judge = (
            f"no judge configured: {_count(len(ungraded), 'rubric verdict')} "
            f"({_count(sum(c.points for c in ungraded), 'point')}) left ungraded; their tasks are "
            f"flagged and cannot pass; a judge could still change {len(judged)} of "
            f"{_count(len(tasks), 'task')}, every other verdict is final without one"
        )
    else:
        stats = judge_stats(records)
        judge = (
            f"judge {identity.model} at {identity.endpoint}, prompt {identity.prompt_version}, "
            f"strict majority of k={identity.k} calls at temperature {identity.temperature:g}; "
            f"{stats.graded} of {_count(stats.verdicts, 'rubric verdict')} graded "
            f"({stats.graded - stats.cached} judged in this run, {stats.cached} replayed from "
            f"the authenticated verdict cache); {_count(stats.split, 'split vote')} (calls "
            f"disagreed); {_variance(stats)}; {_ungraded(stats)}"
        )
    return judge


def _variance(stats: JudgeStats) -> str:
    if not stats.rejudged:
        return "judge variance not re-measured: no verdict re-judged (--judge-rejudge N)"
    return (
        f"judge variance measured: {_count(stats.rejudged, 'verdict')} re-judged with fresh "
        f"calls (cache bypassed), {stats.flips} flipped ({stats.flip_rate:.1%})"
    )


def _ungraded(stats: JudgeStats) -> str:
    ungraded = stats.verdicts - stats.graded
    if not ungraded:
        return "none ungraded"
    reasons = list(stats.ungraded_reasons.items())
    shown = "; ".join(f"{n}× {reason}" for reason, n in reasons[:3])
    if len(reasons) > 3:
        shown += f"; {sum(n for _, n in reasons[3:])}× for other reasons"
    return f"{ungraded} ungraded, their tasks flagged ({shown})"


def replication_text(summary: Summary) -> str:
    rep = summary.replicates
    if rep is None:
        return "one attempt per task: no replicates, no reliability claim"
    dist = ", ".join(f"{tasks} task(s) × {n}" for n, tasks in rep.attempts_per_task.items())
    reliable = (
        f"{rep.reliable} task(s) reliable (passed all of ≥5 replicates)"
        if rep.reliable is not None
        else "no task has ≥5 replicates, so no reliability claim"
    )
    return f"attempts: {dist}; pass@1 {rep.pass_at_1:.1%}; {reliable}; never best-of-N"


def offline_disclosure(
    corpus: Corpus,
    records: list[TaskRecord],
    summary: Summary,
    states_dir: Path,
    build: BuildInfo,
    judge: JudgeIdentity | None,
    only_supplied: bool,
    unknown_files: list[Path],
    answers_dir: Path | None = None,
) -> Disclosure:
    reasons = Counter(
        "missing" if r.error and r.error.startswith("no state") else "unreadable"
        for r in records
        if r.status == "unmeasurable"
    )
    selection = (
        f"selection: restricted to the {summary.tasks} of {len(corpus.tasks)} corpus tasks "
        "that have state files"
        if only_supplied
        else "selection: none (every corpus task is in the denominator)"
    )
    unknown = (
        f"; {len(unknown_files)} state file(s) matched no task and were not scored: "
        + ", ".join(p.name for p in unknown_files[:5])
        + (" …" if len(unknown_files) > 5 else "")
        if unknown_files
        else ""
    )
    items = [
        ("corpus", "Corpus and pin", corpus_pin(corpus)),
        (
            "attempts",
            "Attempts and selection",
            f"{len(records)} records over {summary.tasks} tasks; headline uses each task's "
            f"first attempt; every supplied state was scored; {selection}",
        ),
        (
            "pass",
            "Pass semantics and denominator",
            "pass = score 1.0 with nothing ungraded (negative checks included); score = points "
            "earned / sum of check points; headline denominator = all "
            f"{summary.tasks} tasks in scope, unmeasurable and blocked counted as not passed"
            f"{_errand_pass(records)}",
        ),
        (
            "grading_access",
            "Could the system read the grading specification",
            f"{OFFLINE} (endstate did not run the system). Firewall: "
            f"{summary.tasks - summary.blocked} projection(s) verified in strict mode, "
            f"{summary.blocked} blocked. Projections include the scenario label, which can "
            f"suggest the outcome{_answer_contract(records, ', ')}",
        ),
        (
            "scoring_input",
            "Scoring input",
            _offline_scoring_input(records, states_dir, answers_dir),
        ),
        (
            "unmeasurable",
            "Unmeasurable tasks",
            f"{summary.unmeasurable} unmeasurable (missing {reasons['missing']}, unreadable "
            f"{reasons['unreadable']}), counted as zero in the headline{unknown}",
        ),
        ("isolation", "State isolation", OFFLINE),
        ("build", "Build", build.describe()),
        (
            "judge",
            "Judge variance and replication",
            f"{judge_text(judge, records, _rubric_checks(corpus, records))}; "
            f"{replication_text(summary)}",
        ),
    ]
    return Disclosure(items=[DisclosureItem(key=k, title=t, text=x) for k, t, x in items])


def interrupted_note(records: list[TaskRecord]) -> str:
    """For a report's first line: how much of the run was never recorded, if any."""
    missing = sum(r.error == NOT_RECORDED for r in records)
    return (
        f" — INTERRUPTED: {len(records) - missing} of {len(records)} attempts recorded"
        if missing
        else ""
    )


def _run_history(manifest: Manifest, records: list[TaskRecord]) -> str:
    missing = sum(r.error == NOT_RECORDED for r in records)
    parts = []
    if missing:
        parts.append(
            f"INTERRUPTED: {len(records) - missing} of {len(records)} scheduled attempts "
            f"recorded; the other {missing} count as unmeasurable"
        )
    resumed = getattr(manifest, "resumed_at", [])
    if resumed:
        parts.append(f"resumed {len(resumed)} time(s) ({', '.join(resumed)})")
    return "; " + "; ".join(parts) if parts else ""


def _run_pin(manifest: Manifest) -> str:
    corpus = manifest.corpus
    n = len(manifest.tasks)
    return (
        f"{corpus.name} ({n} task{'s' if n != 1 else ''} scheduled), "
        f"tree sha256 {corpus.tree_hash[:16]}…; "
        + ("vendored, lock verified" if corpus.vendored else "not vendored: no lock file")
        + (f"; {describe(manifest.contamination, n)}" if manifest.contamination else "")
    )


def _run_attempts(manifest: Manifest, records: list[TaskRecord]) -> str:
    selection = (
        f"selection: tasks matching {manifest.selection!r}"
        if manifest.selection
        else ("selection: none (every corpus task)")
    )
    mode = (
        f"VALIDATION run ({manifest.agent.kind} agent, which knows each answer in advance): "
        "not a capability score"
        if manifest.mode == "validation"
        else "scored run"
    )
    return (
        f"{mode}; {manifest.limits.attempts} attempt(s) per task, every scheduled attempt "
        f"counted (headline uses attempt 1 of each task; never best-of-N); {selection}"
        + _run_history(manifest, records)
    )


def _run_isolation(manifest: Manifest, records: list[TaskRecord]) -> str:
    env = manifest.environment
    return (
        "every attempt had a fresh episode (its own state); "
        + agent_isolation_text(manifest.isolation, records)
        + f"; {execution_text(manifest)}; "
        + (f"{bounded}; " if (bounded := suite_limits_text(env.details)) else "")
        + f"environment fingerprint {env.fingerprint[:16]}…"
        + (f", world {env.world_id} ({(env.world_hash or '')[:12]}…)" if env.world_id else "")
        + (f", clock pinned at {env.pinned_clock}" if env.pinned_clock else "")
        + f"; {weakenings_text(boundary_weakenings(manifest, records))}"
    )


def _state_store_text(manifest: Manifest) -> str:
    """Where the end state lived, when that was the agent's own browser."""
    details = manifest.environment.details
    if details.get("state_store") != "agent_browser":
        return ""
    if agent_writable_state(manifest):
        return (
            ". AGENT-WRITABLE STATE: the end state lived in the browser the agent drove (the "
            "portals' localStorage) and this agent could run script there "
            f"({manifest.agent.kind}, allowed with --allow-agent-writable-state): a score here "
            "cannot tell work done through the pages from a forged store"
        )
    return (
        ". The end state lived in the browser the agent drove (the portals' localStorage), "
        f"which script could write; this agent ({manifest.agent.kind}) acted only through "
        "endstate's action vocabulary, which has no script execution"
    )


def _offline_scoring_input(
    records: list[TaskRecord], states_dir: Path, answers_dir: Path | None
) -> str:
    reads = _leg_tasks(records, "read")
    if reads and answers_dir is not None:
        writes = _leg_tasks(records, "write")
        return (
            f"the state documents supplied in {states_dir} and, for {_count(reads, 'task')} "
            "with read legs, the named fields of one JSON object in the final messages "
            f"supplied in {answers_dir} (nothing else in them, no claims; a task without one "
            "had no answer)" + ("; write legs graded on the database delta only" if writes else "")
        )
    return (
        f"only the state documents supplied in {states_dir}; no agent messages or claims "
        f"were read{_offline_legs(records)}"
    )


def _offline_legs(records: list[TaskRecord]) -> str:
    """Offline without final messages: every read leg had no answer to grade."""
    reads = _leg_tasks(records, "read")
    writes = _leg_tasks(records, "write")
    if reads:
        text = (
            f", so the read legs of {_count(reads, 'task')} (fields of a JSON answer in the "
            "agent's final message) had no answer to grade and count as not correct"
        )
    else:
        text = ""
    return text + ("; write legs graded on the database delta only" if writes else "")


def _run_scoring_input(manifest: Manifest, records: list[TaskRecord]) -> str:
    claims = [r for r in records if r.facts is not None]
    false_success = sum(r.false_success for r in records)
    claimed = (
        f"({false_success} of {len(claims)} attempts claimed success without passing)"
        f"{_state_store_text(manifest)}"
    )
    source = f"the end state read back from the {manifest.environment.kind} environment"
    reads, writes = _leg_tasks(records, "read"), _leg_tasks(records, "write")
    if not reads and not writes:
        return (
            f"only {source} after each attempt; agent messages and claims recorded, never "
            f"scored {claimed}"
        )
    answer = (
        f" and, for {_count(reads, 'task')} with read legs, the named fields of one JSON object "
        "in the agent's final message (nothing else in the message, never a claim of success)"
        if reads
        else ""
    )
    delta = "; write legs graded on the database delta only" if writes else ""
    return (
        f"only {source} after each attempt{answer}{delta}; the rest of every agent message, "
        f"and every claim, recorded, never scored {claimed}"
    )


def run_disclosure(manifest: Manifest, records: list[TaskRecord], summary: Summary) -> Disclosure:
    """Disclosure for a run endstate executed itself, filled from its manifest and records."""
    reasons = Counter(unmeasurable_reason(r) for r in records if r.status == "unmeasurable")
    unmeasurable = ", ".join(f"{n} {why}" for why, n in reasons.items()) or "none"
    items = [
        ("corpus", "Corpus and pin", _run_pin(manifest)),
        ("attempts", "Attempts and selection", _run_attempts(manifest, records)),
        (
            "pass",
            "Pass semantics and denominator",
            "pass = score 1.0 with nothing ungraded (negative checks included); score = points "
            f"earned / sum of check points; headline denominator = all {summary.tasks} tasks, "
            "unmeasurable and blocked counted as not passed. Negative checks (points for what "
            "must not happen) are earned by doing nothing, so an idle agent's partial credit is "
            "highest where tasks hold the most of them, often the hard ones"
            f"{_errand_pass(records)}",
        ),
        (
            "grading_access",
            "Could the system read the grading specification",
            "no: the agent received only the projection (task id, instruction, family, scenario "
            f"label, start URL{_answer_contract(records, ' ')}), built from a whitelist and "
            "verified in strict mode per task and per attempt "
            f"({manifest.firewall.verified} verified, "
            f"{len(manifest.firewall.blocked)} blocked). "
            "The scenario label can suggest the outcome",
        ),
        ("scoring_input", "Scoring input", _run_scoring_input(manifest, records)),
        (
            "unmeasurable",
            "Unmeasurable tasks",
            f"{summary.unmeasurable} of {summary.tasks} headline attempts unmeasurable "
            f"({unmeasurable}), counted as zero",
        ),
        ("isolation", "State isolation", _run_isolation(manifest, records)),
        (
            "build",
            "Build",
            f"{manifest.build.describe()}; {describe_build(manifest.agent.build)}"
            + pins_text(manifest),
        ),
        (
            "judge",
            "Judge variance and replication",
            f"{judge_text(manifest.judge, records, _rubric_in_manifest(manifest))}; "
            f"{replication_text(summary)}",
        ),
    ]
    return Disclosure(items=[DisclosureItem(key=k, title=t, text=x) for k, t, x in items])
