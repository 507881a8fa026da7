"""Compare a task's answer key with what the audit derives from the world and the rules.

Every field the key states is compared; a field it omits is not claimed. Lists of documents
compare as sets: `attach` (and a packet's `documents`) agree when the key's list holds every
document the audit requires and no decoy; `never_attach` agrees when it holds every decoy the
audit finds and nothing that must go. A DME key of `scope: partial` (a task that sends one
named document of the packet) claims a part of the packet: every document it lists must be
one the audit would send. A hold for a missing document lists the missing kinds, exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from endstate.builtin.audit.derive import FAMILIES, UnknownRecord, derive
from endstate.builtin.audit.findings import Finding
from endstate.builtin.audit.outcome import Fact, Outcome, digits
from endstate.envs.world import World, generate_world

HEADLINE = {"prior_auth": "decision", "appeals_denials": "disposition", "dme": "decision"}
COMPARED: dict[str, frozenset[str]] = {
    "prior_auth": frozenset(
        {"decision", "coverage", "plan", "channel", "attach", "never_attach", "service_date"}
    ),
    "appeals_denials": frozenset(
        {"disposition", "deadline", "channel", "attach", "never_attach", "dispositions"}
    ),
    "dme": frozenset({"decision", "to_fax", "documents", "never_attach"}),
}
SCOPES = {"prior_auth": ("determination",), "dme": ("partial",)}
STRUCTURE = frozenset({"family", "record", "records", "scope"})


@lru_cache(maxsize=8)
def world_for(seed: int, clock: str) -> World:
    """The world a seed and clock make (a world is a pure function of the pair)."""
    return generate_world(seed, clock)


def check_pin(task_id: str, pin: Any) -> tuple[World | None, Finding | None]:
    """The world a task pins, regenerated, or the finding that says why it cannot be used."""
    if not isinstance(pin, dict) or "seed" not in pin or "clock" not in pin:
        return None, Finding(
            task_id=task_id, kind="bad-key", field="world", detail="the task pins no world"
        )
    try:
        world = world_for(int(pin["seed"]), str(pin["clock"]))
    except (TypeError, ValueError) as exc:
        return None, Finding(
            task_id=task_id, kind="bad-key", field="world", claimed=pin, detail=str(exc)
        )
    if pin.get("sha256") != world.sha256:
        return None, Finding(
            task_id=task_id,
            kind="world-drift",
            field="world.sha256",
            claimed=pin.get("sha256"),
            derived=world.sha256,
            detail=f"seed {world.seed} at {world.clock} no longer makes the pinned world",
        )
    return world, None


def compare_key(
    task_id: str, key: Any, world: World, family: str | None = None, record: str | None = None
) -> tuple[list[Finding], dict[str, Outcome]]:
    """Findings for one key against one world, and the outcomes derived for its records.

    `family` and `record` are the task's own (a key must name the same)."""
    bad = _shape(task_id, key, family, record)
    if bad:
        return bad, {}
    assert isinstance(key, dict)
    records = [str(r) for r in key["records"]] if "records" in key else [str(key["record"])]
    outcomes: dict[str, Outcome] = {}
    findings: list[Finding] = []
    for rec in records:
        try:
            outcome = derive(world, rec)
        except UnknownRecord as exc:
            findings.append(_bad(task_id, "record", rec, str(exc)))
            continue
        if outcome.family != key["family"]:
            findings.append(
                _bad(task_id, "family", key["family"], f"{rec} is a {outcome.family} record")
            )
            continue
        outcomes[rec] = outcome
        findings += _breaches(task_id, outcome)
    if any(f.kind == "bad-key" for f in findings):
        return findings, outcomes
    for name, claimed in key.items():
        if name in STRUCTURE:
            continue
        if name == "dispositions":
            findings += _dispositions(task_id, claimed, outcomes)
            continue
        for rec, outcome in outcomes.items():
            findings += _field(task_id, name, claimed, outcome, key.get("scope"), rec)
    return findings, outcomes


def _bad(task_id: str, name: str, claimed: Any, detail: str, record: str = "") -> Finding:
    return Finding(
        task_id=task_id, kind="bad-key", field=name, claimed=claimed, record=record, detail=detail
    )


def _shape(task_id: str, key: Any, family: str | None, record: str | None) -> list[Finding]:
    """A key the audit cannot read: not an object, an unknown family or field, no record."""
    if not isinstance(key, dict):
        return [_bad(task_id, "answer_key", key, "the answer key is not a JSON object")]
    fam = key.get("family")
    if fam not in FAMILIES:
        return [_bad(task_id, "family", fam, f"family must be one of {', '.join(FAMILIES)}")]
    out: list[Finding] = []
    if family is not None and fam != family:
        out.append(_bad(task_id, "family", fam, f"the task's family is {family}"))
    batch = "records" in key
    if batch and (fam != "appeals_denials" or not _strings(key["records"])):
        out.append(_bad(task_id, "records", key["records"], "a batch names claim ids"))
    if not batch and not isinstance(key.get("record"), str):
        out.append(_bad(task_id, "record", key.get("record"), "the key names no record"))
    if record is not None and not batch and key.get("record") != record:
        out.append(_bad(task_id, "record", key.get("record"), f"the task's record is {record}"))
    if record is not None and batch and record not in key["records"]:
        out.append(_bad(task_id, "records", key["records"], f"{record} is not among them"))
    for name in key:
        if name not in STRUCTURE and name not in COMPARED[fam]:
            out.append(_bad(task_id, name, key[name], f"not a field of a {fam} answer key"))
    scope = key.get("scope")
    if scope is not None and scope not in SCOPES.get(fam, ()):
        out.append(_bad(task_id, "scope", scope, f"not a scope of a {fam} answer key"))
    return out


def _strings(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _breaches(task_id: str, outcome: Outcome) -> list[Finding]:
    return [
        Finding(
            task_id=task_id,
            kind="breach",
            field=HEADLINE[outcome.family],
            claimed=b.value,
            rule=b.rule,
            record=outcome.record,
            detail=b.why,
        )
        for b in outcome.breaches
    ]


def _dispositions(task_id: str, claimed: Any, outcomes: dict[str, Outcome]) -> list[Finding]:
    if not isinstance(claimed, dict):
        return [_bad(task_id, "dispositions", claimed, "claim id → disposition")]
    out: list[Finding] = []
    for rec in sorted(set(claimed) - set(outcomes)):
        out.append(_bad(task_id, "dispositions", rec, "a claim the key's records do not name"))
    for rec, outcome in outcomes.items():
        if rec not in claimed:
            out.append(_bad(task_id, "dispositions", None, "no disposition stated", rec))
            continue
        out += _field(task_id, "disposition", claimed[rec], outcome, None, rec)
    return out


def _field(
    task_id: str, name: str, claimed: Any, outcome: Outcome, scope: Any, record: str
) -> list[Finding]:
    """Findings for one field of one record (none when they agree)."""
    fact = outcome.facts.get(name)
    headline = outcome.facts.get(HEADLINE[outcome.family])

    def finding(kind: Any, derived: Any, rule: str, detail: str = "") -> list[Finding]:
        return [
            Finding(
                task_id=task_id,
                kind=kind,
                field=name,
                claimed=claimed,
                derived=derived,
                rule=rule,
                record=record,
                detail=detail,
            )
        ]

    if fact is None and headline is not None and not headline.decided:
        return finding("not-derivable", None, headline.rule, f"not derivable: {headline.why}")
    if fact is None:
        decided = outcome.decision
        return finding(
            "disagreement", None, headline.rule if headline else "", f"no {name} for {decided}"
        )
    if not fact.decided:
        return finding("not-derivable", None, fact.rule, f"not derivable: {fact.why}")
    check = _LIST_CHECKS.get(name)
    if check is None:
        same = digits(claimed) == fact.value if name == "to_fax" else claimed == fact.value
        return [] if same else finding("disagreement", fact.value, fact.rule, fact.why)
    if not _strings(claimed) and claimed != []:
        return finding("disagreement", fact.value, fact.rule, "expected a list of ids")
    detail = check(set(claimed), outcome, fact, scope)
    return finding("disagreement", fact.value, fact.rule, detail) if detail else []


def _decoys(outcome: Outcome) -> set[str]:
    never = outcome.value("never_attach")
    return set(never) if never else set()


def _required(outcome: Outcome) -> set[str]:
    found = outcome.value("attach") or outcome.value("documents") or []
    return set(found) if outcome.decision != "hold-missing" else set()


def _attach(claimed: set[str], outcome: Outcome, fact: Fact, scope: Any) -> str:
    missing = set(fact.value) - claimed
    decoys = claimed & _decoys(outcome)
    return _describe(missing=missing, decoys=decoys)


def _documents(claimed: set[str], outcome: Outcome, fact: Fact, scope: Any) -> str:
    if outcome.decision == "hold-missing":
        if claimed == set(fact.value):
            return ""
        return "the missing kinds differ"
    decoys = claimed & _decoys(outcome)
    if scope == "partial":
        extra = claimed - set(fact.value)
        empty = "" if claimed else "a partial packet lists no document"
        return empty or _describe(extra=extra, decoys=decoys)
    return _describe(missing=set(fact.value) - claimed, decoys=decoys)


def _never(claimed: set[str], outcome: Outcome, fact: Fact, scope: Any) -> str:
    return _describe(
        missing=set(fact.value) - claimed, must_go=claimed & _required(outcome), what="decoy"
    )


def _describe(
    missing: set[str] | None = None,
    decoys: set[str] | None = None,
    extra: set[str] | None = None,
    must_go: set[str] | None = None,
    what: str = "required",
) -> str:
    parts = []
    if missing:
        parts.append(f"misses {what} {', '.join(sorted(missing))}")
    if decoys:
        parts.append(f"lists decoy {', '.join(sorted(decoys))}")
    if extra:
        parts.append(f"lists {', '.join(sorted(extra))}, which the packet does not carry")
    if must_go:
        parts.append(f"forbids {', '.join(sorted(must_go))}, which must go")
    return "; ".join(parts)


_LIST_CHECKS: dict[str, Callable[[set[str], Outcome, Fact, Any], str]] = {
    "attach": _attach,
    "documents": _documents,
    "never_attach": _never,
}
