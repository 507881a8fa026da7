"""File descriptors, the one resource an idle episode can exhaust: the limit and running out."""

from __future__ import annotations

import errno
import os
import resource


class DescriptorsExhausted(RuntimeError):
    """No file descriptor was left to open an episode's database: the process's limit."""

    def __init__(self, limit: int, detail: str) -> None:
        super().__init__(
            f"out of file descriptors (limit {limit}, RLIMIT_NOFILE) while opening an episode "
            f"database: {detail}"
        )
        self.limit = limit


def descriptor_limit() -> int:
    """The soft RLIMIT_NOFILE of this process (-1 when unlimited)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return -1 if soft == resource.RLIM_INFINITY else int(soft)


def out_of_descriptors() -> bool:
    """Whether the process is at its descriptor limit now (SQLite hides the errno)."""
    try:
        os.close(os.open(os.devnull, os.O_RDONLY))
    except OSError as exc:
        return exc.errno in (errno.EMFILE, errno.ENFILE)
    return False
