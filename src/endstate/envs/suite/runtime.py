"""Server-side bookkeeping shared by every system: episodes, browser sessions and nonces.

Nothing here is visible to the agent except through cookies it cannot forge: a session id
is a random token bound to one episode and one system, and a nonce is a random token bound
to the session and to the forms of the page that rendered it (the paths they post to), so a
page shown for one record cannot vouch for a write to another.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import json
import re
import secrets
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from endstate.envs.suite.database import ConnectionCache, EpisodeDB
from endstate.envs.suite.descriptors import DescriptorsExhausted
from endstate.envs.suite.episode_setup import prepare_episode
from endstate.envs.suite.limits import SuiteLimits
from endstate.envs.suite.registry import system_names
from endstate.envs.suite.world_db import TemplateDatabase
from endstate.envs.world import World
from endstate.envs.world.chart_files import file_of

NONCES_PER_SESSION = 64
CLOSED_REMEMBERED = 4096  # closed episode ids answered with 410, not 404 (most recent)
T = TypeVar("T")
CLOSE_WAIT_S = 30.0  # how long a close waits for requests still using the episode
_EPISODE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I look-alikes


@dataclass(frozen=True)
class IssuedNonce:
    """What a nonce vouches for: the page that rendered it and the paths its forms post to."""

    page: str
    targets: frozenset[str]


@dataclass
class Session:
    sid: str
    episode_id: str
    system: str
    user: str | None = None  # the portal account logged in through this session, if any
    nonces: dict[str, IssuedNonce] = field(default_factory=dict)
    # Work in progress a page keeps between requests (e.g. a wizard's earlier steps): held
    # on the server, so nothing the browser stores can fill it in.
    scratch: dict[str, Any] = field(default_factory=dict)

    def issue_nonce(self, page: str) -> str:
        """A fresh nonce for a page; it vouches for no POST until `bind_nonce` names them."""
        value = secrets.token_urlsafe(18)
        self.nonces[value] = IssuedNonce(page, frozenset())
        while len(self.nonces) > NONCES_PER_SESSION:  # oldest pages expire first
            del self.nonces[next(iter(self.nonces))]
        return value

    def bind_nonce(self, value: str, targets: Iterable[str]) -> None:
        """Bind a nonce to the request paths its rendered page's forms post to."""
        issued = self.nonces.get(value)
        if issued is not None:  # (keeps its place in the expiry order)
            self.nonces[value] = IssuedNonce(issued.page, frozenset(targets))

    def take_nonce(self, value: str | None) -> IssuedNonce | None:
        """Consume a nonce (single use, whatever it is then used for); None if invalid.

        The caller checks the request path against `targets`: a nonce is spent even when
        it is presented to a form its page did not show.
        """
        if not value:
            return None
        return self.nonces.pop(value, None)


@dataclass
class Episode:
    id: str
    seed: int
    db: EpisodeDB
    secret: bytes
    start_tokens: dict[str, str]

    def code(self, label: str, n: int, length: int = 10) -> str:
        """An identifier derived from the episode seed: deterministic, not guessable without it."""
        digest = hmac.new(self.secret, f"{label}:{n}".encode(), hashlib.sha256).digest()
        return "".join(_CODE_ALPHABET[b % len(_CODE_ALPHABET)] for b in digest[:length])


class InjectedFault(RuntimeError):
    """The failure a test armed with `Runtime.arm_fault`; never raised otherwise."""


class IdempotencyConflict(ValueError):
    """An idempotency key reused for a different request, or after its episode was closed."""


class Runtime:
    """All live episodes and sessions of one running suite."""

    def __init__(
        self,
        world: World,
        template: TemplateDatabase | Path,
        data_dir: Path,
        testids: bool,
        faults: bool = False,
        idle_connections: int = 64,
        system_options: dict[str, dict[str, Any]] | None = None,
        limits: SuiteLimits | None = None,
    ) -> None:
        self.world = world
        self.limits = limits or SuiteLimits()
        # Per system, how the run configured it (the scheduling service's simulated user).
        self.system_options: dict[str, dict[str, Any]] = dict(system_options or {})
        # Fault injection is for the suite's own tests: off unless the suite was started with
        # its private testing flag, and then armed one write at a time.
        self.faults = faults
        # Every episode is a copy of these bytes: a path is pinned as it reads now, and each
        # copy is refused (TemplateTampered) once the file no longer matches the pin.
        self.pinned = (
            template if isinstance(template, TemplateDatabase) else TemplateDatabase.pin(template)
        )
        self.template = self.pinned.path  # the file (benchmarks copy it as a reference)
        self.template_sha256 = self.pinned.sha256
        self.data_dir = data_dir
        self.testids = testids
        self.episodes: dict[str, Episode] = {}
        # Open connections beyond this many idle ones are closed (see ConnectionCache).
        self.connections = ConnectionCache(idle_connections)
        self.close_wait = CLOSE_WAIT_S  # seconds a close waits for requests in flight
        self.closed: OrderedDict[str, None] = OrderedDict()
        # Idempotency key -> (episode id, the request it was made for): a create retried
        # after a lost response gets the episode it already made, not a second one.
        self._created: dict[str, tuple[str, tuple[int | None, str | None, str]]] = {}
        self._key_of: dict[str, str] = {}  # episode id -> its idempotency key
        self._spent: OrderedDict[str, str] = OrderedDict()  # keys of closed episodes -> id
        self.sessions: dict[str, Session] = {}
        self.base_urls: dict[str, str] = {}  # system -> http://host:port, set once bound
        # Uploaded files are matched back to chart documents by the bytes a download serves.
        self.document_hashes = {
            hashlib.sha256(file_of(d).data).hexdigest(): d.id for d in world.documents
        }
        # Documents made during an episode (appeal letters) sort after every world document.
        self.last_document_id = max((d.id for d in world.documents), default="DOC-00000")
        self._start: dict[str, tuple[str, str]] = {}  # start token -> (episode id, system)
        self._files_busy: set[str] = set()  # ids whose file is being copied or removed
        self._pending: dict[str, asyncio.Future[None]] = {}  # idempotency keys being created

    def template_intact(self) -> bool:
        """Whether the template file still holds the pinned bytes."""
        return self.pinned.intact()

    def open_episode(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        setup: dict[str, Any] | None = None,
    ) -> Episode:
        """A fresh episode copied from the pinned template (TemplateTampered if it changed),
        with `setup` applied: per system, the case's initial snapshot (EpisodeSetupError)."""
        seed, episode_id = self._claim(seed, episode_id)
        path = self.data_dir / f"{episode_id}.sqlite"
        try:
            db = self._new_db(path)
        except DescriptorsExhausted:
            if not self.connections.idle:
                raise
            self.connections.trim(0)  # idle connections give their descriptors back first
            db = self._new_db(path)
        return self._register(episode_id, seed, db, setup)

    async def create_episode(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        setup: dict[str, Any] | None = None,
    ) -> Episode:
        """`open_episode` for the event loop: the template's check and the file copy (a few
        ms of hashing and kernel copying) run in a worker thread, so requests of other
        episodes are served meanwhile. The id is claimed first: no second create takes it."""
        seed, episode_id = self._claim(seed, episode_id)
        path = self.data_dir / f"{episode_id}.sqlite"
        copy = functools.partial(self._new_db, path)
        try:
            db = await self._off_loop(episode_id, copy, undo=EpisodeDB.remove_files)
        except DescriptorsExhausted:
            if not self.connections.idle:
                raise
            self.connections.trim(0)  # idle connections give their descriptors back first
            db = await self._off_loop(episode_id, copy, undo=EpisodeDB.remove_files)
        return self._register(episode_id, seed, db, setup)

    async def _off_loop(
        self, episode_id: str, work: Callable[[], T], undo: Callable[[T], None] | None = None
    ) -> T:
        """`work()` on an episode's file, in a worker thread, the id claimed till it is done.

        If the awaiting request is cancelled first, the work still finishes in its thread:
        `undo` then takes its result back (a copy is removed, never listed), and only then
        is the id free again, so no later create of the id shares its file with this work.
        """
        self._files_busy.add(episode_id)
        task = asyncio.ensure_future(asyncio.to_thread(work))

        def finished(done: asyncio.Future[T]) -> None:
            if undo is not None and not done.cancelled() and done.exception() is None:
                undo(done.result())
            self._files_busy.discard(episode_id)

        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(finished)
            raise
        except BaseException:
            self._files_busy.discard(episode_id)
            raise
        self._files_busy.discard(episode_id)
        return result

    def _claim(self, seed: int | None, episode_id: str | None) -> tuple[int, str]:
        """The seed and id a new episode gets (ValueError for an id taken or malformed)."""
        if seed is None:
            seed = secrets.randbits(63)
        if episode_id is None:
            episode_id = f"ep-{secrets.token_hex(8)}"
        if not _EPISODE_ID.match(episode_id):
            raise ValueError(f"episode id {episode_id!r}: use letters, digits, '.', '_' or '-'")
        if episode_id in self.episodes or episode_id in self._files_busy:
            raise ValueError(f"episode id {episode_id!r} is already open")
        return seed, episode_id

    def _register(
        self, episode_id: str, seed: int, db: EpisodeDB, setup: dict[str, Any] | None
    ) -> Episode:
        """Apply `setup` to the fresh copy and list the episode (its start tokens live now)."""
        if setup:
            try:
                prepare_episode(db, setup)
            except BaseException:
                db.close()
                db.remove_files()
                raise
        secret = hashlib.sha256(f"{self.world.sha256}:{seed}".encode()).digest()
        tokens = {system: secrets.token_urlsafe(24) for system in system_names()}
        episode = Episode(episode_id, seed, db, secret, tokens)
        self.episodes[episode_id] = episode
        self.closed.pop(episode_id, None)
        for system, token in tokens.items():
            self._start[token] = (episode_id, system)
        return episode

    def _new_db(self, path: Path) -> EpisodeDB:
        return EpisodeDB.create(
            self.pinned,
            path,
            self.world.clock,
            self.connections,
            event_cap=self.limits.events,
            storage_bytes=self.limits.storage_bytes,
        )

    def arm_fault(self, episode_id: str, kind: str) -> None:
        """Make the episode's next `kind` write fail mid-transaction (once), for tests."""
        if not self.faults:
            raise RuntimeError("fault injection is off: start the suite with _fault_injection")
        db = self.episodes[episode_id].db

        def fail(write: str) -> None:
            if write == kind:
                db.fault = None
                raise InjectedFault(f"injected fault in {kind}")

        db.fault = fail

    async def create_once(
        self,
        key: str,
        seed: int | None = None,
        episode_id: str | None = None,
        setup: dict[str, Any] | None = None,
    ) -> tuple[Episode, bool]:
        """`create_episode` made idempotent by a client-chosen key: (episode, whether replayed).

        The same key with the same request returns the episode it made while that episode is
        open; with another request, or once that episode is closed, it is refused. A retry
        arriving while the first create of its key is still copying waits for it, then is
        answered as a replay."""
        asked = _asked(key, seed, episode_id, setup)
        while (pending := self._pending.get(key)) is not None:
            await asyncio.shield(pending)
        made = self._replayed(key, asked)
        if made is not None:
            return made, True
        done = asyncio.get_running_loop().create_future()
        self._pending[key] = done
        try:
            episode = await self.create_episode(seed, episode_id, setup)
            self._made(key, episode, asked)
        finally:
            del self._pending[key]
            done.set_result(None)
        return episode, False

    def _replayed(self, key: str, asked: tuple[int | None, str | None, str]) -> Episode | None:
        """The open episode `key` made for this same request (None: not made yet)."""
        if key in self._spent:
            raise IdempotencyConflict(
                f"idempotency key {key!r} made episode {self._spent[key]}, which is closed"
            )
        made = self._created.get(key)
        if made is None:
            return None
        made_id, made_for = made
        if made_for != asked:
            raise IdempotencyConflict(
                f"idempotency key {key!r} was used for another request (episode {made_id})"
            )
        return self.episodes[made_id]

    def _made(self, key: str, episode: Episode, asked: tuple[int | None, str | None, str]) -> None:
        self._created[key] = (episode.id, asked)
        self._key_of[episode.id] = key

    def was_closed(self, episode_id: str) -> bool:
        """Whether the episode was closed recently (it is answered 410 rather than 404)."""
        return episode_id in self.closed

    def _detach(self, episode_id: str) -> Episode:
        """Unlist an episode: from here on no new request can reach it."""
        episode = self.episodes.pop(episode_id)
        for token in episode.start_tokens.values():
            self._start.pop(token, None)
        for sid in [s.sid for s in self.sessions.values() if s.episode_id == episode_id]:
            del self.sessions[sid]
        key = self._key_of.pop(episode_id, None)
        if key is not None:
            self._created.pop(key, None)
            _remember(self._spent, key, episode_id)
        _remember(self.closed, episode_id, None)
        return episode

    def close_episode(self, episode_id: str) -> None:
        """Close now, whatever is in flight (shutdown; `retire` waits for requests)."""
        episode = self._detach(episode_id)
        episode.db.close()
        episode.db.remove_files()

    async def retire(self, episode_id: str) -> None:
        """Close once the requests still using the episode have finished (`close_wait` at most).

        The episode is unlisted at once, so nothing new reaches it; a request half way
        through a write completes (or rolls back) before the database is closed and removed.
        """
        episode = self._detach(episode_id)
        drained = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not drained.done():
                drained.set_result(None)

        episode.db.when_drained(wake)
        try:
            await asyncio.wait_for(drained, timeout=self.close_wait)
        except TimeoutError:
            pass  # a request stuck that long loses its database (it answers EpisodeClosed)
        finally:
            episode.db.close()
            # Freeing a few MB of pages is kernel work: off the loop, done before the answer.
            # Till then the id stays claimed, so a create reusing it cannot lose its file.
            await self._off_loop(episode_id, episode.db.remove_files)

    def start_session(self, system: str, token: str, current: Session | None) -> Session | None:
        """Bind a browser to an episode from its start URL (keeps a session already bound)."""
        target = self._start.get(token)
        if target is None or target[1] != system:
            return None
        if current is not None and current.episode_id == target[0]:
            return current
        session = Session(secrets.token_urlsafe(24), target[0], system)
        self.sessions[session.sid] = session
        return session

    def episode_of_start(self, system: str, token: str) -> str | None:
        """The episode a start token of `system` binds to (None: no such token)."""
        target = self._start.get(token)
        return target[0] if target is not None and target[1] == system else None

    def session(self, system: str, sid: str | None) -> Session | None:
        found = self.sessions.get(sid or "")
        if found is None or found.system != system or found.episode_id not in self.episodes:
            return None
        return found

    def close_all(self) -> None:
        for episode_id in list(self.episodes):
            self.close_episode(episode_id)


def _asked(
    key: str, seed: int | None, episode_id: str | None, setup: dict[str, Any] | None
) -> tuple[int | None, str | None, str]:
    """What an idempotent create asked for (IdempotencyConflict for a key out of bounds)."""
    if not key or len(key) > 200:
        raise IdempotencyConflict("idempotency key must be 1 to 200 characters")
    return seed, episode_id, json.dumps(setup, sort_keys=True)


def _remember(recent: OrderedDict[str, Any], key: str, value: Any) -> None:
    """Keep `key` among the most recent CLOSED_REMEMBERED entries."""
    recent[key] = value
    while len(recent) > CLOSED_REMEMBERED:
        recent.popitem(last=False)
