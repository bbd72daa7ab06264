"""git's config file syntax, read the way git 2.39 reads it (config.c `git_parse_source`).

Used to learn which repository-local settings would make git run a command (agent.gitsafe), so
it has to see exactly the names git sees: `[core] fsmonitor = x` on one line, `[core
"x"]`-style subsections whose case matters, the legacy `[section.sub]` form whose case does
not, quotes, escapes and backslash-continued values, `;`/`#` comments, CRLF and a leading BOM.
Where git would stop with "bad config line", parsing stops too and `bad` says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_SPACE = " \t\n\r"  # git's isspace (sane_ctype): no \v or \f
_ALPHA = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_KEYCHAR = _ALPHA | frozenset("0123456789-")
_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "\\": "\\", '"': '"'}


@dataclass
class Parsed:
    """Variables in file order: (name, value); value None for a bare `key` (boolean true)."""

    entries: list[tuple[str, str | None]] = field(default_factory=list)
    bad: bool = False  # git refuses this file


class _Reader:
    """git's get_next_char: CRLF reads as LF, and the end of the text as a final LF."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.eof = text, 0, False

    def next(self) -> str:
        if self.pos >= len(self.text):
            self.eof = True
            return "\n"
        c = self.text[self.pos]
        self.pos += 1
        if c == "\r" and self.text.startswith("\n", self.pos):
            self.pos += 1
            return "\n"
        return c


def parse(text: str) -> Parsed:
    out = Parsed()
    r = _Reader(text.removeprefix("\ufeff"))
    section, comment = "", False
    while True:
        c = r.next()
        if c == "\n":
            if r.eof:
                return out
            comment = False
        elif comment or c in _SPACE:
            continue
        elif c in "#;":
            comment = True
        elif c == "[":
            head = _section(r)
            if not head:
                break
            section = head + "."
        elif c in _ALPHA:
            entry = _variable(r, section + c.lower())
            if entry is None:
                break
            # git hands names and values on as C strings: a NUL ends them
            out.entries.append(
                (entry[0].split("\0")[0], None if entry[1] is None else entry[1].split("\0")[0])
            )
        else:
            break
    out.bad = True
    return out


def _section(r: _Reader) -> str:
    """`[name]`, `[name "sub"]` (sub kept as written) or `[name.sub]` (all lower case); "" bad."""
    name = ""
    while True:
        c = r.next()
        if r.eof:
            return ""
        if c == "]":
            return name
        if c in _SPACE:
            return _subsection(r, name, c)
        if c not in _KEYCHAR and c != ".":
            return ""
        name += c.lower()


def _subsection(r: _Reader, name: str, c: str) -> str:
    while True:
        if c == "\n":
            return ""
        c = r.next()
        if c not in _SPACE:
            break
    if c != '"':
        return ""
    sub = ""
    while True:
        c = r.next()
        if c == "\n":
            return ""
        if c == '"':
            break
        if c == "\\":
            c = r.next()
            if c == "\n":
                return ""
        sub += c
    return f"{name}.{sub}" if r.next() == "]" else ""


def _variable(r: _Reader, name: str) -> tuple[str, str | None] | None:
    """The rest of the name after its first letter, then `= value` or nothing; None: bad."""
    while True:
        c = r.next()
        if r.eof or c not in _KEYCHAR:
            break
        name += c.lower()
    while c in " \t":
        c = r.next()
    if c == "\n":
        return name, None
    if c != "=":
        return None
    value = _value(r)
    return None if value is None else (name, value)


def _value(r: _Reader) -> str | None:
    quote = comment = False
    out, spaces = "", 0
    while True:
        c = r.next()
        if c == "\n":
            return None if quote else out
        if comment:
            continue
        if c in _SPACE and not quote:
            spaces += 1 if out else 0  # leading blanks go, inner ones stay
            continue
        if not quote and c in "#;":
            comment = True
            continue
        out, spaces = out + " " * spaces, 0
        if c == "\\":
            c = r.next()
            if c == "\n":
                continue  # a continued line
            if c not in _ESCAPES:
                return None
            out += _ESCAPES[c]
        elif c == '"':
            quote = not quote
        else:
            out += c
