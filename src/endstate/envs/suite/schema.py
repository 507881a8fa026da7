"""The episode database's shared tables: the world's (seeded) and the activity tables more than
one system writes (notes, logins, attachments, both payers' requests and appeals, events).

A table one system alone owns is declared in that system's folder (`System.ddl`). Every table
has a primary key so a delta against the template can say exactly which row was added, changed
or removed (`envs/suite/tables.py` reads the keys of all of them).
"""

from __future__ import annotations

SCHEMA_VERSION = 4  # 2: appeals, auth_records; Payer B columns on pa_submissions
# 3: prior_requests and pa_responses; determinations on pa_submissions; plans' appeal
# channel, appeals fax and appeal form; 4: documents.format (scans served as PDF)

DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE plans (
  id TEXT PRIMARY KEY, payer TEXT, name TEXT, kind TEXT, portal TEXT, portal_username TEXT,
  portal_password TEXT, fax TEXT, phone TEXT, member_prefix TEXT, appeal_window_days INTEGER,
  timely_filing_days INTEGER, delegated_to TEXT, appeal_channel TEXT, appeals_fax TEXT,
  appeal_form TEXT);
CREATE TABLE patients (
  mrn TEXT PRIMARY KEY, first TEXT, last TEXT, sex TEXT, dob TEXT, phone TEXT, address TEXT);
CREATE TABLE coverages (
  id TEXT PRIMARY KEY, mrn TEXT, plan_id TEXT, member_id TEXT, group_number TEXT, rank INTEGER,
  status TEXT, effective TEXT, termination TEXT, relationship TEXT, basis TEXT,
  subscriber_birthday TEXT, employer_size INTEGER);
CREATE TABLE providers (
  npi TEXT PRIMARY KEY, first TEXT, last TEXT, credential TEXT, department TEXT);
CREATE TABLE referrals (
  id TEXT PRIMARY KEY, mrn TEXT, coverage_id TEXT, department TEXT, provider_npi TEXT,
  referring_npi TEXT, appointment TEXT, created TEXT, urgency TEXT, reason TEXT,
  existing_auth TEXT, worklist_status TEXT NOT NULL DEFAULT 'open', auth_number TEXT,
  auth_status TEXT);
CREATE TABLE referral_diagnoses (
  referral_id TEXT, seq INTEGER, code TEXT, description TEXT, is_primary INTEGER,
  PRIMARY KEY (referral_id, seq));
CREATE TABLE referral_services (
  referral_id TEXT, seq INTEGER, cpt TEXT, description TEXT, quantity INTEGER, laterality TEXT,
  site TEXT, PRIMARY KEY (referral_id, seq));
CREATE TABLE denials (
  claim_id TEXT PRIMARY KEY, mrn TEXT, coverage_id TEXT, plan_id TEXT, provider_npi TEXT,
  service_date TEXT, submitted TEXT, denied TEXT, appeal_deadline TEXT,
  timely_filing_deadline TEXT, billed REAL, paid REAL,
  patient_responsibility REAL, eft_trace TEXT, delegated_to TEXT, diagnoses TEXT, history TEXT,
  notes TEXT,
  worklist_status TEXT NOT NULL DEFAULT 'open', disposition TEXT);
CREATE TABLE denial_lines (
  claim_id TEXT, line INTEGER, cpt TEXT, modifier TEXT, units INTEGER, billed REAL,
  allowed REAL, paid REAL, grp TEXT, carc TEXT, carc_text TEXT, rarcs TEXT, adjustments TEXT,
  PRIMARY KEY (claim_id, line));
CREATE TABLE dme_orders (
  id TEXT PRIMARY KEY, mrn TEXT, coverage_id TEXT, hcpcs TEXT, description TEXT,
  quantity INTEGER, ordering_npi TEXT, supplier TEXT, supplier_fax TEXT,
  required_documents TEXT, ordered TEXT, status TEXT);
CREATE TABLE documents (
  id TEXT PRIMARY KEY, mrn TEXT, kind TEXT, title TEXT, date TEXT, author TEXT, status TEXT,
  signed INTEGER, version INTEGER, text TEXT, related_id TEXT,
  format TEXT NOT NULL DEFAULT 'text');
CREATE TABLE payer_rules (
  plan_id TEXT, cpt TEXT, description TEXT, requires_auth INTEGER, policy_id TEXT, policy_text TEXT,
  sites TEXT, PRIMARY KEY (plan_id, cpt));

CREATE TABLE notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT, system TEXT NOT NULL, subject_type TEXT NOT NULL,
  subject_id TEXT NOT NULL, category TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL,
  author TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE logins (
  id INTEGER PRIMARY KEY AUTOINCREMENT, system TEXT NOT NULL, username TEXT NOT NULL,
  success INTEGER NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE pa_submissions (
  id INTEGER PRIMARY KEY AUTOINCREMENT, system TEXT NOT NULL,
  confirmation_number TEXT NOT NULL UNIQUE, request_type TEXT NOT NULL, member_id TEXT NOT NULL,
  member_dob TEXT NOT NULL, coverage_id TEXT, plan_id TEXT, provider_npi TEXT NOT NULL,
  diagnosis_codes TEXT NOT NULL, procedures TEXT NOT NULL, service_date TEXT NOT NULL,
  clinical_notes TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL,
  servicing_npi TEXT, service_end_date TEXT, determination TEXT, auth_number TEXT);
CREATE TABLE prior_requests (
  number TEXT PRIMARY KEY, portal TEXT, referral_id TEXT, coverage_id TEXT, submitted TEXT,
  status TEXT NOT NULL, determination TEXT, requested_document TEXT, due TEXT,
  auth_number TEXT);
CREATE TABLE pa_responses (
  id INTEGER PRIMARY KEY AUTOINCREMENT, system TEXT NOT NULL, request_number TEXT NOT NULL,
  message TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE appeals (
  id INTEGER PRIMARY KEY AUTOINCREMENT, system TEXT NOT NULL,
  confirmation_number TEXT NOT NULL UNIQUE, claim_id TEXT NOT NULL, member_id TEXT NOT NULL,
  member_dob TEXT, coverage_id TEXT, plan_id TEXT, appeal_type TEXT NOT NULL,
  reason TEXT NOT NULL, explanation TEXT NOT NULL, contact_name TEXT NOT NULL,
  contact_phone TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE attachments (
  id INTEGER PRIMARY KEY AUTOINCREMENT, owner_type TEXT NOT NULL, owner_id TEXT NOT NULL,
  filename TEXT NOT NULL, content_type TEXT NOT NULL, size INTEGER NOT NULL,
  sha256 TEXT NOT NULL, document_id TEXT, content BLOB NOT NULL);
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, system TEXT NOT NULL,
  page TEXT NOT NULL, kind TEXT NOT NULL, accepted INTEGER NOT NULL, detail TEXT NOT NULL);
"""

# `events` is reported in full on its own, so it is not part of the delta.
UNDELTA_TABLES: frozenset[str] = frozenset({"events"})
