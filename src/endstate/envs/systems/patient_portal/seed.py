"""Writing the population into the world's template database (`System.seed`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

from endstate.envs.systems.patient_portal import model
from endstate.envs.systems.patient_portal.population import of_world
from endstate.envs.world import World

# table -> (record class, the population's attribute holding its rows)
TABLES: tuple[tuple[str, type, str], ...] = (
    ("pp_providers", model.Provider, "providers"),
    ("pp_pharmacies", model.Pharmacy, "pharmacies"),
    ("pp_patients", model.Patient, "patients"),
    ("pp_insurance", model.Insurance, "insurance"),
    ("pp_conditions", model.Condition, "conditions"),
    ("pp_medications", model.Medication, "medications"),
    ("pp_prescriptions", model.Prescription, "prescriptions"),
    ("pp_lab_tests", model.LabTest, "lab_tests"),
    ("pp_labs", model.LabResult, "labs"),
    ("pp_imaging", model.Imaging, "imaging"),
    ("pp_allergies", model.Allergy, "allergies"),
    ("pp_immunizations", model.Immunization, "immunizations"),
    ("pp_encounters", model.Encounter, "encounters"),
    ("pp_appointments", model.Appointment, "appointments"),
    ("pp_ledger", model.LedgerEntry, "ledger"),
    ("pp_messages", model.Message, "messages"),
)


def _insert(conn: sqlite3.Connection, table: str, cls: type, rows: Sequence[Any]) -> None:
    names = model.columns(cls)
    values = attrgetter(*names)
    conn.executemany(
        f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        [values(r) for r in rows],
    )


def seed(conn: sqlite3.Connection, world: World) -> None:
    """Every population table, in dependency order."""
    people = of_world(world)
    for table, cls, attr in TABLES:
        _insert(conn, table, cls, getattr(people, attr))
