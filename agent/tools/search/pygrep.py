"""The pure-Python grep used when no ripgrep binary is available.

It reads files the way ripgrep does by default: a UTF-16/32 or UTF-8 BOM is decoded, lines
split on `\\n` (a `\\r` stays part of the line for matching), and a pattern only ever matches
within one line. A NUL byte marks a binary file: ripgrep stops reading it at the 64 KiB buffer
holding the first NUL, so matches before that buffer count (listed, shown) unless the mode
needs the whole file (count), which then drops it.
"""

from __future__ import annotations

import codecs
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from agent.tools.shared.common import ToolError
from agent.tools.shared.textio import sniff_bom
from agent.tools.shared.walk import FileHits

# Per-line semantics can differ from a whole-text search for these; skip the fast pre-check.
_LINE_ONLY = ("(?!", "(?<!", "\\A", "\\Z", "\\z")


@dataclass(frozen=True)
class Query:
    pattern: str  # as the model wrote it (ripgrep syntax)
    ignore_case: bool
    regex: re.Pattern[str]
    whole_text: re.Pattern[str] | None  # MULTILINE twin used to skip files without a match
    mode: str  # files | content | count
    context: int


def compile_query(
    pattern: str, ignore_case: bool, mode: str, context: int, *, for_python: bool = True
) -> Query:
    """Compile a ripgrep (Rust regex) pattern for Python's `re`, translating common syntax.
    When ripgrep does the search (`for_python` False) a pattern only Rust understands
    (Unicode classes like Greek, byte-mode groups) is left to ripgrep to accept or refuse."""
    translated = re.sub(r"\(\?<([A-Za-z_]\w*)>", r"(?P<\1>", pattern)  # named groups
    translated = re.sub(r"(?<!\\)((?:\\\\)*)\\z", r"\1\\Z", translated)  # end of text
    translated = re.sub(r"(?<!\\)((?:\\\\)*)\\<", r"\1\\b(?=\\w)", translated)  # word start
    translated = re.sub(r"(?<!\\)((?:\\\\)*)\\>", r"\1\\b(?<=\\w)", translated)  # word end
    translated = _posix_classes(translated)
    flags = re.IGNORECASE if ignore_case else 0
    try:
        with warnings.catch_warnings():  # `[[:upper:]]` warns about a possible set operation
            warnings.simplefilter("ignore", FutureWarning)
            regex = re.compile(translated, flags)
    except re.error as exc:
        if not for_python:
            return Query(pattern, ignore_case, _NEVER, None, mode, context)
        raise ToolError(
            f"invalid regular expression {pattern!r}: {exc}",
            hint="escape special characters such as ( [ { . * + ? with a backslash",
        ) from None
    quick = None if any(t in pattern for t in _LINE_ONLY) else _compiled(translated, flags | re.M)
    return Query(pattern, ignore_case, regex, quick, mode, context)


_NEVER = re.compile(r"(?!)")


def _posix_classes(pattern: str) -> str:
    """`[:digit:]` and friends where Rust reads them: inside a bracket class (`[[:digit:]]`,
    `[a-f[:digit:]]`). Outside one, `[:alpha:]` is a plain class of `:alph` in both."""
    out: list[str] = []
    i, depth = 0, 0  # depth > 0: inside a bracket class
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if depth:
            m = _POSIX_NAME.match(pattern, i)
            if m and m.group(1) in _POSIX:
                out.append(_POSIX[m.group(1)])
                i = m.end()
                continue
            if ch == "[":
                depth += 1  # a nested class (Rust allows them)
            elif ch == "]":  # (a leading `]` member was taken when the class opened)
                depth -= 1
        elif ch == "[":
            depth = 1
            out.append(ch)
            i += 1
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):  # a leading `]` is a literal member
                out.append("]")
                i += 1
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_POSIX_NAME = re.compile(r"\[:(\w+):\]")
# ASCII classes as Rust regex reads them inside brackets: `[[:digit:]]`, `[^[:space:]]`.
_POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
    "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ", "upper": "A-Z",
    "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
}  # fmt: skip


def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(pattern, flags)


RG_BUFFER = 1 << 16  # ripgrep's line buffer: it reads a file in windows of this size


def read_text(path: Path, mode: str = "content") -> str | None:
    """A file's text as ripgrep would search it, or None for binary or unreadable files."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    found = sniff_bom(data[:4])
    if found:
        encoding, bom = found
        return codecs.decode(data[len(bom) :], encoding, errors="replace")
    first = data.find(b"\0")
    if first >= 0:
        if mode == "count":
            return None
        data = data[: _before_binary(data, first)]
    return data.decode("utf-8", errors="replace") if data else None


def _before_binary(data: bytes, first_nul: int) -> int:
    """Where ripgrep stops in a file whose first NUL is at `first_nul`: the start of the
    buffer window that holds it (each window starts after the last full line of the one
    before)."""
    pos = 0
    while first_nul >= pos + RG_BUFFER:
        end = data.rfind(b"\n", pos, pos + RG_BUFFER)
        if end < 0:  # a line longer than a window: ripgrep grows the buffer into the NUL
            return pos
        pos = end + 1
    return pos


def is_binary(path: Path) -> bool:
    """A NUL byte anywhere (a BOM-marked UTF-16/32 file is text)."""
    with open(path, "rb") as f:
        head = f.read(4)
        if sniff_bom(head):
            return False
        f.seek(0)
        while chunk := f.read(1 << 20):
            if b"\0" in chunk:
                return True
    return False


def search_text(rel: str, text: str, query: Query) -> FileHits | None:
    if not text or (query.whole_text and not query.whole_text.search(text)):
        return None
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()  # no empty line after the final newline
    hits = FileHits(rel)
    if query.mode == "files":
        return hits if any(query.regex.search(line) for line in lines) else None
    matched = [i for i, line in enumerate(lines) if query.regex.search(line)]
    if not matched:
        return None
    hits.count = len(matched)
    if query.mode == "content":
        shown: dict[int, bool] = {}
        for i in matched:
            for j in range(max(i - query.context, 0), min(i + query.context + 1, len(lines))):
                shown.setdefault(j, False)
            shown[i] = True
        hits.lines = [(j + 1, shown[j], lines[j].removesuffix("\r")) for j in sorted(shown)]
    return hits


def search_files(root: Path, rels: list[str], query: Query) -> list[FileHits]:
    """Search each file (paths relative to `root`); files without a match are left out."""
    found = []
    for rel in rels:
        text = read_text(root / rel, query.mode)
        if text is not None:
            hits = search_text(rel, text, query)
            if hits:
                found.append(hits)
    return found
