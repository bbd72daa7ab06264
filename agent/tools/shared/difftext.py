"""Unified diffs of two versions of a text, as write_file/edit_file and the permission
prompt show them: 3 lines of context, CRLF shown as LF, lines split at `\\n` only."""

from __future__ import annotations

import re

_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@", re.MULTILINE)


def _trimmed(a: list[str], b: list[str]) -> tuple[int, list[str], list[str]]:
    """Drop common leading/trailing lines (keeping context) so difflib stays fast on big files."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    start = max(head - 3, 0)
    tail = max(tail - 3, 0)
    return start, a[start : len(a) - tail], b[start : len(b) - tail]


def unified_diff(old: str, new: str, name: str) -> tuple[str, int, int]:
    """A unified diff (3 lines of context) of two texts, with added/removed line counts."""
    import difflib

    a, b = _lines(old), _lines(new)
    start, a_part, b_part = _trimmed(a, b)
    if len(a_part) * len(b_part) > 4_000_000:  # difflib is quadratic: do not stall on rewrites
        note = f"(diff of {len(a_part)} vs {len(b_part)} lines not computed)\n"
        return note, len(b_part), len(a_part)
    out: list[str] = []
    added = removed = 0
    for i, line in enumerate(difflib.unified_diff(a_part, b_part, f"a/{name}", f"b/{name}", n=3)):
        if i < 2:  # the `---`/`+++` file headers; a `-- comment` line removed reads alike
            pass
        elif line.startswith("@@"):
            line = _shift_hunk(line, start) if start else line
        elif line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out), added, removed


def _lines(text: str) -> list[str]:
    """Lines as files have them: split at `\n` only (str.splitlines also splits at form feeds,
    U+2028 and the like, which would misnumber hunks), CRLF shown as LF."""
    parts = text.replace("\r\n", "\n").split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


def _shift_hunk(header: str, by: int) -> str:
    """Move a hunk header's line numbers by `by` (the diff ran on a trimmed slice)."""

    def shift(m: re.Match[str]) -> str:
        old, new = int(m.group(1)) + by, int(m.group(3)) + by
        return f"@@ -{old}{m.group(2) or ''} +{new}{m.group(4) or ''} @@"

    return _HUNK.sub(shift, header)
