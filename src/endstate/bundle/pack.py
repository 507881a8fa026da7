"""`endstate bundle`: one run, everything needed to re-score it, in one archive.

Members (all paths inside the archive):
- `manifest.json`, `records.jsonl`, `report.txt` (and `report.html` when present): the run;
- `corpus/<file>`: the full task file of every task the run scheduled (its grading side is
  what re-scoring reads), each checked against the hash the manifest pinned, and
  `corpus/endstate.lock.json` when the corpus was vendored;
- `states/<task>/<attempt>.json`: every end state scored, byte for byte;
- `judge/<task>/<attempt>.json`: every rubric verdict, with what the judge read;
- `index.json`: the SHA-256 of every other member.
"""

from __future__ import annotations

import json
from pathlib import Path

from endstate.bundle.archive import INDEX, BundleError, index_of, sha256, write_archive
from endstate.corpus.loader import load_corpus
from endstate.corpus.lock import LOCK_NAME
from endstate.errors import EndstateError
from endstate.manifest import Manifest
from endstate.records import TaskRecord
from endstate.runs.store import MANIFEST, RECORDS, REPORT, REPORT_HTML, TRACES, RunStore

END_STATE = "end_state.json"


def judge_calls(record: TaskRecord) -> list[dict[str, object]]:
    """Every rubric verdict of a record with the rendered input it was given (from the record,
    which keeps both), in check order; checks left ungraded have no verdict to replay."""
    calls: list[dict[str, object]] = []
    for check in record.checks:
        if check.type != "llm_judge" or check.votes is None:
            continue
        rendered = dict(check.rubric_input or {})
        rendered["answer"] = check.answer or ""
        calls.append(
            {
                "index": check.index,
                "input": rendered,
                "votes": check.votes,
                "cached": check.cached,
                "rejudge_votes": check.rejudge_votes,  # variance measure only: never counted
            }
        )
    return calls


def _corpus_members(manifest: Manifest, corpus_dir: Path | None) -> dict[str, bytes]:
    """The task files the run scheduled, as pinned: a file changed since the run is refused.

    `corpus_dir` stands in for the corpus folder the manifest names, for a run directory
    moved from the machine that made it; its files must hash the same."""
    root = corpus_dir if corpus_dir is not None else Path(manifest.corpus.root)
    try:
        corpus = load_corpus(root)
    except EndstateError as exc:
        raise BundleError(f"cannot read the run's corpus: {exc}") from None
    members: dict[str, bytes] = {}
    for task_id in manifest.tasks:
        rel = corpus.task(task_id).source
        data = (root / rel).read_bytes()
        pinned = manifest.corpus.files.get(rel)
        if pinned != sha256(data):
            raise BundleError(
                f"{root / rel}: differs from the file the run pinned (manifest corpus.files); "
                "the bundle would not hold the grading the run used"
            )
        members[f"corpus/{rel}"] = data
    lock = root / LOCK_NAME
    if lock.is_file():
        members[f"corpus/{LOCK_NAME}"] = lock.read_bytes()
    return members


def bundle_members(
    run_dir: Path, corpus_dir: Path | None = None
) -> tuple[Manifest, dict[str, bytes]]:
    """Every member of the run's bundle, index included."""
    store = RunStore(run_dir)
    manifest = store.read_manifest()
    records = store.read_records()
    members: dict[str, bytes] = {
        MANIFEST: store.manifest_path.read_bytes(),
        RECORDS: store.records_path.read_bytes(),
    }
    for name in (REPORT, REPORT_HTML):
        if (run_dir / name).is_file():
            members[name] = (run_dir / name).read_bytes()
    members |= _corpus_members(manifest, corpus_dir)
    for record in records:
        where = f"{record.task_id}/{record.attempt}"
        state = run_dir / TRACES / record.task_id / record.attempt / END_STATE
        if state.is_file():
            members[f"states/{where}.json"] = state.read_bytes()
        elif record.status in ("passed", "failed"):
            raise BundleError(f"{state}: the end state scored for this record is missing")
        calls = judge_calls(record)
        if calls:
            doc = {"judge": record.judge.model_dump() if record.judge else None, "calls": calls}
            text = json.dumps(doc, indent=2, ensure_ascii=False, sort_keys=True) + "\n"
            members[f"judge/{where}.json"] = text.encode()
    members[INDEX] = index_of(members, manifest.run_id)
    return manifest, members


def default_out(run_dir: Path, manifest: Manifest) -> Path:
    return run_dir.parent / f"{manifest.run_id}.bundle.tar.gz"


def write_bundle(
    run_dir: Path, out: Path | None = None, corpus_dir: Path | None = None
) -> tuple[Path, str, int]:
    """Pack the run; return the archive, its SHA-256 and how many members it holds."""
    manifest, members = bundle_members(run_dir, corpus_dir)
    target = out if out is not None else default_out(run_dir, manifest)
    if not target.name.endswith((".tar.gz", ".tgz")):
        raise BundleError(f"--out {target}: a bundle is a .tar.gz file")
    digest = write_archive(target, members)
    return target, digest, len(members)
