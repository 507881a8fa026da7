"""What the Personal Health Arena rows may say that the built-in world must refuse or read in
the dataset card's own way.

The card (huggingface.co/datasets/wnkh/pha) publishes its rows but not its harness, and says
its field names may still change. Two spellings of `leg_scores` are read: an object leg → rule
(this importer's own), and a list of rules each naming its `leg` (the card's, as assumed here:
one entry per leg, in order, each weighing 1 — `"points": 1` is accepted, any other weight is
refused, as every leg of an errand counts the same). A write check that names a table the
built-in world does not have can never be measured here, so its row is refused naming the
table, rather than scored as a failure the agent did not earn.
"""

from __future__ import annotations

from typing import Any, Protocol

from endstate.corpus.legs import DeltaCheck


class Site(Protocol):
    def error(self, reason: str, *loc: int | str) -> None: ...


def card_rules(site: Site, value: Any) -> Any:
    """`leg_scores` as an object leg → rule: a list of rules naming their leg is turned into
    one; anything else is returned as given (the caller says what is wrong with it)."""
    if not isinstance(value, list):
        return value
    rules: dict[str, Any] = {}
    for i, rule in enumerate(value):
        leg = rule.get("leg") if isinstance(rule, dict) else None
        if not isinstance(rule, dict):
            site.error(f"a rule must be a JSON object (got {rule!r:.60})", "leg_scores", i)
        elif not isinstance(leg, str) or not leg:
            site.error("a rule in a list must name its leg ('leg': ...)", "leg_scores", i)
        elif leg in rules:
            site.error(f"leg {leg!r} has two rules", "leg_scores", i, "leg")
        else:
            rules[leg] = {k: v for k, v in rule.items() if k != "leg"}
    return rules


def without_points(site: Site, leg: str, rule: dict[str, Any]) -> dict[str, Any]:
    """The rule without a `points` of 1 (the card's weight of every leg); another is refused."""
    if "points" not in rule:
        return rule
    points = rule["points"]
    if isinstance(points, bool) or points != 1:
        reason = f"points is {points!r:.20}: every leg of an errand weighs 1"
        site.error(reason, "leg_scores", leg, "points")
    return {k: v for k, v in rule.items() if k != "points"}


# The tables an errand episode of the built-in world can change: the suite's shared tables and
# the patient portal's. The corpus layer stands below the suite, so it keeps their names, and a
# test holds them equal to the schemas (tests/test_pha_rows.py).
WORLD_TABLES: frozenset[str] = frozenset(
    (
        "appeals",
        "attachments",
        "coverages",
        "denial_lines",
        "denials",
        "dme_orders",
        "documents",
        "events",
        "logins",
        "meta",
        "notes",
        "pa_responses",
        "pa_submissions",
        "patients",
        "payer_rules",
        "plans",
        "pp_allergies",
        "pp_appointment_changes",
        "pp_appointments",
        "pp_conditions",
        "pp_encounters",
        "pp_imaging",
        "pp_immunizations",
        "pp_insurance",
        "pp_lab_tests",
        "pp_labs",
        "pp_ledger",
        "pp_medications",
        "pp_messages",
        "pp_patients",
        "pp_pharmacies",
        "pp_pharmacy_changes",
        "pp_prescriptions",
        "pp_providers",
        "pp_records_requests",
        "pp_sent_messages",
        "prior_requests",
        "providers",
        "referral_diagnoses",
        "referral_services",
        "referrals",
    )
)


def world_tables() -> frozenset[str]:
    return WORLD_TABLES


def unknown_tables(check: DeltaCheck) -> list[str]:
    """Tables the write check names that the built-in world lacks, in the order named."""
    named = [e.table for e in (*check.expect, *check.permitted)] + list(check.forbidden_tables)
    return [t for t in dict.fromkeys(named) if t not in world_tables()]


def refuse_unknown_tables(site: Site, leg: str, check: DeltaCheck) -> bool:
    """Report each table the check needs that the world lacks; True when there is none."""
    missing = unknown_tables(check)
    for table in missing:
        site.error(
            f"table {table!r} is not in the built-in world (its patient portal has "
            f"{_some_tables()}, …): this write cannot be measured here, so the row is refused",
            "write_check_json",
            leg,
        )
    return not missing


def _some_tables() -> str:
    portal = sorted(t for t in world_tables() if t.startswith("pp_"))
    return ", ".join(portal[:4])
