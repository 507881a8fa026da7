"""Text an agent wrote, made safe to show: every invisible or reordering character visible.

An agent's final message, a note it typed into a form or a line on its stderr can hold
characters a reader never sees: terminal escapes, NUL, bidi overrides that display
`exe.txt` as `txt.exe`, zero-width marks that make two ids look alike. HTML escaping leaves
all of them in place. Every page and report that shows such text passes it through
`visible` first, which replaces each one with a marked escape (`<U+202E>`) — never drops it,
so what was there stays on the record. Newline and tab are the only control characters kept.
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup

# Everything Unicode files as control (Cc, but newline and tab), format (Cf: bidi embeddings,
# overrides and isolates, marks, zero-width characters, tags...), surrogate (Cs: only a lone
# one can be in a str) or line and paragraph separator (Zl, Zp). Written out rather than
# derived at import (a scan of every code point); tests/test_visible.py checks it against
# the running Python's Unicode database.
HIDDEN = re.compile(
    "["
    "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but \t \n; DEL; C1
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ud800-\udfff\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
    "]"
)


def _mark(match: re.Match[str]) -> str:
    return f"<U+{ord(match.group()):04X}>"


def _mark_html(match: re.Match[str]) -> str:
    return f"&lt;U+{ord(match.group()):04X}&gt;"


def visible(text: str) -> str:
    """`text` with each hidden character replaced by `<U+XXXX>` (plain text: escape it after)."""
    return HIDDEN.sub(_mark, text)


def visible_markup(html: str) -> str:
    """The same for text that is already HTML: the marks are written as entities."""
    return HIDDEN.sub(_mark_html, html)


def hidden(text: str) -> list[str]:
    """The hidden characters `text` holds, as `U+XXXX`, in order (for checks and evidence)."""
    return [f"U+{ord(c):04X}" for c in HIDDEN.findall(text)]


def for_template(value: Any) -> Any:
    """Jinja's `finalize` for every page and report: what a template prints, made visible
    before autoescape. Markup (a chart, text a filter already escaped) keeps its marks as
    entities; numbers and None pass; anything else becomes text with its marks."""
    if isinstance(value, Markup):
        return Markup(visible_markup(str(value)))
    if isinstance(value, int | float) or value is None:
        return value
    return visible(str(value))
