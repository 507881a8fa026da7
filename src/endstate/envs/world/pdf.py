"""Scanned documents as PDF files: a small, deterministic PDF 1.4 writer.

Outside records reach a chart as scans, and payer portals take them as PDF uploads. The bytes
must be the same for the same text on every machine (uploads are matched back to chart
documents by hash), so nothing here reads a clock or a random source. Pages are US Letter
in Helvetica, with a text layer a reader can select and extract.
"""

from __future__ import annotations

import textwrap

PAGE_WIDTH, PAGE_HEIGHT = 612, 792
MARGIN = 54
FONT_SIZE = 10
LEADING = 13
WRAP = 92  # characters per line at 10 pt Helvetica across the text width
LINES_PER_PAGE = (PAGE_HEIGHT - 2 * MARGIN) // LEADING - 2  # room for the scan banner
# Characters Helvetica's WinAnsi encoding lacks, as their nearest plain-text forms.
_PLAIN = str.maketrans({"—": "-", "–": "-", "≥": ">=", "≤": "<=", "’": "'", "“": '"', "”": '"'})


def lines_of(text: str) -> list[str]:
    """The text wrapped to the page's width, paragraphs and blank lines kept."""
    out: list[str] = []
    for paragraph in text.translate(_PLAIN).splitlines():
        out += textwrap.wrap(paragraph, WRAP) or [""]
    return out


def pages_of(text: str) -> list[list[str]]:
    lines = lines_of(text)
    return [lines[i : i + LINES_PER_PAGE] for i in range(0, len(lines), LINES_PER_PAGE)] or [[]]


def _literal(line: str) -> str:
    """A PDF string literal: backslash, parentheses escaped; Latin-1 beyond ASCII."""
    escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return "(" + escaped + ")"


def _page_stream(lines: list[str], banner: str) -> bytes:
    top = PAGE_HEIGHT - MARGIN
    ops = [f"BT /F1 8 Tf {MARGIN} {top} Td {_literal(banner)} Tj ET"]
    ops.append(f"BT /F1 {FONT_SIZE} Tf {LEADING} TL {MARGIN} {top - 2 * LEADING} Td")
    ops += [f"{_literal(line)} '" for line in lines]
    ops.append("ET")
    return "\n".join(ops).encode("latin-1", "replace")


def pdf_bytes(text: str, banner: str) -> bytes:
    """A PDF of `text`, one scan banner line (source, date, page i of n) atop each page."""
    pages = pages_of(text)
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # the page tree, once the pages' numbers are known
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    kids = []
    for n, lines in enumerate(pages, start=1):
        stream = _page_stream(lines, f"{banner} - page {n} of {len(pages)}")
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>"
            % (PAGE_WIDTH, PAGE_HEIGHT, content)
        )
        kids.append(len(objects))
    refs = " ".join(f"{k} 0 R" for k in kids).encode()
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
