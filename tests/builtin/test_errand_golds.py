"""The shipped errands' golds: no constant answer earns more than a third of any read field,
every number the portal rounds is graded within its printing, every write leg refuses
collateral harm, and every message leg checks what the message says."""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import Decimal
from fractions import Fraction
from typing import Any

from endstate.builtin.errands import ERRANDS_SEED, errands_corpus_path
from endstate.builtin.errands.chart import RESULT_TESTS
from endstate.builtin.errands.generator import GOLD_SHARE
from endstate.builtin.errands.legs import printed_tolerance
from endstate.envs.systems.patient_portal.population import population
from endstate.envs.world import DEFAULT_CLOCK
from endstate.scoring.answer_match import match_answer

EMPTY: tuple[Any, ...] = ("none", "", 0, [])  # what a blind answerer says when it knows nothing


def _shipped() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(errands_corpus_path().glob("*/*.json"))]


def _reads() -> dict[str, list[dict[str, Any]]]:
    by_field: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in _shipped():
        for c in e["checks"]:
            if c["type"] == "answer":
                by_field[c["field"]].append(c)
    return by_field


def _passes(check: dict[str, Any], answer: Any) -> bool:
    return match_answer(
        check["kind"],
        check["expected"],
        answer,
        tolerance=check.get("tolerance"),
        item_kind=check.get("item_kind", "string"),
    ).correct


def best_constant_share(checks: list[dict[str, Any]]) -> Fraction:
    """The pass share of the best single answer given to every leg of one field: tried are
    every gold of the field and the blind answers ("none", "", 0, [])."""
    candidates = [c["expected"] for c in checks] + list(EMPTY)
    return max(Fraction(sum(_passes(c, a) for c in checks), len(checks)) for a in candidates)


def test_no_constant_answer_earns_more_than_a_third_of_any_read_field() -> None:
    fields = _reads()
    assert len(fields) >= 12
    bound = Fraction(1, GOLD_SHARE)
    shares = {f: best_constant_share(checks) for f, checks in fields.items()}
    for field, checks in fields.items():
        if len(checks) >= GOLD_SHARE:
            assert shares[field] <= bound, (field, shares[field])
        else:  # too few legs for a share: no two may share a gold
            assert shares[field] == Fraction(1, len(checks)), (field, shares[field])


def test_the_measure_would_catch_a_constant_gold() -> None:
    checks = [{"kind": "string", "expected": "none"}] * 2 + [{"kind": "string", "expected": "x"}]
    assert best_constant_share(checks) == Fraction(2, 3)
    empty = [{"kind": "set", "expected": []}, {"kind": "set", "expected": ["A"]}]
    assert best_constant_share(empty) == Fraction(1, 2)


def test_every_lab_value_is_graded_within_half_a_unit_of_its_last_printed_digit() -> None:
    people = population(ERRANDS_SEED, DEFAULT_CLOCK)
    printed: dict[tuple[str, str], set[str]] = defaultdict(set)  # (patient, test) → values
    for r in people.labs:
        printed[(r.patient_id, r.loinc)].add(r.value)
    numeric = 0
    for e in _shipped():
        for c in e["checks"]:
            if c["type"] != "answer" or c["kind"] != "number":
                continue
            numeric += 1
            if c["field"] in ("result_value", "previous_value"):
                asked = {f["name"]: f["description"] for f in e["answer_fields"]}[c["field"]]
                (loinc,) = [k for k, name in RESULT_TESTS.items() if f" {name} " in asked]
                values = printed[(e["record"], loinc)]
                shown = [v for v in values if float(v) == c["expected"]]
                assert shown, (e["id"], c["field"])
                assert {printed_tolerance(v) for v in shown} == {c["tolerance"]}, e["id"]
                gold, half = Decimal(str(c["expected"])), Decimal(str(c["tolerance"]))
                assert _passes(c, str(gold + half)) and _passes(c, str(gold - half))
                assert not _passes(c, str(gold + 2 * half))
            elif c["field"] == "balance_owed":  # printed to the cent
                assert c["tolerance"] == 0.005, e["id"]
            else:  # a count is never rounded
                assert c["field"] == "result_count" and "tolerance" not in c, e["id"]
    assert numeric >= 20
    assert printed_tolerance("5.1") == 0.05 and printed_tolerance("105") == 0.5
    assert printed_tolerance("0.80") == 0.005


def test_every_write_leg_is_exclusive_and_every_message_leg_checks_its_facts() -> None:
    messages = 0
    for e in _shipped():
        write = e["checks"][-1]
        assert write["exclusive"] is True, e["id"]
        assert {"table": "logins", "op": "added", "match": {"system": "patient_portal"}} in (
            write["permitted"]
        )
        for x in write["expect"]:
            if x["table"] == "pp_sent_messages" and x.get("match"):
                messages += 1
                assert len(x["contains"]["body"]) >= 1, e["id"]
                assert "card number" in x["excludes"]["body"], e["id"]
                assert "vague-message" in {m["id"] for m in e["mutations"]}, e["id"]
        assert "collateral-harm" in {m["id"] for m in e["mutations"]}, e["id"]
    assert messages >= 30
