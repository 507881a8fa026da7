"""One map from a denial's adjustment reason to the action it calls for, and its deadline.

Reasons and their published texts are in `rules.remittance`; the windows the deadlines come
from in `rules.windows`; who may be billed in `rules.cost_sharing`; which coverage pays first
(what CO-22 and PR-27 turn on) in `rules.cob`.

Every denial template, the EHR's denial playbook page and the coherence of expected answers
rest on this map, so a disposition is never decided twice in two places. An action is
governed by one clock: an appeal or a reconsideration runs on the payer's appeal deadline
(from the remittance date); a corrected claim is a new submission and runs on the plan's
timely-filing limit (from the date of service), not on the appeal deadline. When the clock
that governs the action has run out, the balance is written off. Reasons under group code
CO are the provider's contractual obligation, a write-off for the provider that is not billed
to the patient; PR is what the patient owes (claim-adjustment-group-codes).

X12 publishes CARC 18 for use with group OA (CO only where a workers' compensation rule
requires it), so a duplicate is OA-18 here. One reading is the world's own: a claim filed
late (CO-29) is written off because the world's records never show a good cause for the
delay; with one, a Knox-Keene plan would take it up after all on a provider dispute
(ca-timely-filing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SOURCES = ("carc-list", "claim-adjustment-group-codes", "ca-timely-filing")
Clock = Literal["appeal", "timely-filing"]
LAPSED = "write-off"  # what is left when the governing clock has run out


@dataclass(frozen=True)
class DenialAction:
    """What one adjustment reason (group + CARC) calls for when the record alone decides."""

    group: str
    carc: str
    disposition: str | None  # None: the record alone cannot decide (see `depends_on`)
    clock: Clock | None  # the deadline that governs the action, if any
    why: str
    depends_on: str = ""  # what else decides it, where the reason alone does not
    between: tuple[str, ...] = ()  # the dispositions those other facts choose between

    @property
    def code(self) -> str:
        return f"{self.group}-{self.carc}"

    @property
    def possible(self) -> frozenset[str]:
        """Every disposition this reason can lead to, its lapsed write-off included."""
        found = set(self.between) | ({self.disposition} if self.disposition else set())
        if self.clock is not None:
            found.add(LAPSED)
        return frozenset(found)


DENIAL_ACTIONS: tuple[DenialAction, ...] = (
    DenialAction(
        "PR",
        "1",
        "bill-patient",
        None,
        "The deductible is the patient's to pay, unless the patient also has Medi-Cal on the "
        "date of service: then Medi-Cal is billed as secondary, never the member "
        "(rules.cost_sharing).",
        "bill Medi-Cal as secondary when the patient has it on the date of service",
        ("bill-patient", "bill-secondary"),
    ),
    DenialAction(
        "CO", "50", "appeal", "appeal", "Medical necessity is argued with the clinical record."
    ),
    DenialAction(
        "CO",
        "16",
        "corrected-claim",
        "timely-filing",
        "Information was missing: resubmit the claim with it, within timely filing.",
    ),
    DenialAction(
        "CO",
        "4",
        "corrected-claim",
        "timely-filing",
        "A modifier error is fixed on a corrected claim, within timely filing.",
    ),
    DenialAction(
        "CO",
        "11",
        "corrected-claim",
        "timely-filing",
        "A diagnosis that does not support the procedure is fixed on a corrected claim.",
    ),
    DenialAction(
        "CO",
        "29",
        "write-off",
        None,
        "The claim was filed after the timely-filing limit with no good cause on record; the "
        "remittance's N211 says it may not be appealed.",
    ),
    DenialAction(
        "OA",
        "18",
        "write-off",
        None,
        "An exact duplicate: the original claim stands; nothing to contest.",
    ),
    DenialAction(
        "CO",
        "96",
        "write-off",
        None,
        "A non-covered charge under group CO is the provider's obligation, not the patient's.",
    ),
    DenialAction(
        "CO",
        "197",
        None,
        "appeal",
        "Services without a required authorization are provider liability.",
        "appeal if an authorization was on file for the date of service, else write off",
        ("appeal", "write-off"),
    ),
    DenialAction(
        "CO",
        "22",
        None,
        "appeal",
        "The payer says another payer is primary.",
        "bill the coverage in force on the date of service, else request reconsideration",
        ("bill-secondary", "reconsideration"),
    ),
    DenialAction(
        "PR",
        "27",
        None,
        None,
        "Coverage had ended before the date of service.",
        "bill the coverage in force on the date of service, else transfer to the patient",
        ("bill-secondary", "bill-patient"),
    ),
)
_BY_CODE = {(a.group, a.carc): a for a in DENIAL_ACTIONS}


class UnknownReason(KeyError):
    """A reason the map does not cover: a template must not guess its disposition."""


def action_for(group: str, carc: str) -> DenialAction:
    try:
        return _BY_CODE[(group, carc)]
    except KeyError:
        raise UnknownReason(f"no denial action for {group}-{carc}") from None


def governing_deadline(action: DenialAction, appeal: str, timely_filing: str) -> str | None:
    """The ISO date the action must be taken by (None: no clock governs it)."""
    if action.clock == "appeal":
        return appeal
    if action.clock == "timely-filing":
        return timely_filing
    return None


def disposition(group: str, carc: str, appeal: str, timely_filing: str, today: str) -> str:
    """The disposition for a reason the record alone decides, given the two deadlines and
    today (ISO dates): the action, or a write-off once its own clock has run out."""
    action = action_for(group, carc)
    if action.disposition is None:
        raise UnknownReason(
            f"{action.code} depends on more than the remittance: {action.depends_on}"
        )
    deadline = governing_deadline(action, appeal, timely_filing)
    if deadline is not None and deadline < today:
        return LAPSED
    return action.disposition


def decided_by_reason(group: str, carc: str) -> bool:
    """Whether the remittance's reason alone decides the action (no other facts needed)."""
    found = _BY_CODE.get((group, carc))
    return found is not None and found.disposition is not None
