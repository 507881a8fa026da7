"""The template contract: which records fit, and how one record becomes a task."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from endstate.builtin.templates.common import Draft, WorldView


class TaskTemplate:
    """One kind of task for one family and tier; subclasses fill in the class attributes.

    `candidates` lists every record of a world the template can be instantiated on (in world
    order, so the generator's seeded choice is the only source of variation); `build` makes
    the task for one of them.
    """

    id: ClassVar[str]
    family: ClassVar[str]
    tier: ClassVar[str]
    scenario_label: ClassVar[str]

    @property
    def name(self) -> str:
        """The id, under which the task-template registry knows it."""
        return self.id

    def candidates(self, w: WorldView) -> list[str]:
        raise NotImplementedError

    def build(self, w: WorldView, key: str, rng: random.Random) -> Draft:
        raise NotImplementedError
