"""Episode state on disk: one file copy of the world's database per episode.

Reset is a file copy, the end state is the database, and the delta against the world's database
is exact. Every accepted write happens in one transaction together with its `events` row.
"""

from __future__ import annotations

import errno
import json
import shutil
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from endstate.envs.suite.baseline import Baseline, baseline_of
from endstate.envs.suite.delta import Delta, by_sql, rows_compared
from endstate.envs.suite.descriptors import (
    DescriptorsExhausted,
    descriptor_limit,
    out_of_descriptors,
)
from endstate.envs.suite.world_db import TemplateDatabase

JSONValue = Any


class EpisodeClosed(RuntimeError):
    """The episode was closed: its database is gone, and nothing more is read or written."""


class ConnectionCache:
    """Caps how many episode databases stay open while no request uses them.

    Opening a connection costs about 0.3 ms (SQLite parses the schema on first use), so the
    most recently used idle connections are kept, up to `idle_cap`; the least recently used
    beyond that are closed. An idle episode past the cap holds no file descriptor, however
    many episodes are open. `idle_cap=0` opens and closes a connection per request.
    """

    def __init__(self, idle_cap: int = 64) -> None:
        if idle_cap < 0:
            raise ValueError(f"idle_cap must be >= 0, got {idle_cap}")
        self.idle_cap = idle_cap
        self._idle: OrderedDict[int, EpisodeDB] = OrderedDict()

    @property
    def idle(self) -> int:
        return len(self._idle)

    def opened(self, db: EpisodeDB) -> None:
        """A connection was opened: make room first if the cap is already reached."""
        self._idle.pop(id(db), None)
        self.trim(self.idle_cap)

    def released(self, db: EpisodeDB) -> None:
        """The last request using `db` finished: keep its connection as the newest idle one."""
        self._idle.pop(id(db), None)
        self._idle[id(db)] = db
        self.trim(self.idle_cap)

    def adopt(self, db: EpisodeDB) -> None:
        """Count `db` as the newest idle connection without trimming (it is in use right now)."""
        self._idle.pop(id(db), None)
        self._idle[id(db)] = db

    def forget(self, db: EpisodeDB) -> None:
        self._idle.pop(id(db), None)

    def trim(self, keep: int) -> None:
        """Close idle connections, oldest first, until at most `keep` remain."""
        for key in list(self._idle):
            if len(self._idle) <= keep:
                return
            db = self._idle.pop(key)
            if not db.release_connection():  # mid-transaction outside a lease: keep it
                self._idle[key] = db


class EpisodeDB:
    """One episode's database. Used from a single event-loop thread.

    The connection is opened on first use, not at creation, and requests hold a `lease`
    while they use it: with a `ConnectionCache` an idle episode holds no descriptor, and
    a close can wait (`when_drained`) until no request is half way through a write.
    """

    def __init__(
        self,
        path: Path,
        template: Path,
        clock: str,
        baseline: bytes | None = None,
        cache: ConnectionCache | None = None,
        *,
        event_cap: int | None = None,
        storage_bytes: int | None = None,
    ) -> None:
        self.path = path
        self.template = template
        # The verified template bytes the episode was copied from: the delta is taken against
        # them, not against whatever the template file holds by then.
        self.baseline = baseline
        self.clock = clock
        self.cache = cache
        self.closed = False
        self._conn: sqlite3.Connection | None = None
        self._leases = 0
        self._drain_waiters: list[Callable[[], None]] = []
        # A test-only hook (see Runtime.arm_fault): called inside a write's transaction, after
        # its rows and before its event, so a failure there is a failure mid-write.
        self.fault: Callable[[str], None] | None = None
        # Events that change nothing are kept up to `event_cap`, then only counted; writes
        # always keep theirs. The count kept is read from the file on first use.
        self.event_cap = event_cap
        self.events_kept: int | None = None
        self.events_dropped = 0
        # The file may grow by `storage_bytes` over the template (SQLite's max_page_count):
        # a write past it fails SQLITE_FULL, and the episode is marked full.
        self.max_pages = _max_pages(baseline, storage_bytes)
        self.storage_full = False
        # Tables a statement on this episode's connection could have written since the
        # baseline (SQLite's authorizer names them when a statement is prepared): the delta
        # compares only these. `None`: a schema change, so every table is compared.
        self.written: set[str] | None = set()
        # Reads of unwritten tables are answered from the baseline only while it is the one
        # every episode of the world shares; an episode's own set-up is read from its file.
        self.shared_baseline = True
        self._answers: Baseline | None = None  # the shared baseline, once looked up

    @classmethod
    def create(
        cls,
        template: Path | TemplateDatabase,
        path: Path,
        clock: str,
        cache: ConnectionCache | None = None,
        *,
        event_cap: int | None = None,
        storage_bytes: int | None = None,
    ) -> EpisodeDB:
        """A fresh episode: a byte copy of the template (the reset is this copy).

        From a pinned `TemplateDatabase` the copy is checked against the pin
        (`TemplateTampered` if the file changed): the bytes checked are the episode's. No
        connection is opened yet.
        """
        try:
            if isinstance(template, TemplateDatabase):
                template.copy_to(path)
                return cls(
                    path,
                    template.path,
                    clock,
                    baseline=template.data,
                    cache=cache,
                    event_cap=event_cap,
                    storage_bytes=storage_bytes,
                )
            shutil.copyfile(template, path)
        except OSError as exc:
            if exc.errno in (errno.EMFILE, errno.ENFILE):
                path.unlink(missing_ok=True)
                raise DescriptorsExhausted(descriptor_limit(), str(exc)) from exc
            raise
        return cls(
            path, template, clock, cache=cache, event_cap=event_cap, storage_bytes=storage_bytes
        )

    # -- the connection ------------------------------------------------------------------
    @property
    def conn(self) -> sqlite3.Connection:
        """The open connection, opened now if need be (EpisodeClosed once closed)."""
        if self.closed:
            raise EpisodeClosed(f"episode database {self.path.name} is closed")
        if self._conn is None:
            self._conn = self._open()
            if self.cache is not None:
                self.cache.opened(self)
                if self._leases == 0:  # used outside a request: idle, closed on a later trim
                    self.cache.adopt(self)
        return self._conn

    @property
    def is_open(self) -> bool:
        """Whether a connection (a file descriptor) is held right now."""
        return self._conn is not None

    @property
    def in_use(self) -> int:
        """How many requests hold a lease on this database now."""
        return self._leases

    def _open(self) -> sqlite3.Connection:
        try:
            conn = self._connect()
        except sqlite3.OperationalError as exc:
            if not out_of_descriptors():
                raise
            if self.cache is not None and self.cache.idle:
                self.cache.trim(0)  # give back every idle descriptor, then try once more
                return self._connect()
            raise DescriptorsExhausted(descriptor_limit(), str(exc)) from exc
        return conn

    def _connect(self) -> sqlite3.Connection:
        if not self.path.exists():  # sqlite3 would quietly make an empty database
            raise EpisodeClosed(f"episode database {self.path.name} no longer exists")
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            conn.set_authorizer(self._watch)  # before any statement: every write is seen
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA synchronous=NORMAL")
            # The rollback journal is kept between writes, its header zeroed (and synced) at
            # each commit: every sync of the default mode is made, and one more, but no file
            # is created and deleted per write — directory changes wait on the file system's
            # own journal, shared with everything else on the disk.
            conn.execute("PRAGMA journal_mode=PERSIST")
            if self.max_pages is not None:
                conn.execute(f"PRAGMA max_page_count={self.max_pages}")
        except BaseException:
            conn.close()
            raise
        return conn

    def _watch(
        self, action: int, first: str | None, _second: str | None, db: str | None, _by: str | None
    ) -> int:
        """SQLite's authorizer: allows everything, and notes which tables may be written."""
        if action in _WRITES and first is not None and db != "tmpl":
            if self.written is not None:
                self.written.add(first)
        elif action in _SCHEMA_CHANGES:
            self.written = None
        return sqlite3.SQLITE_OK

    def rebase(self, baseline: bytes) -> None:
        """The episode's current bytes become what the delta is taken against.

        The connection is closed: the authorizer sees a statement only when it is prepared,
        and a write the connection had already prepared (a set-up's insert that a page later
        makes with the same SQL) would run again from its statement cache unseen."""
        self.baseline = baseline
        self.written = set()
        self.shared_baseline = False
        self._answers = None
        if self._conn is not None and not self._conn.in_transaction:
            if self.cache is not None:
                self.cache.forget(self)
            self._conn.close()
            self._conn = None

    @contextmanager
    def lease(self) -> Iterator[EpisodeDB]:
        """Hold the database for one request (across its awaits); `close` waits for it."""
        if self.closed:
            raise EpisodeClosed(f"episode database {self.path.name} is closed")
        self._leases += 1
        if self.cache is not None:
            self.cache.forget(self)  # in use: never evicted under a request
        try:
            yield self
        finally:
            self._leases -= 1
            if self._leases == 0:
                self._idle()

    def _idle(self) -> None:
        waiters, self._drain_waiters = self._drain_waiters, []
        for wake in waiters:
            wake()
        if self.closed:
            return
        if self.cache is not None and self._conn is not None:
            self.cache.released(self)

    def when_drained(self, wake: Callable[[], None]) -> None:
        """Call `wake` once no request holds a lease (now, if none does)."""
        if self._leases == 0:
            wake()
        else:
            self._drain_waiters.append(wake)

    def release_connection(self) -> bool:
        """Close the connection if nothing is using it (True if none is held afterwards)."""
        if self._conn is None:
            return True
        if self._leases or self._conn.in_transaction:
            return False
        self._conn.close()
        self._conn = None
        return True

    def close(self) -> None:
        """Close for good: later use raises EpisodeClosed (a transaction left open is lost)."""
        self.closed = True
        if self.cache is not None:
            self.cache.forget(self)
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def remove_files(self) -> None:
        """Delete the episode's files from disk (the database and its kept journal)."""
        self.path.unlink(missing_ok=True)
        self.path.with_name(f"{self.path.name}-journal").unlink(missing_ok=True)

    # -- reads ---------------------------------------------------------------------------
    @contextmanager
    def snapshot(self) -> Iterator[EpisodeDB]:
        """Many reads as one read transaction: one look at the journal instead of one per
        statement (the journal is kept between writes, so each look opens it), and every
        read sees the same state."""
        conn = self.conn
        if conn.in_transaction:  # already inside one: it is the snapshot
            yield self
            return
        conn.execute("BEGIN")
        try:
            yield self
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        """The rows of a read; one that reads only tables no statement of this episode could
        have written is answered as the baseline answers it (`baseline.py`), once per query."""
        known = self._known(sql, params)
        return known if known is not None else list(self.conn.execute(sql, params))

    def row(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Row | None:
        known = self._known(sql, params)
        if known is not None:
            return known[0] if known else None
        found: sqlite3.Row | None = self.conn.execute(sql, params).fetchone()
        return found

    def _known(self, sql: str, params: tuple[Any, ...]) -> list[sqlite3.Row] | None:
        if self.written is None or self.baseline is None or self.closed or not self.shared_baseline:
            return None
        if self._answers is None:  # looked up once: reads are the hot path of every page
            self._answers = baseline_of(self.baseline)
        return self._answers.answer(sql, params, self.written)

    # -- writes --------------------------------------------------------------------------
    @contextmanager
    def change(
        self, *, system: str, page: str, kind: str, detail: dict[str, JSONValue]
    ) -> Iterator[sqlite3.Connection]:
        """A state change and its event, committed together or not at all.

        On any exception the change is rolled back and the exception propagates; the page
        layer records it as a `server.error` event, so a failing page never leaves a
        half-applied write behind. The body must not await (one transaction at a time).
        """
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
            if self.fault is not None:
                self.fault(kind)
            self._event(system, page, kind, detail, accepted=True)
        except BaseException:
            self.rollback_open()
            raise
        else:
            self.conn.execute("COMMIT")
            self._counted()

    def rollback_open(self) -> None:
        """Abandon a transaction a failing handler left open (nothing to do once closed, or
        when the failure — SQLITE_FULL among them — rolled it back itself)."""
        if self._conn is not None and self._conn.in_transaction:
            self.conn.execute("ROLLBACK")

    def event(
        self,
        *,
        system: str,
        page: str,
        kind: str,
        detail: dict[str, JSONValue],
        accepted: bool = True,
    ) -> None:
        """An event with no other state change (a page view, a rejected request); past the
        episode's `event_cap` it is counted in `events_dropped` instead (one `events.capped`
        event marks where)."""
        if self.event_cap is not None and self._kept() >= self.event_cap:
            self.events_dropped += 1
            if self.events_dropped > 1:
                return
            kind, detail, accepted = "events.capped", {"kept": self.event_cap}, False
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            if self.fault is not None:
                self.fault(kind)
            self._event(system, page, kind, detail, accepted)
        except BaseException:
            self.rollback_open()
            raise
        self.conn.execute("COMMIT")
        self._counted()

    def _counted(self) -> None:
        """One more event kept (counted once committed: a rolled-back one was never kept)."""
        if self.events_kept is not None:
            self.events_kept += 1

    def _kept(self) -> int:
        if self.events_kept is None:
            self.events_kept = int(self.conn.execute("SELECT count(*) FROM events").fetchone()[0])
        return self.events_kept

    def _event(
        self, system: str, page: str, kind: str, detail: dict[str, JSONValue], accepted: bool
    ) -> None:
        self.conn.execute(
            "INSERT INTO events (at, system, page, kind, accepted, detail) VALUES (?,?,?,?,?,?)",
            (self.clock, system, page, kind, int(accepted), json.dumps(detail, sort_keys=True)),
        )

    # -- comparison ----------------------------------------------------------------------
    def delta(self, every_table: bool = False) -> Delta:
        """Rows added, updated and removed per table against the template (empty tables omitted).

        Only tables some statement could have written are compared (`written`; `every_table`
        compares all), so a read costs what the episode wrote, not what the world holds. Each
        written table of the episode is read once and compared, row by row and whole, with the
        baseline's rows, which are read once per baseline (`baseline.py`). Where that cannot
        hold — a schema changed, every table asked for, two rows under one key — SQLite compares
        with `EXCEPT` both ways against the baseline attached to the connection.
        """
        if not every_table:
            found = self.row_delta()
            if found is not None:
                return found
        return by_sql(self.conn, self._baseline_bytes(), None if every_table else self.written)

    def row_delta(self) -> Delta | None:
        """The delta by comparing rows in Python (`delta`), or None where that cannot hold;
        it needs no attached baseline, so it can be read inside a `snapshot`."""
        if self.written is None:
            return None
        return rows_compared(self.conn, self._baseline_bytes(), self.written)

    def _baseline_bytes(self) -> bytes:
        return self.baseline if self.baseline is not None else self.template.read_bytes()


_WRITES = frozenset({sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE})
_SCHEMA_CHANGES = frozenset(
    {
        sqlite3.SQLITE_DROP_TABLE,
        sqlite3.SQLITE_ALTER_TABLE,
        sqlite3.SQLITE_CREATE_TABLE,
        sqlite3.SQLITE_DROP_VIEW,
        sqlite3.SQLITE_CREATE_VIEW,
        sqlite3.SQLITE_DROP_TRIGGER,
        sqlite3.SQLITE_CREATE_TRIGGER,
    }
)


def _max_pages(baseline: bytes | None, storage_bytes: int | None) -> int | None:
    """The page count a file of `baseline` may reach when it may grow by `storage_bytes`."""
    if storage_bytes is None or baseline is None or len(baseline) < 100:
        return None
    size = int.from_bytes(baseline[16:18], "big")  # the header's page size (1: 65536)
    page = 65536 if size == 1 else size or 4096
    return (len(baseline) + storage_bytes) // page


def full(exc: BaseException) -> bool:
    """Whether an error is SQLite's 'database or disk is full'."""
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
