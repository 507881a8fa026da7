"""`endstate.visible`: every hidden character an agent can write is shown, none is dropped."""

from __future__ import annotations

import sys
import unicodedata

from jinja2 import Environment
from markupsafe import Markup

from endstate.visible import HIDDEN, for_template, hidden, visible, visible_markup


def _should_hide(c: str) -> bool:
    category = unicodedata.category(c)
    return (category == "Cc" and c not in "\n\t") or category in ("Cf", "Cs", "Zl", "Zp")


def test_the_hidden_set_is_every_control_format_surrogate_and_separator_character() -> None:
    chars = [chr(i) for i in range(sys.maxunicode + 1)]
    missed = [f"U+{ord(c):04X}" for c in chars if _should_hide(c) and not HIDDEN.fullmatch(c)]
    assert missed == []
    # Beyond them only code points this Python's Unicode database does not assign yet
    # (format characters of a newer Unicode), never a character that is visible here.
    extra = [c for c in chars if HIDDEN.fullmatch(c) and not _should_hide(c)]
    assert {unicodedata.category(c) for c in extra} <= {"Cn"}


def test_hidden_characters_become_marked_escapes_and_nothing_else_changes() -> None:
    text = "a\u202eb\tc\nd\x1b[2Je\x00f\x85g\u200bh\ud800i — ü ✓ 🙂"
    shown = visible(text)
    assert shown == ("a<U+202E>b\tc\nd<U+001B>[2Je<U+0000>f<U+0085>g<U+200B>h<U+D800>i — ü ✓ 🙂")
    assert shown.encode("utf-8")  # a lone surrogate no longer stops the text being written
    assert visible(shown) == shown  # the marks are plain text: applying it again is a no-op
    assert hidden(text) == ["U+202E", "U+001B", "U+0000", "U+0085", "U+200B", "U+D800"]
    assert visible("\U000e0041") == "<U+E0041>"  # a tag character, beyond the BMP


def test_in_a_template_marks_are_escaped_text_and_markup_keeps_them_as_entities() -> None:
    env = Environment(autoescape=True, finalize=for_template)
    page = env.from_string(
        '<p title="{{ t }}">{{ t }}</p>{{ items | join(", ") }}{{ n }}{{ none }}{{ safe }}'
    ).render(
        t='"\u202e<b>',
        items=["\u2066x", "<y>"],
        n=3,
        none=None,
        safe=Markup("<em>\u200f</em>"),
    )
    assert page == (
        '<p title="&#34;&lt;U+202E&gt;&lt;b&gt;">&#34;&lt;U+202E&gt;&lt;b&gt;</p>'
        "&lt;U+2066&gt;x, &lt;y&gt;3None<em>&lt;U+200F&gt;</em>"
    )
    assert visible_markup("&amp;\u202e") == "&amp;&lt;U+202E&gt;"
