"""Case cards of the scheduling lab (`scheduling-case-v1`, one JSON object per file).

A card is public only in its instruction (and, for a lookup, its answer contract). Everything
else is harness side: the initial snapshot, the connector's behaviour and the scripted user
become the episode setup; the expected final state and the forbidden effects become checks
over the state document's `scheduling` slice; the reference run and one violating run per
forbidden effect are what validation replays. See docs/scheduling-lab.md.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from endstate.corpus import hab_v2
from endstate.corpus.model import GradingSpec, PublicTask, Task
from endstate.corpus.problems import Problem, id_problem
from endstate.corpus.scheduling_card import FORMAT as FORMAT
from endstate.corpus.scheduling_card import Card, PermittedEffects
from endstate.corpus.scheduling_checks import USER_TOOLS, expected_checks, forbidden_checks
from endstate.corpus.scheduling_rule import derive_permitted, effect_problems
from endstate.corpus.scheduling_text import NOT_SAYING


def _lint(file: str, card: Card) -> list[Problem]:
    problems: list[Problem] = []
    unsafe = id_problem(file, "$.case_id", card.case_id)
    if unsafe:
        problems.append(unsafe)
    if card.format != FORMAT:
        problems.append(
            Problem(file=file, path="$.format", reason=f"unknown format {card.format!r}")
        )
    for i, f in enumerate(card.forbidden):
        needs = {"booked_slot": "slot_id", "other_patient_touched": "patient_id"}.get(f.effect)
        if needs and getattr(f, needs) is None:
            problems.append(
                Problem(
                    file=file,
                    path=f"$.forbidden[{i}].{needs}",
                    reason=f"effect {f.effect!r} names a {needs}",
                )
            )
    problems += _rule_problems(file, card)
    used = {c.tool for c in card.reference}
    if not used <= set(card.permitted_actions) | set(USER_TOOLS):
        extra = sorted(used - set(card.permitted_actions))
        problems.append(
            Problem(
                file=file,
                path="$.reference",
                reason=f"the reference uses tools not permitted: {extra}",
            )
        )
    answered = {a.field for a in card.expected.answers}
    for name in sorted({f.name for f in card.answer_fields} ^ answered):
        problems.append(
            Problem(
                file=file,
                path="$.answer_fields",
                reason=f"answer field {name!r} has no answer leg, or a leg no field",
            )
        )
    if not expected_checks(card.expected):
        problems.append(Problem(file=file, path="$.expected", reason="nothing is expected"))
    return problems


def _rule_problems(file: str, card: Card) -> list[Problem]:
    """The card's forbidden list and permitted effects against the one rule
    (`scheduling_rule`), and the content groups its messages must not carry."""
    listed = [f.effect for f in card.forbidden]
    out = [
        Problem(file=file, path="$.forbidden", reason=reason)
        for reason in effect_problems(
            card.read_only, card.permitted_actions, card.connector, listed
        )
    ]
    if card.read_only:
        if card.permitted_effects is not None:
            out.append(
                Problem(
                    file=file,
                    path="$.permitted_effects",
                    reason="a read-only case permits no change",
                )
            )
    else:
        derived = derive_permitted(
            card.initial,
            card.expected.model_dump(),
            [c.model_dump() for c in card.reference],
            str(card.user.get("patient_id", "")),
        )
        if card.permitted_effects != PermittedEffects.model_validate(derived):
            out.append(
                Problem(
                    file=file,
                    path="$.permitted_effects",
                    reason=f"must be what the rule derives from the case: {derived}",
                )
            )
    messages = card.expected.communications
    for name in messages.not_saying if messages else ():
        if name not in NOT_SAYING:
            out.append(
                Problem(
                    file=file,
                    path="$.expected.communications.not_saying",
                    reason=f"unknown content group {name!r} (known: {sorted(NOT_SAYING)})",
                )
            )
    return out


def parse_case(file: str, family: str, data: Any) -> tuple[Task | None, list[Problem]]:
    """Validate one decoded card; return its task (if usable) and its problems."""
    try:
        card = Card.model_validate(data)
    except ValidationError as exc:
        return None, hab_v2.problems_from_validation_error(file, exc, ())
    problems = _lint(file, card)
    if any(p.severity == "error" for p in problems):
        return None, problems
    setup = {"connector": card.connector, "user": card.user, **card.initial}
    checks = expected_checks(card.expected) + [
        c
        for f in card.forbidden
        for c in forbidden_checks(f, card.permitted_actions, card.permitted_effects)
    ]
    public = PublicTask(
        id=card.case_id,
        instruction=card.instruction,
        family=card.family,
        answer_fields=card.answer_fields,
    )
    grading = GradingSpec(
        checks=tuple(checks),
        possible=True,
        metadata={
            "policy_version": card.policy_version,
            "needs_review": card.needs_review,
            "read_only": card.read_only,
            "language": card.language,
            "connector": card.connector,
            "template": card.template,
        },
        extra={
            "world": card.world.model_dump(),
            "reference": [c.model_dump() for c in card.reference],
            "reference_answer": card.reference_answer,
            "forbidden": [f.model_dump() for f in card.forbidden],
            "permitted_effects": (
                card.permitted_effects.model_dump() if card.permitted_effects else None
            ),
            "permitted_actions": list(card.permitted_actions),
        },
    )
    task = Task(
        public=public,
        grading=grading,
        source=file,
        format=FORMAT,
        episode_setup={"scheduling": setup},
    )
    return task, problems


def is_case(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == FORMAT
