"""The EHR's own table: authorization records entered on a referral's authorizations tab."""

from __future__ import annotations

DDL = """
CREATE TABLE auth_records (
  id INTEGER PRIMARY KEY AUTOINCREMENT, referral_id TEXT NOT NULL, auth_status TEXT NOT NULL,
  auth_number TEXT NOT NULL, valid_from TEXT, valid_through TEXT, author TEXT NOT NULL,
  created_at TEXT NOT NULL);
"""
