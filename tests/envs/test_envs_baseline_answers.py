"""Reads of tables an episode never wrote are answered from its baseline, and only those."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from endstate.envs import EmbeddedSuite, EpisodeInfo, generate_world
from endstate.envs.suite import database
from endstate.envs.suite.baseline import baseline_of
from endstate.envs.suite.database import EpisodeDB
from endstate.envs.suite.statedoc import build_state
from endstate.envs.suite.world_db import template_path

CLEARED = "SELECT id, worklist_status FROM referrals ORDER BY id"


def _db(suite: EmbeddedSuite, episode: EpisodeInfo) -> EpisodeDB:
    return suite.runtime.episodes[episode.id].db


def _answered(db: EpisodeDB, sql: str, params: tuple[Any, ...] = ()) -> bool:
    assert db.baseline is not None and db.written is not None
    return baseline_of(db.baseline).answer(sql, params, db.written) is not None


def test_a_read_is_the_baseline_answer_until_its_table_is_written(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    db = _db(suite, episode)
    first = [tuple(r) for r in db.rows(CLEARED)]
    assert _answered(db, CLEARED)  # kept: no statement could have written `referrals`
    assert first == [tuple(r) for r in db.conn.execute(CLEARED)]
    target = first[0][0]
    with db.change(system="ehr", page="/t", kind="t", detail={}) as c:
        c.execute("UPDATE referrals SET worklist_status = 'cleared' WHERE id = ?", (target,))
    assert not _answered(db, CLEARED)
    now = {row["id"]: row["worklist_status"] for row in db.rows(CLEARED)}
    assert now[target] == "cleared"
    assert db.row("SELECT worklist_status FROM referrals WHERE id = ?", (target,))[0] == "cleared"


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT random() FROM referrals LIMIT 1",  # not the same answer twice
        "SELECT datetime('now'), id FROM referrals LIMIT 1",  # reads the clock
        "PRAGMA table_info(referrals)",  # not a read of rows
        "SELECT r.id FROM referrals r JOIN events e ON e.seq = 1",  # `events` is written
        "SELECT id FROM temp.nothing_here",  # fails: the episode's connection says so
    ],
)
def test_reads_that_could_answer_otherwise_go_to_the_episode(
    suite: EmbeddedSuite, episode: EpisodeInfo, sql: str
) -> None:
    db = _db(suite, episode)
    db.event(system="ehr", page="/t", kind="page.view", detail={})  # `events` is written
    assert not _answered(db, sql)


def test_the_state_document_is_the_one_read_from_the_episode_alone(
    suite: EmbeddedSuite, episode: EpisodeInfo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reads answered from the baseline, then writes to some of their tables: the document
    equals the one whose every read goes to the episode's file."""
    runtime = suite.runtime
    live = runtime.episodes[episode.id]
    db = live.db
    build_state(runtime.world, live)  # every read answered once, before any write
    referral, claim = (
        db.conn.execute("SELECT id FROM referrals ORDER BY id LIMIT 1").fetchone()[0],
        db.conn.execute("SELECT claim_id FROM denials ORDER BY claim_id LIMIT 1").fetchone()[0],
    )
    with db.change(system="ehr", page="/t", kind="t", detail={}) as c:
        c.execute("UPDATE referrals SET worklist_status = 'cleared' WHERE id = ?", (referral,))
        c.execute("UPDATE denials SET disposition = 'appeal' WHERE claim_id = ?", (claim,))
        c.execute(
            "INSERT INTO notes (system, subject_type, subject_id, category, subject, body, "
            "author, created_at) VALUES ('ehr', 'denial', ?, 'triage', 's', 'b', 'me', 'now')",
            (claim,),
        )
    answered = build_state(runtime.world, live)
    monkeypatch.setattr(database.EpisodeDB, "_known", lambda self, sql, params: None)
    assert answered == build_state(runtime.world, live)
    assert answered["ehr"]["cleared_referrals"] == [referral]
    assert [d["claim_id"] for d in answered["ehr"]["denial_dispositions"]] == [claim]


def test_a_write_prepared_before_a_rebase_is_seen_after_it(tmp_path: Path) -> None:
    """A set-up's write, then a rebase, then the same SQL again (from a page): the table is
    written, so the delta and the reads see the row, not the baseline's answer."""
    template = template_path(generate_world(3), tmp_path / "cache")
    db = EpisodeDB.create(template, tmp_path / "e.sqlite", "2026-03-02T09:00:00")
    insert = (
        "INSERT INTO auth_records (referral_id, auth_status, auth_number, author, created_at) "
        "VALUES (?, 'approved', ?, 'me', 'now')"
    )
    db.conn.execute(insert, ("R-1", "A-1"))  # the set-up's write
    db.rebase(db.path.read_bytes())
    count = "SELECT count(*) FROM auth_records"
    assert db.row(count)[0] == 1
    db.conn.execute(insert, ("R-2", "A-2"))  # the same SQL, after the rebase
    assert "auth_records" in (db.written or ())
    assert db.row(count)[0] == 2
    [added] = db.delta()["auth_records"]["added"]
    assert added["auth_number"] == "A-2"
    db.close()


def test_an_unknown_sql_error_is_the_episode_connections_own(
    suite: EmbeddedSuite, episode: EpisodeInfo
) -> None:
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        _db(suite, episode).rows("SELECT * FROM no_such_table")
