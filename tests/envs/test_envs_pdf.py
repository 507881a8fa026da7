"""Scanned documents as PDF: valid files a real PDF reader opens, the same bytes every time."""

from __future__ import annotations

import io

import pypdf

from endstate.envs.pdf import LINES_PER_PAGE, pdf_bytes

TEXT = (
    "PRIOR IMAGING REPORT\n\nExam: MRI knee (left) — 02/01/2026\n"
    "Impression: effusion; signal ≥ expected \\ no fracture (see prior).\n"
)


def test_a_real_reader_extracts_every_line_with_the_banner_on_each_page() -> None:
    long_text = TEXT + "".join(f"Finding line {n}\n" for n in range(LINES_PER_PAGE + 10))
    reader = pypdf.PdfReader(io.BytesIO(pdf_bytes(long_text, "Received by fax 02/14/2026")))
    assert len(reader.pages) == 2
    first, second = (p.extract_text() for p in reader.pages)
    assert "Received by fax 02/14/2026 - page 1 of 2" in first
    assert "page 2 of 2" in second
    assert "Exam: MRI knee (left) - 02/01/2026" in first  # dash in WinAnsi's plain form
    assert "signal >= expected \\ no fracture (see prior)." in first
    assert f"Finding line {LINES_PER_PAGE + 9}" in second


def test_the_same_text_gives_the_same_bytes_and_other_text_other_bytes() -> None:
    a = pdf_bytes(TEXT, "banner")
    assert a == pdf_bytes(TEXT, "banner")
    assert a != pdf_bytes(TEXT + "x", "banner")
    assert a.startswith(b"%PDF-1.4") and a.rstrip().endswith(b"%%EOF")


def test_an_empty_document_is_one_blank_page() -> None:
    reader = pypdf.PdfReader(io.BytesIO(pdf_bytes("", "banner")))
    assert len(reader.pages) == 1
    assert "page 1 of 1" in reader.pages[0].extract_text()
