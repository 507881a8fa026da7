"""The scheduling service's own tables (`sc_`).

The directory (patients, providers, locations, slots) is seeded into the template; every
other table starts empty and is written only by the service, one transaction per request, so
an episode's delta is exactly what its requests did. `sc_external_*` is the external
scheduling system the connector talks to: its own records, kept apart from the service's, so
a duplicate booking there is visible even when the service recorded only one.
"""

from __future__ import annotations

DDL = """
CREATE TABLE sc_patients (
  id TEXT PRIMARY KEY, first TEXT NOT NULL, last TEXT NOT NULL, dob TEXT NOT NULL,
  phone TEXT NOT NULL, mrn TEXT NOT NULL UNIQUE);
CREATE TABLE sc_providers (id TEXT PRIMARY KEY, name TEXT NOT NULL, specialty TEXT NOT NULL);
CREATE TABLE sc_locations (id TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE sc_slots (
  id TEXT PRIMARY KEY, provider_id TEXT NOT NULL, location_id TEXT NOT NULL,
  starts_at TEXT NOT NULL, minutes INTEGER NOT NULL);
CREATE TABLE sc_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sc_requests (
  id INTEGER PRIMARY KEY, tool TEXT NOT NULL, idempotency_key TEXT, arguments TEXT NOT NULL,
  status TEXT NOT NULL, result TEXT NOT NULL, actor TEXT NOT NULL, at TEXT NOT NULL,
  UNIQUE (tool, idempotency_key));
CREATE TABLE sc_holds (
  id INTEGER PRIMARY KEY, slot_id TEXT NOT NULL, patient_id TEXT NOT NULL,
  lease_expires_at TEXT NOT NULL, status TEXT NOT NULL, request_id INTEGER NOT NULL);
CREATE TABLE sc_proposals (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, action TEXT NOT NULL,
  appointment_id INTEGER, status TEXT NOT NULL, request_id INTEGER NOT NULL);
CREATE TABLE sc_revisions (
  proposal_id INTEGER NOT NULL, revision INTEGER NOT NULL, slot_id TEXT,
  note TEXT, request_id INTEGER NOT NULL, PRIMARY KEY (proposal_id, revision));
CREATE TABLE sc_approvals (
  id INTEGER PRIMARY KEY, proposal_id INTEGER NOT NULL, revision INTEGER NOT NULL,
  kind TEXT NOT NULL, channel TEXT NOT NULL DEFAULT '', body_sha256 TEXT NOT NULL DEFAULT '',
  actor TEXT NOT NULL, request_id INTEGER NOT NULL, at TEXT NOT NULL,
  UNIQUE (proposal_id, revision, kind, channel, body_sha256));
CREATE TABLE sc_appointments (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, slot_id TEXT NOT NULL,
  status TEXT NOT NULL, external_id TEXT, external_seq INTEGER NOT NULL DEFAULT 0,
  proposal_id INTEGER, revision INTEGER, request_id INTEGER NOT NULL);
CREATE TABLE sc_communications (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, proposal_id INTEGER NOT NULL,
  revision INTEGER NOT NULL, channel TEXT NOT NULL, body TEXT NOT NULL,
  approval_id INTEGER NOT NULL, request_id INTEGER NOT NULL, at TEXT NOT NULL);
CREATE TABLE sc_audit (
  id INTEGER PRIMARY KEY, request_id INTEGER NOT NULL, actor TEXT NOT NULL,
  action TEXT NOT NULL, proposal_id INTEGER, revision INTEGER, approval_id INTEGER,
  appointment_id INTEGER, at TEXT NOT NULL);
CREATE TABLE sc_conversation (
  id INTEGER PRIMARY KEY, speaker TEXT NOT NULL, text TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE sc_external_bookings (
  id INTEGER PRIMARY KEY, external_id TEXT NOT NULL UNIQUE, patient_id TEXT NOT NULL,
  slot_id TEXT NOT NULL, status TEXT NOT NULL, connector_key TEXT NOT NULL, at TEXT NOT NULL);
CREATE TABLE sc_external_callbacks (
  id INTEGER PRIMARY KEY, external_id TEXT NOT NULL, seq INTEGER NOT NULL,
  event TEXT NOT NULL, delivered INTEGER NOT NULL DEFAULT 0);
"""
