"""What a member may be asked to pay, by the kind of plan.

A provider may not bill a Medi-Cal (Medicaid managed care) member for the balance of a covered
service: the plan's payment, with any cost sharing the program itself imposes, is payment in
full (medicaid-payment-in-full, medi-cal-balance-billing). Medi-Cal's own cost sharing is a
nominal copayment ($1 a visit for some services, $5 for non-emergency use of an emergency
department) that the provider may collect or waive (medi-cal-copayments); the world's
providers always waive it, and no member of the world has a Medi-Cal share of cost. So a
Medi-Cal claim here carries no PR-1/2/3 adjustment, and no denial of one is ever "transfer to
the patient".
"""

from __future__ import annotations

from endstate.rules.plans import is_medicaid

SOURCES = ("medicaid-payment-in-full", "medi-cal-balance-billing", "medi-cal-copayments")
MEMBER_SHARE_CARCS = ("1", "2", "3")  # deductible, coinsurance, copay (group PR)


def cost_sharing_allowed(plan_kind: str) -> bool:
    """Whether the plan's members may owe a deductible, coinsurance or copay (a Medi-Cal
    member's nominal copay is always waived here)."""
    return not is_medicaid(plan_kind)


def may_bill_member(plan_kind: str) -> bool:
    """Whether a provider may bill the member for a balance the plan did not pay (a covered
    service's cost sharing, a service after coverage ended is another matter: see PR-27)."""
    return not is_medicaid(plan_kind)
