"""Key names as vendors' computer tools spell them, turned into Playwright's.

Anthropic's tool speaks xdotool ("ctrl+a", "Return", "Page_Down", "super"); OpenAI's speaks
its own upper-case names (["CTRL", "A"], "ENTER", "ARROWLEFT", "ESC"). The harness presses keys
with Playwright, so both are normalised here, case-insensitively for named keys. A single
character stays as given, except a letter held with Control, Alt or Meta, which is lowered:
models write "ctrl+A" and mean ctrl+a, not ctrl+shift+a. A name nobody knows passes through
unchanged, for Playwright to accept or refuse (the refusal reaches the model as a failed action).
"""

from __future__ import annotations

_NAMES: dict[str, str] = {
    # modifiers
    "ctrl": "Control",
    "control": "Control",
    "control_l": "Control",
    "control_r": "Control",
    "alt": "Alt",
    "alt_l": "Alt",
    "alt_r": "Alt",
    "option": "Alt",
    "shift": "Shift",
    "shift_l": "Shift",
    "shift_r": "Shift",
    "super": "Meta",
    "super_l": "Meta",
    "super_r": "Meta",
    "meta": "Meta",
    "cmd": "Meta",
    "command": "Meta",
    "win": "Meta",
    "windows": "Meta",
    # editing and navigation
    "return": "Enter",
    "enter": "Enter",
    "kp_enter": "Enter",
    "tab": "Tab",
    "iso_left_tab": "Tab",
    "escape": "Escape",
    "esc": "Escape",
    "backspace": "Backspace",
    "back_space": "Backspace",
    "delete": "Delete",
    "del": "Delete",
    "insert": "Insert",
    "space": "Space",
    "home": "Home",
    "end": "End",
    "page_up": "PageUp",
    "pageup": "PageUp",
    "prior": "PageUp",
    "page_down": "PageDown",
    "pgdn": "PageDown",
    "pgup": "PageUp",
    "pagedown": "PageDown",
    "next": "PageDown",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "arrowup": "ArrowUp",
    "arrowdown": "ArrowDown",
    "arrowleft": "ArrowLeft",
    "arrowright": "ArrowRight",
    "caps_lock": "CapsLock",
    "capslock": "CapsLock",
    # punctuation xdotool spells out
    "minus": "-",
    "plus": "+",
    "equal": "=",
    "comma": ",",
    "period": ".",
    "slash": "/",
    "backslash": "\\",
    "semicolon": ";",
    "apostrophe": "'",
    "quoteright": "'",
    "grave": "`",
    "bracketleft": "[",
    "bracketright": "]",
}
_NAMES.update({f"f{n}": f"F{n}" for n in range(1, 13)})
_NAMES.update({f"kp_{n}": str(n) for n in range(10)})
_CHORD_MODIFIERS = frozenset({"Control", "Alt", "Meta"})


def playwright_key(name: str) -> str:
    """One key in Playwright's spelling ("Return" -> "Enter", "ctrl" -> "Control")."""
    if len(name) == 1:
        return name
    return _NAMES.get(name.strip().lower(), name.strip())


def chord(keys: list[str]) -> list[str]:
    """Keys pressed together, in Playwright's spelling, letters lowered under a modifier."""
    named = [playwright_key(k) for k in keys]
    if _CHORD_MODIFIERS & set(named):
        named = [k.lower() if len(k) == 1 and k.isalpha() else k for k in named]
    return named


def xdotool_chords(text: str) -> list[list[str]]:
    """An xdotool key argument ("ctrl+shift+t", "Return", "ctrl+a Delete") as chords in order.

    Spaces separate chords pressed one after another; `+` joins keys of one chord, and a `+`
    standing alone or doubled ("ctrl++") is the plus key itself.
    """
    if text == " ":
        return [["Space"]]
    out: list[list[str]] = []
    for part in text.split():
        keys: list[str] = []
        for piece in part.split("+"):
            if piece:
                keys.append(piece)
            elif not keys or keys[-1] != "+":
                keys.append("+")
        out.append(chord(keys))
    return out
