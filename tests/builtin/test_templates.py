"""The template set: new systems and hard kinds present, spread, and checked the right way."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

from endstate.builtin import BUILTIN_COUNT, BUILTIN_SEED
from endstate.builtin.generator import generate
from endstate.builtin.templates import BUILTIN_TEMPLATES as TEMPLATES
from endstate.builtin.templates import FAMILIES, TIERS

NEW = (
    "pa.medium.wizard-request",
    "pa.medium.site-of-service",
    "dn.easy.appeal-letter",
    "dn.medium.portal-appeal",
    "dn.hard.batch-triage",
    "dn.hard.duplicate-claim",
    "dn.hard.coverage-evidence",
    "dn.hard.governing-deadline",
    "dme.easy.queue-written-order",
    "dme.medium.queue-packet",
    "dme.hard.missing-document",
    "dme.hard.criteria-not-met",
)


def _builtin() -> list[dict[str, Any]]:
    return [g.data for g in generate(BUILTIN_SEED, BUILTIN_COUNT)]


def test_new_templates_appear_in_the_builtin_corpus() -> None:
    used = Counter(t["template_id"] for t in _builtin())
    assert [t for t in NEW if not used[t]] == []


def test_every_family_and_tier_has_more_than_one_template() -> None:
    cells: dict[tuple[str, str], set[str]] = defaultdict(set)
    for t in TEMPLATES:
        cells[(t.family, t.tier)].add(t.id)
    for family in FAMILIES:
        for tier in TIERS:
            assert len(cells[(family, tier)]) >= 2, (family, tier)


def test_builtin_proportions_hold_over_the_larger_template_set() -> None:
    tasks = _builtin()
    assert Counter(t["family"] for t in tasks) == {
        "prior_auth": 28,
        "appeals_denials": 28,
        "dme": 7,
    }
    assert Counter(t["tier"] for t in tasks) == {"easy": 21, "medium": 21, "hard": 21}
    # No template takes over its cell.
    per_cell = Counter((t["family"], t["tier"], t["template_id"]) for t in tasks)
    cell = Counter((t["family"], t["tier"]) for t in tasks)
    for (family, tier, template), n in per_cell.items():
        assert n < cell[(family, tier)] or cell[(family, tier)] == 1, template


def test_hard_tasks_carry_a_negative_check() -> None:
    for t in _builtin():
        if t["tier"] != "hard":
            continue
        negative = [
            c
            for c in t["checks"]
            if c.get("category") == "Safety" or "and no other" in c.get("description", "")
        ]
        assert negative, t["id"]


def test_fax_document_checks_count_uploads() -> None:
    for seed, count in ((BUILTIN_SEED, BUILTIN_COUNT), (2, 45)):
        for g in generate(seed, count):
            for c in g.data["checks"]:
                query = c.get("query", "")
                if "fax." in query:
                    assert not re.search(r"(?<!all_)document_ids", query), (g.data["id"], query)


def test_round_trips_check_what_the_receiving_system_recorded() -> None:
    for t in _builtin():
        queries = " ".join(c.get("query", "") for c in t["checks"])
        if t["template_id"] == "pa.medium.wizard-request":
            assert "payer_b.pa_submissions" in queries
            assert "confirmation_number" in queries and "ehr.notes" in queries
        if t["template_id"] == "dn.medium.portal-appeal":
            assert re.search(r"payer_[ab]\.appeals", queries)
            assert "confirmation_number" in queries and "triage_notes" in queries
        if t["template_id"] == "dme.medium.queue-packet":
            assert "fax.transmissions" in queries and "ehr.notes" in queries
        if t["template_id"] == "dme.hard.missing-document":
            assert any(
                c.get("category") == "Safety" and c.get("expected_value") == 0 for c in t["checks"]
            )


def test_batch_names_three_claims_and_checks_each() -> None:
    for t in _builtin():
        if t["template_id"] != "dn.hard.batch-triage":
            continue
        claims = set(re.findall(r"CLM\d{9}", t["instruction"]))
        assert len(claims) == 3
        for claim in claims:
            assert any(
                claim in c.get("query", "") and c["description"].startswith("Disposition")
                for c in t["checks"]
            )


def test_every_mutation_kind_is_present_in_new_templates() -> None:
    kinds: dict[str, set[str]] = defaultdict(set)
    for t in _builtin():
        if t["template_id"] in NEW:
            kinds[t["template_id"]] |= {m["kind"] for m in t["mutations"]}
    for template in NEW:
        assert "drop-step" in kinds[template], template
        assert len(kinds[template]) >= 2, template


def test_the_denied_amount_is_of_some_lines_never_a_claim_denied_as_a_whole() -> None:
    """A reason that judges the whole claim denies every line, so summing its denied lines is
    only the claim's total: the template takes a claim with a paid line beside the denied."""
    from endstate.builtin.templates.common import WorldView
    from endstate.builtin.templates.denials.denied_amount import DeniedAmount
    from endstate.envs.world import generate_world
    from endstate.envs.world.catalog import CLAIM_LEVEL_CARCS

    for seed in (BUILTIN_SEED, 1, 7):
        w = WorldView(generate_world(seed))
        keys = DeniedAmount().candidates(w)
        assert keys, seed
        for key in keys:
            d = w.denial(key)
            assert (d.lines[0].group, d.lines[0].carc) not in CLAIM_LEVEL_CARCS, key
            assert any(x.paid > 0 or x.carc == "45" for x in d.lines), key
    amounts = [t for t in _builtin() if t["template_id"] == "dn.hard.denied-amount"]
    assert amounts
    for t in amounts:
        denied, total = re.findall(r"\$([\d,]+\.\d\d)", t["rationale"])
        assert denied != total, t["id"]
