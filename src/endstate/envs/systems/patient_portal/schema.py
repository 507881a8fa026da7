"""The patient portal's own tables (`pp_`): the population, seeded into the template, and the
activity its pages write. Record tables name their columns as the dataclasses in model.py
name their fields, so the seed is one insert per table."""

from __future__ import annotations

DDL = """
CREATE TABLE pp_providers (
  id TEXT PRIMARY KEY, npi TEXT NOT NULL, first TEXT NOT NULL, last TEXT NOT NULL,
  credential TEXT NOT NULL, specialty TEXT NOT NULL, phone TEXT NOT NULL);
CREATE TABLE pp_pharmacies (id TEXT PRIMARY KEY, name TEXT NOT NULL, address TEXT NOT NULL);
CREATE TABLE pp_patients (
  id TEXT PRIMARY KEY, first TEXT NOT NULL, last TEXT NOT NULL, sex TEXT NOT NULL,
  dob TEXT NOT NULL, phone TEXT NOT NULL, email TEXT NOT NULL, address TEXT NOT NULL,
  username TEXT NOT NULL UNIQUE, password TEXT NOT NULL, pcp_id TEXT NOT NULL,
  pharmacy_id TEXT NOT NULL);
CREATE TABLE pp_insurance (
  id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, plan_id TEXT NOT NULL, payer TEXT NOT NULL,
  plan TEXT NOT NULL, kind TEXT NOT NULL, member_id TEXT NOT NULL, group_number TEXT NOT NULL,
  copay REAL NOT NULL, effective TEXT NOT NULL, termination TEXT);
CREATE TABLE pp_conditions (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, code TEXT NOT NULL,
  description TEXT NOT NULL, onset TEXT NOT NULL, end_date TEXT);
CREATE TABLE pp_medications (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, drug TEXT NOT NULL, dosage TEXT NOT NULL,
  directions TEXT NOT NULL, start TEXT NOT NULL, stop TEXT, prescriber_id TEXT NOT NULL);
CREATE TABLE pp_prescriptions (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, medication_id INTEGER NOT NULL,
  drug TEXT NOT NULL, dosage TEXT NOT NULL, directions TEXT NOT NULL, written TEXT NOT NULL,
  prescriber_id TEXT NOT NULL, refills INTEGER NOT NULL);
CREATE TABLE pp_lab_tests (loinc TEXT PRIMARY KEY, test TEXT NOT NULL, units TEXT NOT NULL);
CREATE TABLE pp_labs (
  patient_id TEXT NOT NULL, seq INTEGER NOT NULL, collected TEXT NOT NULL,
  loinc TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (patient_id, seq)) WITHOUT ROWID;
CREATE TABLE pp_imaging (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, date TEXT NOT NULL, modality TEXT NOT NULL,
  study TEXT NOT NULL, site TEXT NOT NULL, reason TEXT NOT NULL, impression TEXT NOT NULL,
  ordered_by TEXT NOT NULL);
CREATE TABLE pp_allergies (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, substance TEXT NOT NULL,
  reaction TEXT NOT NULL, severity TEXT NOT NULL, noted TEXT NOT NULL);
CREATE TABLE pp_immunizations (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, cvx TEXT NOT NULL, vaccine TEXT NOT NULL,
  given TEXT NOT NULL);
CREATE TABLE pp_encounters (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, date TEXT NOT NULL, kind TEXT NOT NULL,
  provider_id TEXT NOT NULL, reason TEXT NOT NULL);
CREATE TABLE pp_appointments (
  id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, provider_id TEXT NOT NULL,
  starts_at TEXT NOT NULL, reason TEXT NOT NULL, status TEXT NOT NULL);
CREATE TABLE pp_ledger (
  id INTEGER PRIMARY KEY, patient_id TEXT NOT NULL, service_date TEXT NOT NULL,
  posted TEXT NOT NULL, kind TEXT NOT NULL, description TEXT NOT NULL, amount REAL NOT NULL);
CREATE TABLE pp_messages (
  id TEXT PRIMARY KEY, patient_id TEXT NOT NULL, provider_id TEXT NOT NULL,
  subject TEXT NOT NULL, body TEXT NOT NULL, sent_at TEXT NOT NULL, needs_reply INTEGER NOT NULL);
CREATE INDEX pp_conditions_patient ON pp_conditions (patient_id);
CREATE INDEX pp_ledger_patient ON pp_ledger (patient_id, posted);

CREATE TABLE pp_sent_messages (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, patient_id TEXT NOT NULL,
  provider_id TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL, in_reply_to TEXT,
  sent_at TEXT NOT NULL);
CREATE TABLE pp_appointment_changes (
  id INTEGER PRIMARY KEY AUTOINCREMENT, patient_id TEXT NOT NULL,
  appointment_id TEXT NOT NULL, action TEXT NOT NULL, provider_id TEXT NOT NULL,
  starts_at TEXT NOT NULL, reason TEXT NOT NULL, cancel_reason TEXT NOT NULL,
  previous_starts_at TEXT, created_at TEXT NOT NULL);
CREATE TABLE pp_records_requests (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, patient_id TEXT NOT NULL,
  practice TEXT NOT NULL, fax_number TEXT NOT NULL, scope TEXT NOT NULL, note TEXT NOT NULL,
  created_at TEXT NOT NULL);
CREATE TABLE pp_pharmacy_changes (
  id INTEGER PRIMARY KEY AUTOINCREMENT, patient_id TEXT NOT NULL,
  from_pharmacy_id TEXT NOT NULL, to_pharmacy_id TEXT NOT NULL, created_at TEXT NOT NULL);
"""
