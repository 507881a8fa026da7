"""What a member may be asked to pay, by the kind of plan.

A Medi-Cal (Medicaid managed care) member owes no deductible, coinsurance or copay for a
covered service, and a provider may not bill them for it: the plan's payment is payment in
full (medicaid-payment-in-full, medi-cal-balance-billing). So a Medi-Cal claim carries no
PR-1/2/3 adjustment, and no denial of one is ever "transfer to the patient".
"""

from __future__ import annotations

from endstate.rules.plans import is_medicaid

SOURCES = ("medicaid-payment-in-full", "medi-cal-balance-billing")
MEMBER_SHARE_CARCS = ("1", "2", "3")  # deductible, coinsurance, copay (group PR)


def cost_sharing_allowed(plan_kind: str) -> bool:
    """Whether the plan's members may owe a deductible, coinsurance or copay."""
    return not is_medicaid(plan_kind)


def may_bill_member(plan_kind: str) -> bool:
    """Whether a provider may bill the member for a balance the plan did not pay (a covered
    service's cost sharing, a service after coverage ended is another matter: see PR-27)."""
    return not is_medicaid(plan_kind)
