"""`endstate export sft`: the passing trajectories of training-split tasks as chat-format JSONL,
and the contamination register that keeps those cases out of any later held-out claim.

Every line is one attempt the end state gave full credit, exactly as the model had it: the
messages come from the attempt's `conversation.json`, written by the agent while it ran, and
nothing else is added — not the grading specification, not the end state, not a reconstruction
from `actions.json`. An agent whose trace holds no conversation (replay, reference, null,
command, llm-tools, cu-*) is refused rather than exported as actions without the observations
behind them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from endstate.agents.conversation import CONVERSATION, FORMAT
from endstate.corpus.contamination import FORMAT as REGISTER_FORMAT
from endstate.corpus.contamination import Register
from endstate.errors import EndstateError
from endstate.export.output import staged
from endstate.export.source import ExportedRun
from endstate.export.train_split import CorpusSplit, split_of_run
from endstate.records import TaskRecord

ROLES = frozenset({"system", "user", "assistant", "tool"})
# What a chat fine-tuning line carries of a message; an SDK's other fields are left out.
KEPT = ("role", "content", "tool_calls", "tool_call_id", "name")
TEST_REFUSED = "--split test: the test split is never exported for training"


@dataclass(frozen=True)
class SftExport:
    """What was written, for the command's one line."""

    lines: int
    cases: list[str]
    left_out: int  # attempts of the run without full credit


def require_train(split: str) -> None:
    """Only `--split train` is exported; asking for the test split is refused outright."""
    if split == "test":
        raise EndstateError(TEST_REFUSED)
    if split != "train":
        raise EndstateError(f"--split {split!r}: only the train split is exported for training")


def check_split(run: ExportedRun) -> CorpusSplit:
    """Refuse the export, naming a task, unless every task of the run is on the train side."""
    found = split_of_run(run.manifest)
    if found.split != "train" and run.manifest.tasks:
        task = run.manifest.tasks[0]
        more = len(run.manifest.tasks) - 1
        others = f" (and {more} more task(s) of the run)" if more else ""
        raise EndstateError(
            f"task {task!r}{others}: split {found.split} ({found.why}): only tasks of the train "
            "split are exported for training"
        )
    return found


def write_sft(run: ExportedRun, out: Path, register: Path) -> SftExport:
    """Write the register, then the JSONL: a file of trajectories never exists without the
    register that names its cases."""
    found = check_split(run)
    passing = [r for r in run.records if r.passed]
    if not passing:
        raise EndstateError(
            f"{run.root}: no attempt of the run passed with full credit: nothing to export"
        )
    lines = [_line(run, record, found) for record in passing]
    cases = sorted({r.task_id for r in passing})
    _write_register(run, found, cases, out, register)
    with staged(out) as tmp:
        tmp.write_text(
            "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
            encoding="utf-8",
        )
    return SftExport(len(lines), cases, len(run.records) - len(passing))


def _line(run: ExportedRun, record: TaskRecord, found: CorpusSplit) -> dict[str, Any]:
    path = run.root / "traces" / record.task_id / record.attempt / CONVERSATION
    messages, tools = read_conversation(path, run.manifest.agent.spec)
    _matches_actions(path, messages)
    corpus = run.manifest.corpus
    line: dict[str, Any] = {"messages": messages}
    if tools:
        line["tools"] = tools
    line["metadata"] = {
        "task_id": record.task_id,
        "attempt": record.attempt,
        "run_id": run.manifest.run_id,
        "agent": run.manifest.agent.spec,
        "corpus": {"name": corpus.name, "tree_hash": corpus.tree_hash},
        "split": found.split,
    }
    return line


def read_conversation(path: Path, agent: str) -> tuple[list[dict[str, Any]], list[Any]]:
    """The messages (and tools) of one attempt's conversation, checked message by message."""
    if not path.is_file():
        raise EndstateError(
            f"{path}: not found: agent {agent!r} recorded no conversation for this passing "
            "attempt; only agents that record theirs (llm) are exported for training"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EndstateError(f"{path}: not a readable conversation ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise EndstateError(f"{path}: format: expected {FORMAT!r}")
    messages = data.get("messages")
    if not isinstance(messages, list) or not messages:
        raise EndstateError(f"{path}: messages: expected a non-empty list")
    kept = [_message(path, i, m) for i, m in enumerate(messages)]
    if kept[-1]["role"] != "assistant":
        raise EndstateError(f"{path}: messages[{len(kept) - 1}]: the last turn is not the agent's")
    tools = data.get("tools") or []
    if not isinstance(tools, list):
        raise EndstateError(f"{path}: tools: expected a list")
    return kept, tools


def _matches_actions(path: Path, messages: list[dict[str, Any]]) -> None:
    """One reply per recorded step: a conversation that disagrees with the attempt's
    `actions.json` is not this attempt's, and is refused rather than exported."""
    actions_path = path.with_name("actions.json")
    try:
        actions = json.loads(actions_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EndstateError(f"{actions_path}: not readable ({exc})") from None
    replies = sum(m["role"] == "assistant" for m in messages)
    if not isinstance(actions, list) or len(actions) != replies:
        steps = len(actions) if isinstance(actions, list) else "no list of"
        raise EndstateError(
            f"{path}: {replies} replies, but {actions_path.name} records {steps} steps: "
            "not this attempt's conversation"
        )


def _message(path: Path, index: int, message: object) -> dict[str, Any]:
    where = f"{path}: messages[{index}]"
    if not isinstance(message, dict):
        raise EndstateError(f"{where}: expected an object")
    role = message.get("role")
    if role not in ROLES:
        raise EndstateError(f"{where}.role: {role!r} is not one of {', '.join(sorted(ROLES))}")
    content = message.get("content")
    if not (isinstance(content, str) or (content is None and message.get("tool_calls"))):
        raise EndstateError(f"{where}.content: expected text")
    return {k: message[k] for k in KEPT if k in message}


def _write_register(
    run: ExportedRun, found: CorpusSplit, cases: list[str], out: Path, path: Path
) -> None:
    """One entry per exported case, by id and by its file's sha256 (which survives a rename)."""
    sources = {t.id: t.source for t in found.corpus.tasks} if found.corpus else {}
    hashes = run.manifest.corpus.files
    entries: list[dict[str, Any]] = []
    for case in cases:
        entry: dict[str, Any] = {"case": case}
        digest = hashes.get(sources.get(case, ""))
        if digest:
            entry["sha256"] = digest
        entry["used_in"] = "training"
        entry["where"] = f"{out.name}: passing trajectories of run {run.manifest.run_id}"
        entries.append(entry)
    document = {
        "register": REGISTER_FORMAT,
        "name": f"sft export of run {run.manifest.run_id}",
        "entries": entries,
    }
    Register.model_validate(document)  # the format `run --contamination` reads, or no file
    with staged(path) as tmp:
        tmp.write_text(yaml.safe_dump(document, sort_keys=False, allow_unicode=True), "utf-8")
