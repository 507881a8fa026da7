"""endstate: evaluate healthcare-operations agents from the environment's recorded end state."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("endstate")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
