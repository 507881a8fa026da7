"""Optional libraries for export: imported on demand, missing ones named in one line."""

from __future__ import annotations

import importlib
from types import ModuleType

from endstate.errors import EndstateError

EXTRA_HINT = "pip install 'endstate[export]'"


def require(module: str, package: str, what: str) -> ModuleType:
    """Import `module` or fail with one line naming the extra that provides it.

    A plain ImportError would surface as a traceback; the user needs the install command."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise EndstateError(
            f"{what} needs the {package} package, which could not be imported ({exc}): {EXTRA_HINT}"
        ) from None
