"""Template databases, episode copies, the delta and the all-or-nothing write."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from endstate.envs import EmbeddedSuite
from endstate.envs.server import GradingRefused
from endstate.envs.suite.database import EpisodeDB
from endstate.envs.suite.delta import _plain
from endstate.envs.suite.tables import delta_keys, table_keys
from endstate.envs.suite.world_db import template_path
from endstate.envs.world import generate_world
from endstate.errors import EndstateError


def test_template_is_built_once_and_reused(tmp_path: Path) -> None:
    world = generate_world(3)
    first = template_path(world, tmp_path)
    stamp = first.stat().st_mtime_ns
    again = template_path(world, tmp_path)
    assert again == first and again.stat().st_mtime_ns == stamp
    other = template_path(generate_world(4), tmp_path)
    assert other != first
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".sqlite", ".sqlite"]


def test_episodes_are_copies_that_leave_the_template_and_each_other_alone(
    tmp_path: Path,
) -> None:
    """What makes an episode cheap is that it is a file copy of a template built once; its
    speed is measured in benchmarks/bench_envs.py, not asserted here."""
    template = template_path(generate_world(3), tmp_path / "cache")
    before = template.read_bytes()
    first = EpisodeDB.create(template, tmp_path / "e1.sqlite", "2026-03-02T09:00:00")
    second = EpisodeDB.create(template, tmp_path / "e2.sqlite", "2026-03-02T09:00:00")
    ref = first.rows("SELECT id FROM referrals ORDER BY id LIMIT 1")[0]["id"]
    with first.change(system="ehr", page="/t", kind="test", detail={}) as c:
        c.execute("UPDATE referrals SET worklist_status = 'cleared' WHERE id = ?", (ref,))
    status = "SELECT worklist_status FROM referrals WHERE id = ?"
    assert first.rows(status, (ref,))[0]["worklist_status"] == "cleared"
    assert second.rows(status, (ref,))[0]["worklist_status"] != "cleared"
    assert second.delta() == {}
    first.close()
    second.close()
    assert template.read_bytes() == before


def test_every_episode_over_the_grading_channel_reports_its_creation_time_and_closes(
    suite: EmbeddedSuite,
) -> None:
    infos = [suite.open_episode() for _ in range(3)]
    assert len({info.id for info in infos}) == 3
    assert all(info.created_ms > 0 for info in infos)
    for info in infos:
        state = suite.state(info.id)
        assert state["episode"]["id"] == info.id and state["delta"] == {}
        suite.close_episode(info.id)
        with pytest.raises(GradingRefused, match="410 Gone"):
            suite.state(info.id)


def test_a_write_syncs_its_journal_and_a_close_removes_every_file_of_the_episode(
    tmp_path: Path,
) -> None:
    """The rollback journal is kept between writes (no file made and deleted per write),
    each commit still synced; closing removes it with the database."""
    db = _db(tmp_path)
    journal = tmp_path / "e.sqlite-journal"
    assert db.conn.execute("PRAGMA journal_mode").fetchone()[0] == "persist"
    assert db.conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL: syncs kept
    db.event(system="ehr", page="/x", kind="page.view", detail={})
    db.event(system="ehr", page="/x", kind="page.view", detail={})
    assert journal.exists()
    db.release_connection()
    reopened = sqlite3.connect(db.path)  # a committed write is in the database itself
    assert reopened.execute("SELECT count(*) FROM events").fetchone()[0] == 2
    reopened.close()
    db.close()
    db.remove_files()
    assert not db.path.exists() and not journal.exists()


def _db(tmp_path: Path) -> EpisodeDB:
    world = generate_world(3)
    return EpisodeDB.create(
        template_path(world, tmp_path / "c"), tmp_path / "e.sqlite", world.clock
    )


def test_delta_reports_added_updated_and_removed_rows(tmp_path: Path) -> None:
    db = _db(tmp_path)
    assert db.delta() == {}
    ref = db.rows("SELECT id FROM referrals ORDER BY id LIMIT 1")[0]["id"]
    doc = db.rows("SELECT id FROM documents ORDER BY id LIMIT 1")[0]["id"]
    with db.change(system="ehr", page="/t", kind="test", detail={}) as c:
        c.execute("UPDATE referrals SET worklist_status = 'cleared' WHERE id = ?", (ref,))
        c.execute("DELETE FROM documents WHERE id = ?", (doc,))
        c.execute(
            "INSERT INTO notes (system, subject_type, subject_id, category, subject, body, "
            "author, created_at) VALUES ('ehr', 'referral', ?, 'general', 's', 'b', 'a', 't')",
            (ref,),
        )
    delta = db.delta()
    assert set(delta) == {"referrals", "documents", "notes"}
    assert delta["referrals"]["updated"] == [
        {"key": {"id": ref}, "changes": {"worklist_status": {"before": "open", "after": "cleared"}}}
    ]
    assert [r["id"] for r in delta["documents"]["removed"]] == [doc]
    assert delta["notes"]["added"][0]["subject_id"] == ref
    assert "events" not in delta
    db.close()


def test_a_failed_change_leaves_no_trace_but_the_caller_can_log_it(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with (
        pytest.raises(RuntimeError),
        db.change(system="ehr", page="/t", kind="test", detail={}) as c,
    ):
        c.execute("UPDATE referrals SET worklist_status = 'cleared'")
        raise RuntimeError("boom")
    assert db.delta() == {}
    assert db.rows("SELECT count(*) FROM events")[0][0] == 0
    assert not db.conn.in_transaction
    db.close()


def test_every_change_is_paired_with_an_event_on_the_pinned_clock(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with db.change(system="fax", page="/compose", kind="fax.send", detail={"x": 1}) as c:
        c.execute("UPDATE referrals SET auth_status = 'x' WHERE rowid = 1")
    events = db.rows("SELECT * FROM events")
    assert [(e["system"], e["page"], e["kind"], e["at"]) for e in events] == [
        ("fax", "/compose", "fax.send", "2026-03-02T09:00:00")
    ]
    db.close()


def test_every_table_a_system_owns_is_in_the_delta_under_its_primary_key() -> None:
    keys = dict(delta_keys())
    assert keys["auth_records"] == ("id",)  # the EHR's own table
    assert keys["fax_attachments"] == ("fax_id", "seq")  # the fax service's, a two-column key
    assert keys["referral_services"] == ("referral_id", "seq")  # the shared world's
    assert "events" not in keys and not any(t.startswith("sqlite_") for t in keys)


def test_a_table_without_a_primary_key_is_refused_naming_it() -> None:
    with pytest.raises(EndstateError, match="episode table 'loose' has no primary key"):
        table_keys("CREATE TABLE fine (id INTEGER PRIMARY KEY); CREATE TABLE loose (a TEXT);")


def _reference_delta(db: EpisodeDB, template: Path) -> dict[str, Any]:
    """The delta the plain way: every row of both databases compared in Python."""
    tmpl = sqlite3.connect(template)
    tmpl.row_factory = sqlite3.Row

    def rows(conn: sqlite3.Connection, table: str, keys: tuple[str, ...]) -> dict[Any, Any]:
        found = conn.execute(f"SELECT * FROM {table} ORDER BY {', '.join(keys)}")
        return {tuple(r[k] for k in keys): {k: _plain(r[k]) for k in r.keys()} for r in found}  # noqa: SIM118

    out: dict[str, Any] = {}
    for table, keys in delta_keys():
        before, after = rows(tmpl, table, keys), rows(db.conn, table, keys)
        updated = [
            {"key": dict(zip(keys, k, strict=True)),
             "changes": {c: {"before": before[k][c], "after": v} for c, v in after[k].items() if v != before[k][c]}}
            for k in after if k in before and after[k] != before[k]
        ]  # fmt: skip
        added = [after[k] for k in after if k not in before]
        removed = [before[k] for k in before if k not in after]
        if added or removed or updated:
            out[table] = {"added": added, "updated": updated, "removed": removed}
    tmpl.close()
    return out


def test_the_delta_equals_a_row_by_row_comparison(tmp_path: Path) -> None:
    """Rows added, changed (text, numbers, a blob, to and from NULL) and removed, in several
    tables, shared and a system's own: the SQL delta equals comparing every row in Python."""
    template = template_path(generate_world(3), tmp_path / "cache")
    db = EpisodeDB.create(template, tmp_path / "e.sqlite", "2026-03-02T09:00:00")
    c = db.conn
    referral = c.execute("SELECT id FROM referrals ORDER BY id LIMIT 2").fetchall()
    c.execute(
        "UPDATE referrals SET worklist_status = 'cleared', auth_number = 'A-1' WHERE id = ?",
        (referral[0][0],),
    )
    c.execute("UPDATE referrals SET urgency = NULL WHERE id = ?", (referral[1][0],))
    c.execute("DELETE FROM payer_rules WHERE rowid IN (SELECT rowid FROM payer_rules LIMIT 3)")
    c.execute(
        "UPDATE denials SET billed = billed + 0.5 WHERE claim_id IN (SELECT claim_id FROM denials LIMIT 2)"
    )
    c.execute(
        "INSERT INTO auth_records (referral_id, auth_status, auth_number, author, created_at) VALUES ('R', 'approved', 'A-2', 'me', 'now')"
    )
    c.execute(
        "INSERT INTO attachments (owner_type, owner_id, filename, content_type, size, sha256, content) VALUES ('x', '1', 'f', 't', 2, 's', x'0001')"
    )
    c.execute(
        "UPDATE documents SET text = text || ' (amended)' WHERE id = (SELECT min(id) FROM documents)"
    )
    delta = db.delta()
    assert set(delta) >= {
        "referrals",
        "payer_rules",
        "denials",
        "auth_records",
        "attachments",
        "documents",
    }
    assert delta == _reference_delta(db, template) == db.delta(every_table=True)
    assert len(delta["payer_rules"]["removed"]) == 3 and not delta["payer_rules"]["added"]
    assert "tmpl" not in [r[1] for r in c.execute("PRAGMA database_list")]  # detached again
    db.close()


def test_the_delta_compares_only_tables_a_statement_could_write_and_misses_none(
    tmp_path: Path,
) -> None:
    """The delta skips tables no statement wrote; writes over a connection opened again later
    (an idle episode gives its descriptor back) are seen, and so is a table written by a
    trigger, which a schema change makes the delta compare every table for."""
    template = template_path(generate_world(3), tmp_path / "cache")
    db = EpisodeDB.create(template, tmp_path / "e.sqlite", "2026-03-02T09:00:00")
    db.conn.execute("SELECT count(*) FROM referrals").fetchone()
    assert db.written == set() and db.delta() == {}
    ref = db.conn.execute("SELECT id FROM referrals ORDER BY id LIMIT 1").fetchone()[0]
    db.conn.execute("UPDATE referrals SET worklist_status = 'cleared' WHERE id = ?", (ref,))
    assert db.release_connection()
    db.conn.execute(
        "DELETE FROM payer_rules WHERE rowid IN (SELECT rowid FROM payer_rules LIMIT 1)"
    )
    assert db.written == {"referrals", "payer_rules"}
    assert set(db.delta()) == {"referrals", "payer_rules"}
    assert db.delta() == _reference_delta(db, template)

    db.conn.execute(
        "CREATE TRIGGER t AFTER UPDATE ON referrals BEGIN "
        "UPDATE denials SET billed = billed + 1 WHERE claim_id = (SELECT min(claim_id) FROM denials); END"
    )
    assert db.written is None  # a schema change: every table is compared from now on
    db.conn.execute("UPDATE referrals SET urgency = NULL WHERE id = ?", (ref,))
    delta = db.delta()
    assert "denials" in delta and delta == _reference_delta(db, template)
    db.close()


def test_a_snapshot_reads_one_state_while_a_write_waits(tmp_path: Path) -> None:
    """The state document's reads are one read transaction: a write from elsewhere cannot
    land between two of them, and nested snapshots are the one snapshot."""
    template = template_path(generate_world(3), tmp_path / "cache")
    db = EpisodeDB.create(template, tmp_path / "e.sqlite", "2026-03-02T09:00:00")
    other = sqlite3.connect(db.path, timeout=0, isolation_level=None)
    count = "SELECT COUNT(*) AS n FROM notes"
    with db.snapshot():
        first = db.rows(count)[0]["n"]
        with db.snapshot():
            assert db.conn.in_transaction
        assert db.conn.in_transaction  # the inner one did not end it
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("DELETE FROM notes")
        assert db.rows(count)[0]["n"] == first
    assert not db.conn.in_transaction
    other.execute("DELETE FROM notes")  # once the snapshot is over, the write goes through
    assert db.rows(count)[0]["n"] == 0
    other.close()
    db.close()
