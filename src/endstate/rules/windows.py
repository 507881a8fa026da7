"""How long a provider has to appeal a denial and to file a (corrected) claim, by plan kind.

Every plan of the embedded world is a California plan. Medicare Advantage plans (and a
medical group one delegates to) follow the federal rules, which preempt the state's; every
other plan — Medi-Cal managed care and the commercial HMO, EPO and PPO plans — is licensed
under the Knox-Keene Act and follows the Department of Managed Health Care's regulations.

- Medicare Advantage, and a medical group it delegates to: appeal (reconsideration) within 60
  calendar days of the notice of the determination (ma-reconsideration); claims within 365 days
  of the date of service, Original Medicare's one calendar year (medicare-timely-filing). The
  federal texts bind the plan toward its members and non-contracted providers; a contracted
  provider's limits are its contract's, and the world's contracts copy these.
- Medi-Cal managed care: a provider dispute within 365 days of the plan's action
  (ca-provider-disputes); claims within 180 days of the date of service (ca-timely-filing).
- Commercial (Knox-Keene): a provider dispute within 365 days of the plan's action
  (ca-provider-disputes); a contracted provider's claims within 90 days of the date of
  service (ca-timely-filing).

The Knox-Keene numbers are floors a plan may not go below (a plan may allow more): 365 days
for a dispute, and 90 days for a contracted provider's claim or 180 for a non-contracted one.
The world's plans use the floor itself; the Medi-Cal plans take 180 days, which the
regulation allows (it is above the contracted floor) but does not prescribe.

A plan's own number must be the one here (`coherence` refuses a world whose plan differs).
"""

from __future__ import annotations

from dataclasses import dataclass

from endstate.rules.plans import is_medicaid, is_medicare

SOURCES = (
    "ma-reconsideration",
    "medicare-timely-filing",
    "ca-provider-disputes",
    "ca-timely-filing",
)


@dataclass(frozen=True)
class Windows:
    appeal_days: int
    appeal_source: str
    timely_filing_days: int
    timely_filing_source: str


def windows_for(plan_kind: str) -> Windows:
    if is_medicare(plan_kind):
        return Windows(60, "ma-reconsideration", 365, "medicare-timely-filing")
    if is_medicaid(plan_kind):
        return Windows(365, "ca-provider-disputes", 180, "ca-timely-filing")
    return Windows(365, "ca-provider-disputes", 90, "ca-timely-filing")
