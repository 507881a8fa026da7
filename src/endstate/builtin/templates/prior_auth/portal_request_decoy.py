"""Hard: the same round trip, with an older or unsigned letter waiting to be attached."""

from __future__ import annotations

from endstate.builtin.templates.prior_auth.portal_request import PortalRequest


class PortalRequestDecoy(PortalRequest):
    """Hard: the same round trip, with an older or unsigned letter waiting to be attached."""

    id = "pa.hard.portal-request-decoy-letter"
    tier = "hard"
    scenario_label = "authorization_request"
    decoy = True
