"""The fax service's own tables: sent faxes and the chart documents each carried."""

from __future__ import annotations

DDL = """
CREATE TABLE faxes (
  id TEXT PRIMARY KEY, seq INTEGER NOT NULL UNIQUE, recipient TEXT NOT NULL,
  fax_number TEXT NOT NULL, cover_note TEXT NOT NULL, patient_mrn TEXT, pages INTEGER NOT NULL,
  status TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE fax_attachments (
  fax_id TEXT, seq INTEGER, document_id TEXT NOT NULL, PRIMARY KEY (fax_id, seq));
"""
