"""The pure-Python grep used when no ripgrep binary is available.

It reads files the way ripgrep does by default: a UTF-16/32 or UTF-8 BOM is decoded, a NUL
byte anywhere else marks a binary file that is skipped, lines split on `\\n` (a `\\r` stays part
of the line for matching), and a pattern only ever matches within one line.
"""

from __future__ import annotations

import codecs
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from agent.tools.common import ToolError
from agent.tools.textio import sniff_bom

# Per-line semantics can differ from a whole-text search for these; skip the fast pre-check.
_LINE_ONLY = ("(?!", "(?<!", "\\A", "\\Z", "\\z")


@dataclass(slots=True)  # tens of thousands per search: slots halve the cost of making them
class FileHits:
    """What one file contributed: matching-line count, and the shown lines in order."""

    path: str  # relative to the search root, `/`-separated
    count: int = 0
    lines: list[tuple[int, bool, str]] = field(default_factory=list)  # (number, is_match, text)


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


def _compiled(pattern: str, flags: int) -> re.Pattern[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile(pattern, flags)


def read_text(path: Path) -> str | None:
    """A file's text as ripgrep would search it, or None for binary or unreadable files."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    found = sniff_bom(data[:4])
    if found:
        encoding, bom = found
        return codecs.decode(data[len(bom) :], encoding, errors="replace")
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


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
        text = read_text(root / rel)
        if text is not None:
            hits = search_text(rel, text, query)
            if hits:
                found.append(hits)
    return found
