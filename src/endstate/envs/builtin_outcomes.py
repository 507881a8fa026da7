"""The report sections and gate outcomes the shipped systems add (only the scheduling service
records more than its checks say), registered like any plug-in's."""

from __future__ import annotations

from endstate.envs.systems import scheduling
from endstate.report.outcomes import register_section

register_section(scheduling.OUTCOMES)
