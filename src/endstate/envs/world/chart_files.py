"""A chart document as the file its download serves: bytes, media type and file name.

Uploads to the payer portals are matched back to chart documents by the sha256 of these
bytes, so the EHR's download, the runtime's table of hashes and the built-in trajectories
all take a document's file from here. A scan (format `pdf`) is served as a PDF with a scan
banner; everything else as UTF-8 text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from endstate.envs.world.model import Document, mdy
from endstate.envs.world.pdf import pdf_bytes


@dataclass(frozen=True)
class ChartFile:
    data: bytes
    media_type: str
    filename: str


def download_name(doc_id: str, title: str, fmt: str = "text") -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
    return f"{doc_id}-{slug}.{'pdf' if fmt == 'pdf' else 'txt'}"


def chart_file(doc_id: str, title: str, text: str, fmt: str, author: str, date: str) -> ChartFile:
    """The file of one chart document, the same bytes on every machine."""
    name = download_name(doc_id, title, fmt)
    if fmt == "pdf":
        banner = f"Scanned document from {author}, received {mdy(date)}"
        return ChartFile(pdf_bytes(text, banner), "application/pdf", name)
    return ChartFile(text.encode("utf-8"), "text/plain; charset=utf-8", name)


def file_of(d: Document) -> ChartFile:
    """The file of a world document, as the EHR's download serves it."""
    return chart_file(d.id, d.title, d.text, d.format, d.author, d.date)


def file_name_of(d: Document) -> str:
    return download_name(d.id, d.title, d.format)
