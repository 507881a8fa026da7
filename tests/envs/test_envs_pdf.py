"""Scanned documents as PDF: valid files a real PDF reader opens, the same bytes every time."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pypdf
from playwright.sync_api import Page, expect

from endstate.envs import EmbeddedSuite, EpisodeInfo
from endstate.envs.world.chart_files import file_of
from endstate.envs.world.pdf import LINES_PER_PAGE, pdf_bytes

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


def test_the_ehr_serves_a_scanned_report_as_the_pdf_uploads_are_matched_by(
    suite: EmbeddedSuite, episode: EpisodeInfo, page: Page
) -> None:
    world = suite.world
    scan = next(d for d in world.documents if d.format == "pdf")
    letter = next(d for d in world.documents if d.format == "text")
    page.goto(episode.start_urls["ehr"])
    origin = page.url.split("/worklist")[0]
    page.goto(f"{origin}/documents/{scan.id}")
    expect(page.get_by_text("Scanned document, received from outside as a PDF")).to_be_visible()
    expect(page.get_by_label("Document text")).to_contain_text(scan.text.splitlines()[0])
    with page.expect_download() as download:
        page.get_by_role("link", name="Download PDF").click()
    got = Path(download.value.path()).read_bytes()
    assert download.value.suggested_filename.startswith(scan.id)
    assert download.value.suggested_filename.endswith(".pdf")
    served = file_of(scan)
    assert got == served.data
    pages = pypdf.PdfReader(io.BytesIO(got)).pages
    assert f"Scanned document from {scan.author}" in pages[0].extract_text()
    assert suite.runtime.document_hashes[hashlib.sha256(got).hexdigest()] == scan.id
    # A typed document stays text: no notice, a .txt download.
    page.goto(f"{origin}/documents/{letter.id}")
    expect(page.get_by_text("Scanned document")).to_have_count(0)
    with page.expect_download() as download:
        page.get_by_role("link", name="Download", exact=True).click()
    assert download.value.suggested_filename.endswith(".txt")
