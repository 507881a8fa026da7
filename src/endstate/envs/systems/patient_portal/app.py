"""The patient portal's routes: a patient signs in with their own account and sees only their
own record. The pages live by group: account.py (sign-in, home), record.py (labs, imaging, problems,
allergies, medications, prescriptions, immunizations, visits), billing.py, appointments.py,
messages.py and requests.py (records transfer, pharmacy)."""

from __future__ import annotations

from starlette.routing import Route

from endstate.envs.shared.web import start_endpoint
from endstate.envs.systems.patient_portal import (
    account,
    appointments,
    billing,
    messages,
    record,
    requests,
)
from endstate.envs.systems.patient_portal.common import SYSTEM

ROUTES = [
    Route("/start", start_endpoint(SYSTEM, "/login")),
    Route("/", account.root),
    Route("/login", account.login_page),
    Route("/login", account.login, methods=["POST"]),
    Route("/logout", account.logout, methods=["POST"]),
    Route("/home", account.home),
    Route("/labs", record.labs),
    Route("/imaging", record.imaging),
    Route("/problems", record.problems),
    Route("/allergies", record.allergies),
    Route("/medications", record.medications),
    Route("/prescriptions", record.prescriptions),
    Route("/immunizations", record.immunizations),
    Route("/visits", record.visits),
    Route("/billing", billing.ledger),
    Route("/appointments", appointments.appointments),
    Route("/appointments/new", appointments.book_page),
    Route("/appointments/new", appointments.book, methods=["POST"]),
    Route("/appointments/{aid}/cancel", appointments.cancel_page),
    Route("/appointments/{aid}/cancel", appointments.cancel, methods=["POST"]),
    Route("/messages", messages.inbox),
    Route("/messages/new", messages.compose_page),
    Route("/messages/new", messages.send, methods=["POST"]),
    Route("/messages/sent", messages.sent),
    Route("/messages/{mid}", messages.read),
    Route("/records-request", requests.records_page),
    Route("/records-request", requests.records_request, methods=["POST"]),
    Route("/pharmacy", requests.pharmacy_page),
    Route("/pharmacy", requests.change_pharmacy, methods=["POST"]),
]
