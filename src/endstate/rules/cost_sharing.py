"""What a member may be asked to pay, by the kind of plan.

A provider may not bill a Medi-Cal (Medicaid managed care) member for the balance of a covered
service: the plan's payment, with any cost sharing the program itself imposes, is payment in
full (medicaid-payment-in-full, medi-cal-balance-billing). Medi-Cal's own cost sharing is a
nominal copayment ($1 a visit for some services, $5 for non-emergency use of an emergency
department) that the provider may collect or waive (medi-cal-copayments); the world's
providers always waive it, and no member of the world has a Medi-Cal share of cost. So a
Medi-Cal claim here carries no PR-1/2/3 adjustment, and no denial of one is ever "transfer to
the patient".

The protection follows the member, not the claim: a Medi-Cal member whose other plan pays
first may not be billed for the deductible, coinsurance or copay that plan leaves either.
Medi-Cal pays last (medicaid-last-resort), so that balance is billed to Medi-Cal as the
secondary payer, never to the member (medi-cal-balance-billing).
"""

from __future__ import annotations

from collections.abc import Iterable

from endstate.rules.plans import is_medicaid

SOURCES = (
    "medicaid-payment-in-full",
    "medi-cal-balance-billing",
    "medi-cal-copayments",
    "medicaid-last-resort",
)
MEMBER_SHARE_CARCS = ("1", "2", "3")  # deductible, coinsurance, copay (group PR)


def cost_sharing_allowed(plan_kind: str) -> bool:
    """Whether the plan's members may owe a deductible, coinsurance or copay (a Medi-Cal
    member's nominal copay is always waived here)."""
    return not is_medicaid(plan_kind)


def may_bill_member(plan_kind: str) -> bool:
    """Whether a provider may bill the member for a balance the plan did not pay (a covered
    service's cost sharing, a service after coverage ended is another matter: see PR-27)."""
    return not is_medicaid(plan_kind)


def member_share_billed_to(other_kinds_in_force: Iterable[str]) -> str:
    """Who is billed for the member share a paying plan left (PR-1/2/3), given the kinds of
    the patient's *other* coverages in force on the date of service: Medi-Cal as secondary
    (`bill-secondary`) when one of them is Medi-Cal, else the patient (`bill-patient`)."""
    return "bill-patient" if may_bill_member_beside(other_kinds_in_force) else "bill-secondary"


def may_bill_member_beside(other_kinds_in_force: Iterable[str]) -> bool:
    """Whether a member share may be billed to the patient at all, given the kinds of the
    patient's other coverages in force on the date of service (no Medi-Cal among them)."""
    return not any(is_medicaid(kind) for kind in other_kinds_in_force)
