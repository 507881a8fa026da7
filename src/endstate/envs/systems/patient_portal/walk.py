"""Fingerprinting the pages behind the portal's sign-in.

The fingerprint signs in before `System.sign_in_before` only with a payer plan's portal
account; a patient portal has one account per patient instead. So the probes stop at the
login page, and this walk signs in as the population's first patient and renders the rest,
naming one-record pages by placeholders (their ids are data, not structure).
"""

from __future__ import annotations

from typing import Any

import httpx

from endstate.envs.suite.fingerprint import login, page_structure
from endstate.envs.systems.patient_portal.model import Appointment, Message, Patient
from endstate.envs.systems.patient_portal.population import of_world
from endstate.envs.world import World

PROBES = ["/login"]
BEHIND_LOGIN = (
    "/home",
    "/labs",
    "/imaging",
    "/problems",
    "/allergies",
    "/medications",
    "/prescriptions",
    "/immunizations",
    "/visits",
    "/billing",
    "/appointments",
    "/appointments/new",
    "/messages",
    "/messages/new",
    "/messages/sent",
    "/records-request",
    "/pharmacy",
)
LEDGER_QUERY = "/billing?from={date}&to={date}&show=all"


def walker(world: World) -> tuple[Patient, Appointment, Message]:
    """The patient the walk signs in as, with an appointment they can cancel and a message."""
    people = of_world(world)
    first = people.patients[0]
    appointment = next(
        a
        for a in people.appointments
        if a.patient_id == first.id and a.status == "scheduled" and a.starts_at >= world.clock
    )
    message = next(m for m in people.messages if m.patient_id == first.id)
    return first, appointment, message


async def walk_portal(client: httpx.AsyncClient, world: World) -> dict[str, Any]:
    """Sign in as the first patient and fingerprint every page behind the login."""
    patient, appointment, message = walker(world)
    await login(client, patient.username, patient.password)
    today = world.today
    ledger = f"/billing?from=01/01/2000&to={today:%m/%d/%Y}&show=all"
    paths = {p: p for p in BEHIND_LOGIN} | {
        LEDGER_QUERY: ledger,
        "/appointments/{appointment}/cancel": f"/appointments/{appointment.id}/cancel",
        "/messages/{message}": f"/messages/{message.id}",
    }
    pages: dict[str, Any] = {}
    for key, path in paths.items():
        response = await client.get(path)
        text = response.text.replace(appointment.id, "{appointment}")
        pages[key] = {"status": response.status_code} | page_structure(text)
    return pages
