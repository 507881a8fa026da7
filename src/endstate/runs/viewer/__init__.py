"""The run viewer: step through a run's attempts in a browser, read-only, on loopback."""

from endstate.runs.viewer.app import make_app
from endstate.runs.viewer.guard import check_host
from endstate.runs.viewer.serve import serve

__all__ = ["check_host", "make_app", "serve"]
