"""Server-side bookkeeping shared by every system: episodes, browser sessions and nonces.

Nothing here is visible to the agent except through cookies it cannot forge: a session id
is a random token bound to one episode and one system, and a nonce is a random token bound
to the session and to the forms of the page that rendered it (the paths they post to), so a
page shown for one record cannot vouch for a write to another.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from endstate.envs.store import EpisodeDB, Template
from endstate.envs.world import World

SYSTEMS: tuple[str, ...] = ("ehr", "payer_a", "payer_b", "fax")
NONCES_PER_SESSION = 64
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


class Runtime:
    """All live episodes and sessions of one running suite."""

    def __init__(
        self,
        world: World,
        template: Template | Path,
        data_dir: Path,
        testids: bool,
        faults: bool = False,
    ) -> None:
        self.world = world
        # Fault injection is for the suite's own tests: off unless the suite was started with
        # its private testing flag, and then armed one write at a time.
        self.faults = faults
        # Every episode is a copy of these bytes: a path is pinned as it reads now, and each
        # copy is refused (TemplateTampered) once the file no longer matches the pin.
        self.pinned = template if isinstance(template, Template) else Template.pin(template)
        self.template = self.pinned.path  # the file (benchmarks copy it as a reference)
        self.template_sha256 = self.pinned.sha256
        self.data_dir = data_dir
        self.testids = testids
        self.episodes: dict[str, Episode] = {}
        self.sessions: dict[str, Session] = {}
        self.base_urls: dict[str, str] = {}  # system -> http://host:port, set once bound
        # Uploaded files are matched back to chart documents by the bytes a download serves.
        self.document_hashes = {
            hashlib.sha256(d.text.encode("utf-8")).hexdigest(): d.id for d in world.documents
        }
        # Documents made during an episode (appeal letters) sort after every world document.
        self.last_document_id = max((d.id for d in world.documents), default="DOC-00000")
        self._start: dict[str, tuple[str, str]] = {}  # start token -> (episode id, system)

    def template_intact(self) -> bool:
        """Whether the template file still holds the pinned bytes."""
        return self.pinned.intact()

    def open_episode(self, seed: int | None = None, episode_id: str | None = None) -> Episode:
        """A fresh episode copied from the pinned template (TemplateTampered if it changed)."""
        if seed is None:
            seed = secrets.randbits(63)
        if episode_id is None:
            episode_id = f"ep-{secrets.token_hex(8)}"
        if not _EPISODE_ID.match(episode_id):
            raise ValueError(f"episode id {episode_id!r}: use letters, digits, '.', '_' or '-'")
        if episode_id in self.episodes:
            raise ValueError(f"episode id {episode_id!r} is already open")
        path = self.data_dir / f"{episode_id}.sqlite"
        db = EpisodeDB.create(self.pinned, path, self.world.clock)
        secret = hashlib.sha256(f"{self.world.sha256}:{seed}".encode()).digest()
        tokens = {system: secrets.token_urlsafe(24) for system in SYSTEMS}
        episode = Episode(episode_id, seed, db, secret, tokens)
        self.episodes[episode_id] = episode
        for system, token in tokens.items():
            self._start[token] = (episode_id, system)
        return episode

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

    def close_episode(self, episode_id: str) -> None:
        episode = self.episodes.pop(episode_id)
        for token in episode.start_tokens.values():
            self._start.pop(token, None)
        for sid in [s.sid for s in self.sessions.values() if s.episode_id == episode_id]:
            del self.sessions[sid]
        episode.db.close()
        episode.db.path.unlink(missing_ok=True)

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

    def session(self, system: str, sid: str | None) -> Session | None:
        found = self.sessions.get(sid or "")
        if found is None or found.system != system or found.episode_id not in self.episodes:
            return None
        return found

    def close_all(self) -> None:
        for episode_id in list(self.episodes):
            self.close_episode(episode_id)
