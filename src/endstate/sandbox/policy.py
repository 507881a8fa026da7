"""The limits every sandboxed attempt runs under; recorded in the manifest as they were."""

from __future__ import annotations

from pydantic import BaseModel, Field

MiB = 1024 * 1024


class SandboxLimits(BaseModel):
    memory_bytes: int = Field(
        default=4096 * MiB,
        description="Writable memory per process of the sandbox, browser included (RLIMIT_DATA).",
    )
    processes: int = Field(
        default=2048, description="Tasks of the sandbox's own uid (RLIMIT_NPROC), browser included."
    )
    tmp_bytes: int = Field(default=512 * MiB, description="Size of /tmp and of the home folder.")
    shm_bytes: int = Field(default=256 * MiB, description="Size of /dev/shm.")
    # Empty files cost no bytes but about 1 KiB of the host's kernel memory each: the byte
    # sizes above bound neither. Beyond these counts, making a file or folder fails (ENOSPC).
    tmp_inodes: int = Field(
        default=32768,
        ge=64,
        description="Files and folders in /tmp and in the home folder, each (tmpfs nr_inodes).",
    )
    shm_inodes: int = Field(default=4096, ge=64, description="Files in /dev/shm (nr_inodes).")
    # The kernel's pseudo-terminals are one pool for the whole machine (kernel.pty.max, 1,024
    # kept back for the host): without a cap one sandbox could take all the others'.
    ptys: int = Field(
        default=64, ge=1, description="Pseudo-terminals open at once (its own devpts max)."
    )
    output_bytes: int = Field(default=MiB, description="Bytes of stdout and of stderr kept.")
    ready_seconds: float = Field(default=60.0, description="Time allowed for the browser to start.")
