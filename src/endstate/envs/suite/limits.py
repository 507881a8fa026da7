"""What one client of the suite may cost it: bytes, requests, events, storage, end state.

The suite serves every attempt's agent from one process, so each bound here is what keeps one
hostile attempt from exhausting the host or slowing the others. They are pinned with the
environment (`details.limits`) and disclosed; `docs/trust-boundary.md` lists them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MIB = 1024 * 1024


class SuiteLimits(BaseModel):
    """Per client (an episode, or the address of a client bound to none) unless it says."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request_bytes: int = Field(
        default=1 * MIB,
        gt=0,
        description="A request body to a system that takes no files; a larger one is refused "
        "413 from its Content-Length header, or as soon as the stream passes it.",
    )
    upload_request_bytes: int = Field(
        default=16 * MIB,
        gt=0,
        description="A request body to a system whose forms take files. Uploaded files are "
        "held in memory while the form is read, never spooled to the host's disk.",
    )
    requests_per_second: float = Field(
        default=20.0, gt=0, description="Sustained requests; faster ones wait their turn."
    )
    request_burst: int = Field(
        default=100, gt=0, description="Requests served at once before the rate applies."
    )
    body_bytes_per_second: int = Field(
        default=8 * MIB, gt=0, description="Request body bytes read per second, sustained."
    )
    concurrent_requests: int = Field(
        default=4, gt=0, description="Requests in service at once; later ones wait."
    )
    queued_requests: int = Field(
        default=64, ge=0, description="Requests waiting at once; beyond it, refused 429."
    )
    max_wait_seconds: float = Field(
        default=30.0, gt=0, description="A request that would wait longer is refused 429."
    )
    events: int = Field(
        default=20_000,
        gt=0,
        description="Events kept per episode. Beyond it, events that change nothing (page "
        "views, refused requests) are counted, not kept; every write keeps its event.",
    )
    storage_bytes: int = Field(
        default=64 * MIB,
        gt=0,
        description="What an episode's database may grow by over the world's; a write past "
        "it is refused 507 and the episode marked full.",
    )
    state_document_bytes: int = Field(
        default=32 * MIB,
        gt=0,
        description="An end state larger than this is not served: the attempt is unmeasurable.",
    )

    def body_limit(self, uploads: bool, own: int | None = None) -> int:
        """The request-body bound of a system: its own, else by whether it takes files."""
        if own is not None:
            return own
        return self.upload_request_bytes if uploads else self.request_bytes
