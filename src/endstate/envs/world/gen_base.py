"""One pass of generation: the rng, the world built so far, and the helpers every section uses."""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

from endstate.envs.world.model import GENERATOR_VERSION, Document, Patient, Service, World

# Reports that reach the chart from outside (imaging centers, sleep labs, reference labs) are
# scans: the chart serves them as PDF files.
SCANNED_KINDS = frozenset({"imaging", "sleep_study", "lab"})


class GenBase:
    """One pass of generation; holds the rng and the pieces built so far."""

    def __init__(self, seed: int, clock: str) -> None:
        self.rng = random.Random(seed)
        self.world = World(GENERATOR_VERSION, seed, clock)
        self.today = datetime.fromisoformat(clock).date()
        self._used: set[str] = set()

    # -- small helpers -------------------------------------------------------------------
    def unique_digits(self, n: int, prefix: str = "", rng: random.Random | None = None) -> str:
        draw = rng or self.rng
        while True:
            value = prefix + "".join(draw.choice("0123456789") for _ in range(n))
            if value not in self._used:
                self._used.add(value)
                return value

    def day(self, lo: int, hi: int) -> str:
        """A date `lo..hi` days from the pinned today (negative = past)."""
        return (self.today + timedelta(days=self.rng.randint(lo, hi))).isoformat()

    def between(self, start: str, hi: int, after: int = 0) -> str:
        """A date from `after` days past `start` to `hi` days from today: for a record that
        must follow another (a letter after the consultation it cites)."""
        lo = (date.fromisoformat(start) - self.today).days + after
        if lo > hi:
            raise ValueError(f"no date {after} day(s) after {start} and {hi} from today")
        return self.day(lo, hi)

    def money(self, value: float) -> float:
        return round(value, 2)

    # -- sections ------------------------------------------------------------------------
    def wants_auth(self, plan_id: str, services: list[Service]) -> bool:
        """Whether the plan's rules want authorization for any service, where it is booked."""
        rules = {r.cpt: r for r in self.world.payer_rules if r.plan_id == plan_id}
        return any(s.cpt in rules and rules[s.cpt].requires_auth_at(s.site) for s in services)

    def _plan_of(self, coverage_id: str) -> str:
        return next(c.plan_id for c in self.world.coverages if c.id == coverage_id)

    def doc(
        self,
        p: Patient,
        kind: str,
        title: str,
        when: str,
        author: str,
        related: str | None,
        text: str,
        *,
        status: str = "final",
        signed: bool = True,
        version: int = 1,
    ) -> None:
        n = len(self.world.documents) + 1
        self.world.documents.append(
            Document(
                f"DOC-{n:05d}",
                p.mrn,
                kind,
                title,
                when,
                author,
                status,
                signed,
                version,
                text,
                related,
                "pdf" if kind in SCANNED_KINDS else "text",
            )
        )
