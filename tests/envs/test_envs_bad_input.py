"""Bad input to every form and query of every system: a visible message or a refusal, never a
500, and no server error recorded in the episode."""

from __future__ import annotations

import re
from urllib.parse import quote

from endstate.envs import EmbeddedSuite, EpisodeInfo

from .envs_support import Visitor

HOSTILE = (
    "",
    "\x00",
    "   ",
    "💥 ✓ ünïcödé",
    "A" * 12000,
    "13/45/2020",
    "-1",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "../../etc/passwd",
)
FIELD = re.compile(r'name="([a-z_0-9]+)"')


def _fields(html: str) -> list[str]:
    return sorted(set(FIELD.findall(html)) - {"_nonce"})


def _hammer(v: Visitor, page: str, action: str) -> list[tuple[str, int]]:
    """Post every hostile value into every field of the page's forms; return any 5xx."""
    bad: list[tuple[str, int]] = []
    names = _fields(v.get(page).text)
    for value in HOSTILE:
        v.get(page)
        body = {name: value for name in names} | {"_nonce": v.nonce()}
        r = v.client.post(v.base + action, data=body)
        if r.status_code >= 500:
            bad.append((f"{action} <- {value[:20]!r}", r.status_code))
    return bad


def _query(v: Visitor, paths: list[str]) -> list[tuple[str, int]]:
    bad = []
    for path in paths:
        for value in HOSTILE[1:]:
            r = v.get(path.replace("{x}", quote(value[:2000], safe="")))
            if r.status_code >= 500:
                bad.append((f"{path} <- {value[:20]!r}", r.status_code))
    return bad


def _login(v: Visitor, suite: EmbeddedSuite, portal: str) -> None:
    plan = next(p for p in suite.world.plans if p.portal == portal)
    v.get("/login")
    v.post(
        "/login", {"username": plan.portal_username or "", "password": plan.portal_password or ""}
    )


def test_hostile_input_never_causes_a_server_error(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    world = suite.world
    rid, cid, oid = world.referrals[0].id, world.denials[0].claim_id, world.dme_orders[0].id
    bad: list[tuple[str, int]] = []

    ehr = Visitor(episode.start_urls["ehr"])
    bad += _hammer(ehr, f"/referrals/{rid}?tab=communications", f"/referrals/{rid}/notes")
    bad += _hammer(ehr, f"/referrals/{rid}?tab=authorizations", f"/referrals/{rid}/authorization")
    bad += _hammer(ehr, f"/referrals/{rid}", f"/referrals/{rid}/clear")
    bad += _hammer(ehr, f"/denials/{cid}?tab=appeal", f"/denials/{cid}/triage")
    bad += _hammer(ehr, f"/denials/{cid}?tab=appeal", f"/denials/{cid}/appeal-letter")
    bad += _hammer(ehr, f"/dme/{oid}?tab=notes", f"/dme/{oid}/notes")
    bad += _hammer(ehr, f"/referrals/{rid}?tab=communications", "/referrals/REF-0000-0000/notes")
    bad += _query(
        ehr,
        [
            "/worklist?page={x}&show={x}",
            "/denials?page={x}&triaged={x}",
            "/dme?page={x}",
            f"/referrals/{rid}?tab={{x}}&saved={{x}}",
            f"/denials/{cid}?tab={{x}}",
            f"/patients/{world.denials[0].mrn}?claim={{x}}",
            "/patients/{x}",
            "/documents/{x}",
        ],
    )
    ehr.close()

    a = Visitor(episode.start_urls["payer_a"])
    _login(a, suite, "payer_a")
    bad += _hammer(a, "/prior-auth/new", "/prior-auth/new")
    bad += _hammer(a, "/appeals/new", "/appeals/new")
    bad += _query(
        a,
        [
            "/eligibility?check=1&member_id={x}&member_dob={x}&service_date={x}",
            "/claims?q={x}",
            "/claims/{x}",
            "/prior-auth?q={x}",
            "/appeals/new?claim_id={x}",
            "/prior-auth/{x}",
        ],
    )
    bad += _hammer(a, "/login", "/login")
    a.close()

    b = Visitor(episode.start_urls["payer_b"])
    _login(b, suite, "payer_b")
    bad += _hammer(b, "/requests/new/member", "/requests/new/member")
    bad += _hammer(b, "/requests/new/member", "/requests/new/clinical")  # out of order
    bad += _hammer(b, "/requests/new/member", "/requests/new/review")
    bad += _hammer(b, "/appeals/file", "/appeals/file")
    bad += _query(
        b,
        [
            "/inquiry?search=1&by={x}&q={x}",
            "/appeals/file?claim_id={x}",
            "/education?plan={x}",
            "/requests/new/{x}",
            "/requests/{x}",
        ],
    )
    b.close()

    f = Visitor(episode.start_urls["fax"])
    bad += _hammer(f, f"/compose?mrn={world.patients[0].mrn}", "/compose")
    bad += _query(f, ["/compose?mrn={x}&recipient={x}&fax_number={x}", "/transmissions/{x}"])
    f.close()

    assert bad == []
    state = suite.state(episode.id)
    assert state["summary"]["server_errors"] == 0
    assert state["summary"]["invalid_submissions"] > 0, "the hostile posts reached validation"
    assert state["fax"]["transmissions"] == [] and state["payer_a"]["pa_submissions"] == []
