"""The office's credential vault: payer portal sign-ins kept out of the chart.

Real offices do not print portal passwords on a patient's coverage page; they keep them in a
vault that shows a password only on request. Each reveal is recorded like any page view, so
a run shows which portals an attempt unlocked.
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from endstate.envs.shared.web import Ctx, endpoint
from endstate.envs.systems.ehr.links import portal_url

SYSTEM = "ehr"


@endpoint(SYSTEM)
async def vault(ctx: Ctx) -> Response:
    rows = ctx.db.rows(
        "SELECT payer, portal, MIN(portal_username) AS username, "
        "MIN(portal_password) AS password FROM plans WHERE portal IS NOT NULL "
        "GROUP BY payer, portal ORDER BY payer"
    )
    reveal = ctx.request.query_params.get("reveal", "")
    entries = [
        {
            "payer": r["payer"],
            "username": r["username"],
            "password": r["password"] if r["payer"] == reveal else None,
            "url": portal_url(ctx, r["portal"]),
        }
        for r in rows
    ]
    if any(e["password"] for e in entries):
        ctx.event("credentials.reveal", {"payer": reveal})
    return ctx.render("ehr/credentials.html", entries=entries)


ROUTES = [Route("/credentials", vault)]
