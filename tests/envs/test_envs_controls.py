"""Every control a system declares for reference trajectories (envs/systems/*/controls.py) is on
its page under that name, found the way the replay agent finds it: a label renamed in a page
fails here, before any browser replay of the built-in corpus."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Page

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.shared.controls import Controls
from endstate.envs.suite.fingerprint import nonce
from endstate.envs.systems.ehr import controls as ehr
from endstate.envs.systems.fax import controls as fax
from endstate.envs.systems.patient_portal import controls as patient_portal
from endstate.envs.systems.patient_portal.population import of_world
from endstate.envs.systems.payer_a import controls as payer_a
from endstate.envs.systems.payer_b import controls as payer_b
from endstate.envs.systems.payer_b.walk import PROBE_ATTACHMENT, STEPS, wizard_answers
from endstate.envs.world import World

DECLARED = {
    "ehr": ehr.PAGES,
    "fax": fax.PAGES,
    "payer_a": payer_a.PAGES,
    "payer_b": payer_b.PAGES,
    "patient_portal": patient_portal.PAGES,
}
SIGN_IN = {
    "payer_a": (payer_a.USERNAME, payer_a.PASSWORD, payer_a.SIGN_IN),
    "payer_b": (payer_b.USER_ID, payer_b.PASSWORD, payer_b.LOG_IN),
    "patient_portal": (patient_portal.USERNAME, patient_portal.PASSWORD, patient_portal.SIGN_IN),
}


def _missing(page: Page, controls: Controls, names: dict[str, Any]) -> list[str]:
    """Declared names not found; a name with placeholders is looked up for the first line."""

    def has(role: str, name: str) -> bool:
        if role in ("field", "prefix"):
            label = name.format(**names)
            return bool(page.get_by_label(label, exact=role == "field").count())
        return bool(page.get_by_role(role, name=name.format(**names)).count())  # type: ignore[arg-type]

    wanted = [("field", n) for n in controls.fields] + [("button", n) for n in controls.buttons]
    wanted += [("prefix", n) for n in controls.field_prefixes]
    wanted += [("button", n) for n in controls.listboxes] + [("link", n) for n in controls.links]
    kinds = {"field": "field", "prefix": "field", "button": "button", "link": "link"}
    listboxes = set(controls.listboxes)
    return [
        f"{'list box' if n in listboxes else kinds[role]} {n!r}"
        for role, n in wanted
        if not has(role, n)
    ]


def _names(world: World) -> dict[str, Any]:
    referral = next(r for r in world.referrals if any(d.mrn == r.mrn for d in world.documents))
    claim = world.denials[0]
    portal_b = {p.id for p in world.plans if p.portal == "payer_b"}
    return {
        "referral": referral.id,
        "mrn": referral.mrn,
        "claim": claim.claim_id,
        "claim_b": next(d.claim_id for d in world.denials if d.plan_id in portal_b),
        "order": world.dme_orders[0].id,
        "n": 1,
        "line": claim.lines[0].line,
        "cpt": claim.lines[0].cpt,
    }


def _account(world: World, system: str) -> tuple[str, str]:
    """A payer portal's plan account, or the patient portal's first patient's."""
    if system == "patient_portal":
        first = of_world(world).patients[0]
        return first.username, first.password
    plan = next(p for p in world.plans if p.portal == system)
    return plan.portal_username or "", plan.portal_password or ""


def _sign_in(page: Page, world: World, system: str) -> None:
    username, secret = _account(world, system)
    user, password, button = SIGN_IN[system]
    page.get_by_label(user, exact=True).fill(username)
    page.get_by_label(password, exact=True).fill(secret)
    page.get_by_role("button", name=button).click()
    page.wait_for_load_state()


@pytest.mark.parametrize("system", sorted(DECLARED))
def test_every_declared_control_is_on_its_page(
    system: str, suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    names = _names(world)
    page.goto(episode.start_urls[system])
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(page.url))
    if system in SIGN_IN:
        page.goto(origin + "/login")
        assert not _missing(page, DECLARED[system]["/login"], names)
        _sign_in(page, world, system)
    for path, controls in DECLARED[system].items():
        if system in SIGN_IN and path == "/login":
            continue  # checked before signing in
        page.goto(origin + path.format(**names))
        assert page.url.startswith(origin + path.format(**names).split("?")[0]), page.url
        assert not _missing(page, controls, names), (system, path, _missing(page, controls, names))


def test_every_step_of_the_wizard_offers_its_controls(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    """Payer B's steps open only once the step before is saved: save each with valid answers."""
    world = suite.world
    names = _names(world)
    page.goto(episode.start_urls["payer_b"])
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(page.url))
    _sign_in(page, world, "payer_b")
    answers = wizard_answers(world)
    field, filename, content, kind = PROBE_ATTACHMENT
    for step, (path, controls) in zip(STEPS, payer_b.WIZARD.items(), strict=True):
        page.goto(origin + path)
        assert page.url == origin + path, (step, page.url)
        assert not _missing(page, controls, names), (path, _missing(page, controls, names))
        if step in answers:
            multipart: dict[str, Any] = answers[step] | {"_nonce": nonce(page.content())}
            if step == "clinical":
                multipart[field] = {"name": filename, "mimeType": kind, "buffer": content}
            saved = page.request.post(origin + path, multipart=multipart, max_redirects=0)
            assert saved.status in (302, 303), (step, saved.status, saved.text()[:300])


def test_a_renamed_control_is_caught(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    page.goto(episode.start_urls["payer_a"])
    renamed = Controls(fields=("User name",), buttons=("Sign on",))
    assert _missing(page, renamed, {}) == ["field 'User name'", "button 'Sign on'"]
