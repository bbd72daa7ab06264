"""Text that did not come from the agent itself, made safe to show on a terminal: the one
function every front end passes it through (`visible`), what in a value cannot be shown as it
is (`hidden`, for the permission prompt), long values cut with a marker (`clip`), and JSON made
as safe without changing its value (`json_escaped`).

A terminal interprets some characters instead of showing them: C0 and C1 controls start
escape sequences (CSI, OSC, DCS, APC, PM, SOS: erase a line, move the cursor, set the window
title, write the clipboard, end a bracketed paste, make a hyperlink), bidi controls reorder
what follows, and some characters draw nothing at all (zero-width spaces, Unicode tags that
smuggle ASCII, BOMs). `visible` shows each of them as a visible token instead — ESC as `␛`
(so `ESC [2K` reads `␛[2K`), other C0 controls as their control pictures, C1 controls as
`\\x9b`, the rest as `\\u202e` / `\\U000e0041` — and leaves every other character alone. An
escape sequence whose ESC is shown is inert text: nothing else of it needs changing.

Two strengths: the default one keeps what ordinary text needs (newlines and tabs, the
zero-width joiners of emoji and of Persian or Indic words, variation selectors) and turns a
CRLF into a newline; `strict=True` is for a value a person approves (a command, a path, a
URL): every character that would not show as itself is made visible, CR and non-ASCII spaces
included, so what is shown is what will be used character for character.
"""

from __future__ import annotations

import re

# Always made visible (besides the C0 controls not kept): C1 and DEL, format characters
# (Unicode category Cf: bidi embeddings, overrides and isolates, marks, zero-width space,
# word joiner, invisible operators, BOM, interlinear annotations, tags), line and paragraph
# separators, lone surrogates (undecodable bytes), and the other default-ignorable code
# points a terminal draws as nothing. Spelled out as ranges (Unicode 15): deriving them from
# unicodedata at import would cost ~200 ms, and Python's table may be older than the terminal.
_ALWAYS = (
    "\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b\u200e\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff0-\ufffb\ud800-\udfff"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e00ff\U000e01f0-\U000e0fff"
)
# Strict only: characters ordinary text uses that still draw nothing, or draw a space that
# is not U+0020 — joiners, variation selectors, fillers, blanks, non-ASCII spaces.
_STRICT = (
    "\r\xa0\u034f\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180d\u180f\u2000-\u200a\u200c\u200d"
    "\u202f\u205f\u2800\u3000\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef"
)
_PATTERNS: dict[tuple[str, bool], re.Pattern[str]] = {}

_ESCAPES = re.compile("[\x1b\x90\x98\x9b\x9d\x9e\x9f]")  # ESC, and DCS SOS CSI OSC PM APC
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATES = re.compile("[\ud800-\udfff]")


def _pattern(keep: str, strict: bool) -> re.Pattern[str]:
    key = (keep, strict)
    found = _PATTERNS.get(key)
    if found is None:
        c0 = "".join(f"\\x{c:02x}" for c in range(0x20) if chr(c) not in keep)
        crlf = "" if strict or "\n" not in keep else "\r\n|"
        chars = c0 + _ALWAYS + (_STRICT if strict else "")
        found = _PATTERNS[key] = re.compile(f"{crlf}[{chars}]")
    return found


def _token(m: re.Match[str]) -> str:
    ch = m.group()
    if ch == "\r\n":
        return "\n"
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # ␀ … ␟ (␛ for ESC)
    if code == 0x7F:
        return "␡"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str, keep: str = "\n\t", *, strict: bool = False) -> str:
    """`text` with every character a terminal would interpret or not draw shown as a visible
    token (see the module docstring); the C0 controls in `keep` stay as they are."""
    return _pattern(keep, strict).sub(_token, text)


def hidden(text: str, keep: str = "\n\t", *, strict: bool = True) -> list[str]:
    """What in `text` would not show as itself (`visible` of the same strength changes it),
    in words, most dangerous first; empty when it shows faithfully."""
    pattern = _pattern(keep, strict)
    if not strict and "\n" in keep:
        text = text.replace("\r\n", "\n")  # shown as a newline: nothing hidden
    if pattern.search(text) is None:
        return []
    found = []
    if _ESCAPES.search(text):
        found.append("terminal escape sequences")
    if any(c not in keep for c in _CONTROLS.findall(_ESCAPES.sub("", text))):
        found.append("control characters")
    if _BIDI.search(text):
        found.append("bidirectional-text controls")
    if _SURROGATES.search(text):
        found.append("bytes that are not valid UTF-8")
    if pattern.search(_BIDI.sub("", _SURROGATES.sub("", _CONTROLS.sub("", text)))):
        found.append("invisible or look-alike characters")
    return found


def json_escaped(text: str) -> str:
    """JSON text (json.dumps, ensure_ascii=False) with each character `visible` would change
    written as a `\\u` escape: the same value for every JSON reader, nothing a terminal would
    interpret, and no lone surrogate to fail the UTF-8 encoder."""

    def escape(m: re.Match[str]) -> str:
        code = ord(m.group())
        if code <= 0xFFFF:
            return f"\\u{code:04x}"
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"

    return _pattern("", False).sub(escape, text)


def clip(text: str, limit: int) -> str:
    """`text` whole when it has at most `limit` characters, else its first `limit` and a
    marker saying how many more there are: never cut silently."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… (+{len(text) - limit:,} more characters)"
