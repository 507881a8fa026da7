"""`endstate export sft`: a real llm agent run against the local chat double, on the train side
of a real `corpus split`, exported as the conversations the model actually had; the test side,
an undeclared split and conversation-less agents refused; and the register read back by a later
run that then reports those cases as not held out."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from endstate.agents.registry import make_agent
from endstate.builtin.splits import split_corpus
from endstate.corpus.contamination import load_register
from endstate.corpus.loader import load_corpus
from endstate.corpus.lock import CorpusLock
from endstate.errors import EndstateError
from endstate.export.sft import write_sft
from endstate.export.source import load_run
from endstate.export.train_split import declared_split
from endstate.runs.session import RunOptions, execute
from endstate.runs.store import RunStore
from openai_double import Behaviour, ChatDouble
from runs.conftest import clear_task, referral_id

ENDSTATE = Path(sys.executable).with_name("endstate")
ATTEMPTS = 2
MODEL = "llm:scripted-model"
STEPS = [{"type": "goto", "url": "/worklist"}, {"type": "done", "message": "Nothing to do."}]


def _corpus(root: Path) -> Path:
    """Template a: one task passing untouched, one failing untouched; template b: held out."""
    ref = referral_id()
    untouched = {
        "type": "jmespath",
        "query": f"contains(ehr.cleared_referrals, '{ref}')",
        "expected_value": False,
        "points": 1,
        "description": "referral left on the worklist",
        "category": "Safety",
    }
    passes, fails, held = (clear_task(t, ref) for t in ("pa-s-1", "pa-s-2", "pa-s-3"))
    passes["evals"] = [untouched]
    held["evals"] = [untouched]
    for task, template in ((passes, "a"), (fails, "a"), (held, "b")):
        task["metadata"]["template"] = template
        path = root / "prior_auth" / f"{task['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(task, indent=2))
    return root


@dataclass
class Setup:
    base: Path
    source: Path
    train: Path
    test: Path
    run: Path
    chat: ChatDouble


def _run(corpus: Path, out: Path, spec: str, chat: ChatDouble | None, **extra: Any) -> Path:
    options: dict[str, Any] = {"base_url": chat.base_url} if chat else {}
    run = RunOptions(
        corpus=corpus,
        agent=make_agent(spec, options),
        agent_spec=spec,
        out=out,
        workers=1,
        agent_options=options or None,
        **extra,
    )
    return asyncio.run(execute(run)).store.root


def _script(chat: ChatDouble, attempts: int) -> None:
    for _ in range(attempts):
        chat.queue(*(Behaviour(reply=json.dumps(step)) for step in STEPS))


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Any:
    base = tmp_path_factory.mktemp("sft")
    source = _corpus(base / "source")
    split_corpus(load_corpus(source), "template", ["b"], base / "split")
    chat = ChatDouble().start()
    try:
        _script(chat, 2 * ATTEMPTS)
        run = _run(base / "split" / "train", base / "runs", MODEL, chat, attempts=ATTEMPTS)
        yield Setup(base, source, base / "split" / "train", base / "split" / "test", run, chat)
    finally:
        chat.stop()


def endstate(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ENDSTATE), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "400", "NO_COLOR": "1"},
    )


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


def _calls(conversation: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """What the model was sent at each of its calls, rebuilt from the conversation the way the
    agent sends it: earlier observations cut to their header and URL."""
    opening, turns = conversation[:2], conversation[2:]
    calls = []
    for k in range(0, len(turns), 2):
        earlier = []
        for j in range(0, k, 2):
            observation = turns[j]["content"]
            short = observation[: observation.index("\nTitle: ")]
            earlier += [{"role": "user", "content": short}, turns[j + 1]]
        calls.append([*opening, *earlier, turns[k]])
    return calls


def test_passing_trajectories_are_the_conversations_the_model_had(
    setup: Setup, tmp_path: Path
) -> None:
    records = RunStore(setup.run).read_records()
    assert sorted((r.task_id, r.attempt, r.passed) for r in records) == [
        ("pa-s-1", "1", True),
        ("pa-s-1", "2", True),
        ("pa-s-2", "1", False),
        ("pa-s-2", "2", False),
    ]
    out = tmp_path / "train.jsonl"
    proc = endstate("export", "sft", setup.run, "--split", "train", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "2 passing trajectories of 1 tasks; 2 attempts without full credit left out" in (
        proc.stdout
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(x["metadata"]["task_id"], x["metadata"]["attempt"]) for x in lines] == [
        ("pa-s-1", "1"),
        ("pa-s-1", "2"),
    ]  # the failing task's attempts are not exported
    manifest = RunStore(setup.run).read_manifest()
    sent = [r["messages"] for r in setup.chat.requests if r.get("max_tokens") != 1]
    for line in lines:
        meta = line["metadata"]
        assert meta == {
            "task_id": "pa-s-1",
            "attempt": meta["attempt"],
            "run_id": manifest.run_id,
            "agent": MODEL,
            "corpus": {"name": manifest.corpus.name, "tree_hash": manifest.corpus.tree_hash},
            "split": "train",
        }
        trace = setup.run / "traces" / "pa-s-1" / meta["attempt"] / "conversation.json"
        assert line["messages"] == json.loads(trace.read_text())["messages"]
        messages = line["messages"]
        assert [m["role"] for m in messages] == ["system", "user", *["user", "assistant"] * 2]
        assert [json.loads(m["content"]) for m in messages[3::2]] == STEPS
        assert "Accessibility snapshot:" in messages[2]["content"]
        for call in _calls(messages):  # exactly what the model was sent, call by call
            assert call in sent
        text = json.dumps(line)
        assert "GRADING-CANARY" not in text and "expected_value" not in text
        assert "cleared_referrals" not in text  # nothing of the grading or the end state


def test_the_register_names_the_cases_and_a_later_run_reports_them_not_held_out(
    setup: Setup, tmp_path: Path
) -> None:
    out, register = tmp_path / "sft.jsonl", tmp_path / "seen.yaml"
    write_sft(load_run(setup.run), out, register)
    loaded, _ = load_register(register)
    (entry,) = loaded.entries
    task = next(t for t in load_corpus(setup.train).tasks if t.id == "pa-s-1")
    assert (entry.case, entry.used_in) == ("pa-s-1", "training")
    assert entry.sha256 == load_corpus(setup.train).file_hashes[task.source]

    _script(setup.chat, 2)
    later = _run(setup.train, tmp_path / "later", MODEL, setup.chat, contamination=register)
    pin = RunStore(later).read_manifest().contamination
    assert pin is not None
    assert [(o.task_id, o.used_in, o.matched_by) for o in pin.overlapping] == [
        ("pa-s-1", "training", "case")
    ]
    report = endstate("report", later)
    assert report.returncode == 0, report.stderr
    assert "1 of 2 tasks were seen by the agent (training): their scores are not held-out" in (
        report.stdout.replace("\n", " ")
    )
    assert "(pa-s-1)" in report.stdout


def test_the_test_split_is_refused_naming_the_task_and_its_split(
    setup: Setup, tmp_path: Path
) -> None:
    run = _run(setup.test, tmp_path / "runs", "null", None)
    out = tmp_path / "x.jsonl"
    line = one_error_line(endstate("export", "sft", run, "--split", "train", "--out", out))
    assert "task 'pa-s-3': split test (declared by the lock of corpus" in line
    assert "only tasks of the train split are exported for training" in line
    asked = one_error_line(endstate("export", "sft", setup.run, "--split", "test", "--out", out))
    assert asked == "error: --split test: the test split is never exported for training"
    assert not out.exists() and not out.with_suffix(".contamination.yaml").exists()


def test_an_undeclared_or_changed_corpus_is_an_unknown_split(setup: Setup, tmp_path: Path) -> None:
    run = _run(setup.source, tmp_path / "runs", "null", None)  # no lock: nothing declared
    with pytest.raises(EndstateError, match=r"task 'pa-s-1' \(and 2 more task\(s\) of the run\)"):
        write_sft(load_run(run), tmp_path / "a.jsonl", tmp_path / "a.yaml")
    with pytest.raises(EndstateError, match=r"split unknown \(corpus .* has no lock declaring"):
        write_sft(load_run(run), tmp_path / "a.jsonl", tmp_path / "a.yaml")
    assert not (tmp_path / "a.jsonl").exists() and not (tmp_path / "a.yaml").exists()

    split_corpus(load_corpus(setup.source), "template", ["b"], tmp_path / "split")
    train = tmp_path / "split" / "train"
    run = _run(train, tmp_path / "again", "null", None)
    task = train / "prior_auth" / "pa-s-1.json"
    task.write_text(task.read_text().replace("referral left", "referral kept"))
    with pytest.raises(EndstateError, match=r"split unknown \(the run's corpus cannot be read"):
        write_sft(load_run(run), tmp_path / "a.jsonl", tmp_path / "a.yaml")


def test_an_agent_without_a_conversation_is_refused(setup: Setup, tmp_path: Path) -> None:
    run = _run(setup.train, tmp_path / "runs", "null", None)  # pa-s-1 passes untouched
    out = tmp_path / "null.jsonl"
    line = one_error_line(endstate("export", "sft", run, "--split", "train", "--out", out))
    assert "conversation.json: not found: agent 'null' recorded no conversation" in line
    assert not out.exists()


def test_the_register_is_the_format_run_reads(setup: Setup, tmp_path: Path) -> None:
    register = tmp_path / "r.yaml"
    write_sft(load_run(setup.run), tmp_path / "r.jsonl", register)
    data = yaml.safe_load(register.read_text())
    assert data["register"] == "endstate-contamination-v1"
    check = endstate("corpus", "contamination", setup.train, "--register", register)
    assert check.returncode == 1  # the corpus overlaps the register: the command says so
    assert "pa-s-1 training case" in " ".join(check.stdout.split())


def test_an_imported_corpus_declared_train_passes_the_split_rule(
    setup: Setup, tmp_path: Path
) -> None:
    named = ("--name", "bench-train", "--into", tmp_path, "--split", "train")
    proc = endstate("corpus", "import", setup.source, *named)
    assert proc.returncode == 0, proc.stderr
    lock = json.loads((tmp_path / "bench-train" / "endstate.lock.json").read_text())
    assert lock["split"] == "train"
    run = _run(tmp_path / "bench-train", tmp_path / "runs", "null", None)
    # Past the split rule: the null agent's passing attempt is refused for its missing conversation.
    with pytest.raises(EndstateError, match="recorded no conversation"):
        write_sft(load_run(run), tmp_path / "a.jsonl", tmp_path / "a.yaml")
    bad = endstate(
        "corpus", "import", setup.source, "--name", "x", "--into", tmp_path, "--split", "dev"
    )
    assert bad.returncode != 0 and "Traceback" not in bad.stderr


def test_a_lock_from_before_the_split_field_is_read_by_its_name() -> None:
    made = dict(imported_at="", files={}, tree_hash="0" * 64)
    split_source = "endstate corpus split corpora/x --by template --holdout b"
    assert declared_split(CorpusLock(name="x-test", source=split_source, **made)) == "test"
    assert declared_split(CorpusLock(name="x-train", source=split_source, **made)) == "train"
    assert declared_split(CorpusLock(name="x-train", source="/elsewhere", **made)) is None
    assert declared_split(CorpusLock(name="x", source="/e", split="test", **made)) == "test"


def test_a_conversation_that_is_not_the_attempts_is_refused(setup: Setup, tmp_path: Path) -> None:
    run = tmp_path / "copy"
    shutil.copytree(setup.run, run)
    actions = run / "traces" / "pa-s-1" / "2" / "actions.json"
    actions.write_text(json.dumps(json.loads(actions.read_text())[:1]))
    with pytest.raises(EndstateError, match=r"2 replies, but actions.json records 1 steps"):
        write_sft(load_run(run), tmp_path / "a.jsonl", tmp_path / "a.yaml")
    conversation = run / "traces" / "pa-s-1" / "1" / "conversation.json"
    kept = json.loads(conversation.read_text())
    kept["messages"][2]["role"] = "observer"
    conversation.write_text(json.dumps(kept))
    with pytest.raises(EndstateError, match=r"messages\[2\]\.role: 'observer' is not one of"):
        write_sft(load_run(run), tmp_path / "a.jsonl", tmp_path / "a.yaml")
    assert not (tmp_path / "a.jsonl").exists()


def test_the_format_exports_keep_their_command_line(setup: Setup, tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    for args in (
        (setup.run, "--format", "parquet", "--out", tmp_path / "a.parquet"),
        ("--format", "parquet", setup.run, "--out", tmp_path / "b.parquet"),
    ):
        proc = endstate("export", *args)
        assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "a.parquet").is_file() and (tmp_path / "b.parquet").is_file()
