"""The hostile agent's text attack: characters a reader cannot see, and markup, in everything
of the agent the viewer shows — its final message, its stdout and stderr, and a note it
writes through the EHR (so the end state holds them too). Copied beside `hostile_agent.py`
into the sandbox; the standard library only.

A bidi override makes `invoice<U+202E>fdp.exe` read as `invoiceexe.pdf`; a terminal escape
clears a screen or retitles a window; NUL and zero-width characters make two values look
alike. The harness judges from the outside whether the viewer shows each as an escape.
"""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any

from hostile_kit import leave_note  # type: ignore[import-not-found]  # its sibling module

HIDDEN_TEXT = (
    "invoice\u202efdp.exe \u2066isolate\u2069 \u202aembed\u202c \u200fmark\u200e\u061c "
    "zero\u200bwidth\u2060joiner\ufeff line\u2028sep \x1b[2J\x1b]0;owned\x07 nul\x00 del\x7f "
    "c1\x85\x9b tag\U000e0041 "
    '</script><script>window.__es_rt_pwned=1</script><img src=x onerror="window.__es_rt_pwned=2">'
)


def viewer_text(task: dict[str, Any]) -> None:
    note = "no note written"
    with contextlib.suppress(Exception):
        note = leave_note(task, HIDDEN_TEXT)
    sys.stderr.buffer.write(b"stderr: " + HIDDEN_TEXT.encode() + b"\n")
    sys.stdout.buffer.write(b"stdout: " + HIDDEN_TEXT.encode() + b"\n")
    sys.stdout.flush()
    # The final message is the text itself, not the usual JSON report: JSON cannot hold a
    # raw control character, and the point is that the record holds them raw.
    # A lone surrogate too (an escape on the wire): the record keeps it as escaped text.
    print(json.dumps({"claim": "done", "message": f"{HIDDEN_TEXT}\ud800 ({note})"}), flush=True)
    raise SystemExit(0)
