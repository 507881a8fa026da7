"""A structural fingerprint of the pages: routes, forms, field names and ARIA roles.

It is taken from pages rendered for a throw-away probe episode and keeps only structure
(never data, nonces or row counts), so it changes when a page's controls change and not
when the world's records do.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from html.parser import HTMLParser
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.routing import BaseRoute, Mount, Route

from endstate.envs.suite.registry import systems as registered_systems
from endstate.envs.suite.runtime import Runtime

FINGERPRINT_VERSION = 1
_IDS = (
    (re.compile(r"REF-\d{4}-\d{4}"), "{referral}"),
    (re.compile(r"DOC-\d{5}"), "{document}"),
    (re.compile(r"MRN\d{8}"), "{mrn}"),
    (re.compile(r"CLM\d{9}"), "{claim}"),
    (re.compile(r"DME-\d{4}"), "{dme_order}"),
    (re.compile(r"(PA|FX|AP|RQ|GA)-[A-Z0-9]{8,10}"), "{number}"),
)


def generic_ids(text: str) -> str:
    for pattern, token in _IDS:
        text = pattern.sub(token, text)
    return text


class _Structure(HTMLParser):
    """Collects forms with their fields, and the set of roles and controls on a page."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self.roles: set[str] = set()
        self._form: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "role" in a:
            self.roles.add(a["role"])
        if tag == "form":
            self._form = {
                "method": a.get("method", "get").lower(),
                "action": generic_ids(a.get("action", "")),
                "fields": [],
            }
            self.forms.append(self._form)
        elif tag in ("input", "select", "textarea", "button") and self._form is not None:
            name = a.get("name", "")
            default = {"input": "text", "button": "submit"}.get(tag, tag)
            if name or tag == "button":
                field = f"{tag}:{a.get('type', default)}:{generic_ids(name)}"
                if field not in self._form["fields"]:
                    self._form["fields"].append(field)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def _routes(routes: list[BaseRoute]) -> list[str]:
    out: list[str] = []
    for r in routes:
        if isinstance(r, Route):
            out.append(f"{','.join(sorted((r.methods or set()) - {'HEAD'}))} {r.path}")
        elif isinstance(r, Mount):
            out.append(f"MOUNT {r.path}")
    return sorted(out)


def page_structure(html: str) -> dict[str, Any]:
    parsed = _Structure()
    parsed.feed(html)
    return {
        "forms": sorted(parsed.forms, key=lambda f: json.dumps(f, sort_keys=True)),
        "roles": sorted(parsed.roles),
    }


async def fingerprint(runtime: Runtime, apps: dict[str, Starlette]) -> dict[str, Any]:
    """Render each system's main pages for a probe episode and hash their structure."""
    episode = runtime.open_episode(seed=0, episode_id=f"probe-{secrets.token_hex(6)}")
    try:
        world = runtime.world
        plans = {
            portal: next(p for p in world.plans if p.portal == portal)
            for portal in apps
            if any(p.portal == portal for p in world.plans)
        }
        registered = registered_systems()
        systems: dict[str, Any] = {}
        for system, app in apps.items():
            transport = httpx.ASGITransport(app=app)
            base = runtime.base_urls.get(system, "http://probe")
            async with httpx.AsyncClient(transport=transport, base_url=base) as client:
                await client.get(f"/start?t={episode.start_tokens[system]}")
                pages: dict[str, Any] = {}
                unit = registered.get(system)
                sign_in_before = unit.sign_in_before if unit else None
                for path in unit.probes(world) if unit else []:
                    if system in plans and path == sign_in_before:
                        plan = plans[system]
                        await login(client, plan.portal_username or "", plan.portal_password or "")
                    response = await client.get(path)
                    pages[generic_ids(path)] = {"status": response.status_code} | page_structure(
                        response.text
                    )
                if unit is not None and unit.walk is not None:
                    pages |= await unit.walk(client, world)
            systems[system] = {"routes": _routes(app.routes), "pages": pages}
    finally:
        runtime.close_episode(episode.id)
    # Whether controls carry data-testid is structure too; their values follow the data.
    body = {"version": FINGERPRINT_VERSION, "testids": runtime.testids, "systems": systems}
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
    return body | {"sha256": digest}


def nonce(html: str) -> str:
    """The form nonce a page carries (empty when it has none)."""
    found = re.search(r'name="_nonce" value="([^"]+)"', html)
    return found.group(1) if found else ""


async def login(client: httpx.AsyncClient, username: str, password: str) -> None:
    page = await client.get("/login")
    await client.post(
        "/login",
        data={
            "_nonce": nonce(page.text),
            "username": username,
            "password": password,
        },
    )
