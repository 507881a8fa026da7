"""Patient errands: generated from the portal's population, shipped, validated, run."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from endstate.builtin.errands import ERRANDS_COUNT, ERRANDS_SEED, errands_corpus_path
from endstate.builtin.errands.archetypes import ARCHETYPES
from endstate.builtin.errands.chart import ChartView
from endstate.builtin.errands.generator import ERRANDS_VERSION, generate_errands
from endstate.builtin.generator import GenerationError
from endstate.builtin.task_lint import require_clean, task_problems
from endstate.cli import app
from endstate.cli.builtin import corpus_extra_app
from endstate.corpus.loader import load_corpus
from endstate.corpus.lock import verify
from endstate.envs.systems.patient_portal.model import LedgerEntry
from endstate.envs.systems.patient_portal.population import population
from endstate.envs.world import DEFAULT_CLOCK
from endstate.rules.cost_sharing import may_bill_member

runner = CliRunner()


def _shipped() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(errands_corpus_path().glob("*/*.json"))]


def test_the_shipped_errands_are_the_generators_output_byte_for_byte() -> None:
    made = {g.path: g.text() for g in generate_errands(ERRANDS_SEED, ERRANDS_COUNT)}
    root = errands_corpus_path()
    on_disk = {str(p.relative_to(root)): p.read_text() for p in sorted(root.glob("*/*.json"))}
    assert made == on_disk
    assert verify(root).name == "endstate-errands"  # raises on any drift


def test_errands_span_archetypes_patients_and_three_to_six_legs() -> None:
    errands = _shipped()
    assert len(errands) >= 60
    assert len({e["record"] for e in errands}) >= 30
    assert Counter(e["template_id"] for e in errands) == {
        f"errand.{a.id}": ERRANDS_COUNT // len(ARCHETYPES) for a in ARCHETYPES
    }
    for e in errands:
        kinds = [c["type"] for c in e["checks"]]
        assert 3 <= len(kinds) <= 6 and kinds[-1] == "delta" and set(kinds[:-1]) == {"answer"}
        legs = [c["leg"] for c in e["checks"]]
        assert len(set(legs)) == len(legs)
        assert [f["name"] for f in e["answer_fields"]] == [c["field"] for c in e["checks"][:-1]]
        assert e["instruction"].count(e["given"][0]) == 1  # the patient gives their login


def test_every_hard_page_is_exercised_by_some_errand() -> None:
    errands = _shipped()
    pages = Counter(c["category"] for e in errands for c in e["checks"])
    for page in ("/labs", "/problems", "/allergies", "/prescriptions", "/billing", "/messages"):
        assert pages[f"read:{page}"] > 0, page
    for page in ("/messages", "/appointments", "/records-request", "/pharmacy"):
        assert pages[f"write:{page}"] > 0, page
    golds = [c.get("expected") for e in errands for c in e["checks"] if c["type"] == "answer"]
    assert [] in golds  # "there is none" is an answer
    people = population(ERRANDS_SEED, DEFAULT_CLOCK)
    rows = Counter(r.patient_id for r in people.labs)
    problems = Counter(c.patient_id for c in people.conditions)
    longest_labs = max(rows, key=lambda k: rows[k])
    assert rows[longest_labs] == 4105
    reads = {
        (e["record"], c["category"]) for e in errands for c in e["checks"] if c["type"] == "answer"
    }
    assert (longest_labs, "read:/labs") in reads
    assert (max(problems, key=lambda k: problems[k]), "read:/problems") in reads


def test_ids_carry_the_errands_version_so_old_ids_are_retired() -> None:
    ids = [e["id"] for e in _shipped()]
    assert all(i.startswith(f"pe{ERRANDS_VERSION}-{ERRANDS_SEED}-") for i in ids)
    assert ERRANDS_VERSION >= 4  # pe-, pe2- and pe3-<seed>-NNN are never reused
    retired = json.loads((errands_corpus_path().parents[1] / "retired.json").read_text())
    old = {i for release in retired["retired"] for i in release["ids"]}
    assert {f"pe-{ERRANDS_SEED}-001", f"pe2-{ERRANDS_SEED}-063"} <= old
    assert not old & set(ids)


def test_no_instruction_spells_out_the_record_it_asks_the_agent_to_tell_apart() -> None:
    """The new pharmacy is named by its chain and street, never the directory's name or
    address line; the message to answer by its topic, never its subject line."""
    people = population(ERRANDS_SEED, DEFAULT_CLOCK)
    stores = {p.id: p for p in people.pharmacies}
    messages = {m.id: m for m in people.messages}
    seen = Counter(e["template_id"] for e in _shipped())
    assert seen["errand.new-pharmacy"] and seen["errand.checking-messages"]
    for e in _shipped():
        said = e["instruction"]
        for c in e["checks"]:
            for x in c.get("expect", []):
                new = stores.get(x.get("changes", {}).get("pharmacy_id", ""))
                if new is not None:
                    assert new.name not in said and new.address.split(",")[0] not in said
                    assert new.name.split("#")[0].strip() in said
                m = messages.get(x.get("match", {}).get("in_reply_to", ""))
                if m is not None:
                    assert m.subject not in said, e["id"]


def test_a_medi_cal_member_owes_nothing_in_any_gold() -> None:
    """A gold follows from what the rules allow: a member whose plan may not bill them owes
    nothing for covered care, and has never paid anything themselves."""
    people = population(ERRANDS_SEED, DEFAULT_CLOCK)
    medi_cal = {c.patient_id for c in people.insurance if not may_bill_member(c.kind)}
    golds = {
        (e["record"], c["leg"]): c["expected"]
        for e in _shipped()
        for c in e["checks"]
        if c["type"] == "answer"
    }
    owed = {pid: gold for (pid, leg), gold in golds.items() if leg == "balance_owed"}
    assert {pid for pid in owed if pid in medi_cal}, "some balance leg asks a Medi-Cal member"
    assert all(owed[pid] == 0 for pid in owed if pid in medi_cal)
    assert any(gold > 0 for pid, gold in owed.items() if pid not in medi_cal)
    assert not {pid for (pid, leg) in golds if leg == "last_payment_date"} & medi_cal
    for pid in medi_cal:
        view = ChartView(people, people.patient(pid), DEFAULT_CLOCK)
        assert view.balance in (0, None) and view.last_patient_payment is None


def test_a_balance_the_rules_forbid_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    people = population(ERRANDS_SEED, DEFAULT_CLOCK)
    member = next(c for c in people.insurance if c.kind == "medicaid_mco")
    day = next(x.service_date for x in people.ledger if x.patient_id == member.patient_id)
    copay = LedgerEntry(99_999, member.patient_id, day, day, "payment", "Patient payment", 25.0)
    broken = replace(people, ledger=(*people.ledger, copay))
    view = ChartView(broken, broken.patient(member.patient_id), DEFAULT_CLOCK)
    with pytest.raises(GenerationError, match=f"{member.patient_id} ledger service_date {day}"):
        _ = view.balance


def test_every_errand_string_is_filled_in_and_a_planted_one_is_refused() -> None:
    made = generate_errands(ERRANDS_SEED, 7)
    assert all(task_problems(g.data) == [] for g in made)
    first = made[0]
    planted = replace(first, data={**first.data, "instruction": "Hi, this is {first}.  Help."})
    with pytest.raises(GenerationError) as refused:
        require_clean([planted, *made[1:]])
    text = str(refused.value)
    assert f"{first.data['id']}: instruction has a doubled space" in text
    gold = {**first.data["checks"][0], "expected": "nan"}
    nan = replace(first, data={**first.data, "checks": [gold, *first.data["checks"][1:]]})
    assert task_problems(nan.data) == [
        f"{first.data['id']}: checks[0].expected has 'nan' where a value belongs: 'nan'"
    ]


def test_a_held_out_seed_makes_other_errands_and_the_same_seed_the_same() -> None:
    a = [g.text() for g in generate_errands(7, 14)]
    assert a == [g.text() for g in generate_errands(7, 14)]
    b = {json.loads(t)["instruction"] for t in a}
    assert not b & {e["instruction"] for e in _shipped()}


def test_every_errand_validates(tmp_path: Path) -> None:
    """Each errand's reference earns every leg, the null attempt fails, every wrong answer
    and the dropped write are caught; look-alike writes are replayed for one errand of each
    archetype (the whole set: `endstate corpus validate builtin:errands`)."""
    report = tmp_path / "v.json"
    result = runner.invoke(
        corpus_extra_app,
        [
            "validate",
            "builtin:errands",
            "--workers",
            "3",
            "--replay-sample",
            "1",
            "--json",
            str(report),
        ],
    )
    assert result.exit_code == 0, result.output
    found = json.loads(report.read_text())
    assert len(found) == ERRANDS_COUNT and all(v["ok"] for v in found)
    replayed = [v for v in found if "look-alike" in v["mutations"]]
    assert 6 <= len(replayed) <= len(ARCHETYPES)  # one per archetype that has a look-alike
    harmed = [v for v in found if "collateral-harm" in v["mutations"]]
    assert len(harmed) == len(ARCHETYPES)  # one per archetype: collateral harm is refused
    assert any("vague-message" in v["mutations"] for v in found)  # a body without the facts
    left = {"look-alike", "vague-message", "collateral-harm"}
    assert all(set(v["not_replayed"]) <= left for v in found)
    assert sum(len(v["mutations"]) for v in found) > 4 * ERRANDS_COUNT


def test_the_null_agent_runs_every_errand_and_earns_nothing(tmp_path: Path) -> None:
    out = tmp_path / "runs"
    result = runner.invoke(
        app, ["run", "--corpus", "builtin:errands", "--agent", "null", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    (run_dir,) = out.iterdir()
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    assert len(records) == ERRANDS_COUNT
    assert all(r["status"] == "failed" and r["score"] == 0.0 for r in records)
    reads = [c for r in records for c in r["checks"] if c["leg_kind"] == "read"]
    assert reads and all("no answer" in c["detail"] for c in reads)
    assert len(load_corpus(errands_corpus_path()).tasks) == ERRANDS_COUNT


def test_an_errand_whose_patients_changed_is_refused_before_any_attempt(tmp_path: Path) -> None:
    data = json.loads(next(errands_corpus_path().glob("*/*.json")).read_text())
    data["world"]["population_sha256"] = "f" * 64
    (tmp_path / "patient_errands").mkdir()
    (tmp_path / "patient_errands" / f"{data['id']}.json").write_text(json.dumps(data))
    result = runner.invoke(corpus_extra_app, ["validate", str(tmp_path)])
    assert result.exit_code == 1
    assert "population drift: task pins the portal's patients ffffffffffff" in result.output
