"""The world's database: built once per world (its `template`), pinned, copied per episode.

Whoever can edit the template edits every episode made from it, so a running suite builds its
own (`private_template`: milliseconds, into an owner-only directory), pins the sha256 of those
bytes, and checks the file against the pin before every episode copy (`TemplateDatabase.read`).
"""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from endstate.envs.suite.descriptors import DescriptorsExhausted, descriptor_limit
from endstate.envs.suite.registry import systems
from endstate.envs.suite.schema import DDL, SCHEMA_VERSION
from endstate.envs.suite.tables import delta_keys
from endstate.envs.world import World
from endstate.envs.world.world_rows import WORLD_ROWS, Rows


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "endstate" / "templates"


class TemplateTampered(RuntimeError):
    """The template file no longer holds the bytes pinned for it: no episode is made from it."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"template database {path} {problem}; refusing to open an episode from it")
        self.path = path


@dataclass(frozen=True)
class TemplateDatabase:
    """A template database file and the bytes pinned for it (their sha256 is the pin)."""

    path: Path
    data: bytes = field(repr=False)
    sha256: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sha256", hashlib.sha256(self.data).hexdigest())

    @classmethod
    def pin(cls, path: Path) -> TemplateDatabase:
        """Pin the file's present bytes (trust on first read: build it yourself first)."""
        return cls(path, path.read_bytes())

    def read(self) -> bytes:
        """The file's bytes, refused unless they still hash to the pin.

        The whole file is hashed every time (about 0.5 ms for a 440 KB template): a stat
        fingerprint would miss an edit that restores the mtime.
        """
        try:
            data = self.path.read_bytes()
        except OSError as exc:
            if exc.errno in (errno.EMFILE, errno.ENFILE):  # the process's limit, not the file
                raise DescriptorsExhausted(descriptor_limit(), str(exc)) from exc
            raise TemplateTampered(self.path, f"cannot be read ({exc.strerror})") from exc
        found = hashlib.sha256(data).hexdigest()
        if found != self.sha256:
            raise TemplateTampered(
                self.path,
                f"has changed since the suite started (sha256 {found[:16]}, "
                f"pinned {self.sha256[:16]})",
            )
        return data

    def copy_to(self, path: Path) -> None:
        """Make `path` a copy of the template, refused (TemplateTampered, no file left) unless
        the copy hashes to the pin.

        The kernel copies the file (`copy_file_range`: no pass through this process, where
        writing a few MB from memory costs some 15 ms of system time a copy), and the copy
        itself is hashed: the bytes checked are exactly the episode's. Where the kernel
        cannot copy, the checked bytes are written (`read`).
        """
        try:
            source = os.open(self.path, os.O_RDONLY)
        except OSError as exc:
            if exc.errno in (errno.EMFILE, errno.ENFILE):
                raise DescriptorsExhausted(descriptor_limit(), str(exc)) from exc
            raise TemplateTampered(self.path, f"cannot be read ({exc.strerror})") from exc
        try:
            copied = _kernel_copy(source, path)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        finally:
            os.close(source)
        if not copied:
            try:
                path.write_bytes(self.read())
            except BaseException:
                path.unlink(missing_ok=True)
                raise
            return
        with path.open("rb") as episode:
            found = hashlib.file_digest(episode, "sha256").hexdigest()
        if found != self.sha256:
            path.unlink(missing_ok=True)
            raise TemplateTampered(
                self.path,
                f"has changed since the suite started (sha256 {found[:16]}, "
                f"pinned {self.sha256[:16]})",
            )

    def intact(self) -> bool:
        try:
            self.read()
        except TemplateTampered:
            return False
        return True


# copy_file_range's answers where the kernel cannot copy these two files itself.
_NO_KERNEL_COPY = {errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM}
_CHUNK = 1 << 24


def _kernel_copy(source: int, target: Path) -> bool:
    """Copy the whole of `source` into a new `target` in the kernel; False (and `target`
    empty) where the kernel cannot."""
    dst = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        first = True
        while True:
            try:
                n = os.copy_file_range(source, dst, _CHUNK)
            except OSError as exc:
                if first and exc.errno in _NO_KERNEL_COPY:
                    return False
                raise
            if n == 0:
                return True
            first = False
    finally:
        os.close(dst)


def build_template(world: World) -> bytes:
    """The world's template database, built in memory (about 10 ms).

    The bytes depend only on the world, the schema and the SQLite library: the same world
    gives the same sha256 on every start.
    """
    delta_keys()  # refuses a table without a primary key before any episode exists
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(DDL)
        _load(conn, world)
        for system in systems().values():  # tables a system owns, seeded from the world
            if system.ddl:
                conn.executescript(system.ddl)
            if system.seed is not None:
                system.seed(conn, world)
        conn.commit()
        return conn.serialize()
    finally:
        conn.close()


def _template_name(world: World) -> str:
    """Named by the world and every table definition: a cached template never lacks one."""
    tables = hashlib.sha256("".join(s.ddl for s in systems().values()).encode()).hexdigest()
    return f"world-{world.sha256[:24]}-schema{SCHEMA_VERSION}-{tables[:8]}.sqlite"


def private_template(world: World, parent: Path | None = None) -> TemplateDatabase:
    """Build the world's template into a new owner-only directory and pin its bytes.

    The directory comes from `tempfile.mkdtemp` (mode 0700) and the file is read-only; the
    caller removes the directory when done (`path.parent`).
    """
    directory = Path(tempfile.mkdtemp(prefix="endstate-template-", dir=parent))
    data = build_template(world)
    path = directory / _template_name(world)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    return TemplateDatabase(path, data)


def template_path(world: World, cache_dir: Path | None = None) -> Path:
    """Build the world's template database once into a shared cache; later calls reuse it.

    A convenience for tools and tests. A running suite never makes episodes from this cache
    (anyone who can write it could poison every later run): it builds `private_template`.
    """
    cache = cache_dir or default_cache_dir()
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / _template_name(world)
    if path.exists():
        return path
    fd, tmp = tempfile.mkstemp(dir=cache, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(build_template(world))
        os.replace(tmp, path)  # atomic: concurrent builders never see a half-written file
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _load(conn: sqlite3.Connection, world: World) -> None:
    """Every world table's rows, in the order `WORLD_ROWS` declares them."""
    meta = {
        "world_id": world.id,
        "world_sha256": world.sha256,
        "world_seed": str(world.seed),
        "clock": world.clock,
        "schema_version": str(SCHEMA_VERSION),
    }
    tables: list[tuple[str, Rows]] = [("meta", sorted(meta.items()))]
    tables += [(table, rows_of(world)) for table, rows_of in WORLD_ROWS.items()]
    for table, rows in tables:
        if rows:
            marks = ",".join("?" * len(rows[0]))
            conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
