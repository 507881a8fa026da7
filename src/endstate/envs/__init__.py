"""Environments: the embedded suite (an EHR, a payer portal and a fax portal) and its world."""

from endstate.envs.server import EmbeddedSuite, EpisodeInfo
from endstate.envs.world import World, generate_world

__all__ = ["EmbeddedSuite", "EpisodeInfo", "World", "generate_world"]
