"""Task templates for the built-in corpus, by family and tier."""

from __future__ import annotations

from endstate.builtin.templates import denials, dme, prior_auth
from endstate.builtin.templates.base import Template

TEMPLATES: tuple[Template, ...] = (*prior_auth.TEMPLATES, *denials.TEMPLATES, *dme.TEMPLATES)
FAMILIES: tuple[str, ...] = ("prior_auth", "appeals_denials", "dme")
FAMILY_WEIGHTS: dict[str, int] = {"prior_auth": 4, "appeals_denials": 4, "dme": 1}
TIERS: tuple[str, ...] = ("easy", "medium", "hard")

__all__ = ["FAMILIES", "FAMILY_WEIGHTS", "TEMPLATES", "TIERS", "Template"]
