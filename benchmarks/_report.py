"""Write one benchmark's figures into its own section of docs/benchmarks.md."""

from __future__ import annotations

import os
import platform
import re
from datetime import UTC, datetime
from pathlib import Path


def machine() -> str:
    return (
        f"{platform.python_implementation()} {platform.python_version()}, "
        f"{os.cpu_count()} cores, {platform.machine()}, {datetime.now(UTC):%Y-%m-%d}"
    )


def write_section(doc: Path, name: str, body: str) -> None:
    """Replace the section between `<!-- bench:NAME -->` markers, or append it."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{body.rstrip()}\n{end}"
    text = doc.read_text() if doc.exists() else "# Benchmarks\n\nFigures written by `make bench`.\n"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    text = (
        pattern.sub(lambda _: block, text)
        if pattern.search(text)
        else text.rstrip() + "\n\n" + block + "\n"
    )
    doc.write_text(text)
