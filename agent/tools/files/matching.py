"""How edit_file finds old_string: literally, in the file's line endings, in a CRLF region of
an LF file; and when it cannot, how many matches there were or the nearest near-miss."""

from __future__ import annotations

import re

from agent.tools.shared import textio
from agent.tools.shared.common import ToolError


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _adapt(text: str, old: str, new: str, newline: str) -> tuple[str, str]:
    """old/new in the file's line endings (the model usually sends LF for a CRLF file).

    `new` keeps its own endings only when `old` matched a line break as the model wrote it
    (a region of a mixed-ending file); otherwise it takes the file's."""
    for candidate in (textio.with_newlines(old, newline), old):
        if candidate in text:
            as_written = candidate == old and "\n" in old
            return candidate, new if as_written else textio.with_newlines(new, newline)
    found = _any_endings(text, old)
    if len(found) == 1:  # one region of a mixed-ending file: take its endings
        actual = found.pop()
        crlf, lf = actual.count("\r\n"), actual.count("\n")
        if crlf in (0, lf):
            return actual, textio.with_newlines(new, "\r\n" if crlf else "\n")
        return actual, new
    return old, new


def _any_endings(text: str, old: str) -> set[str]:
    """The distinct places `old` matches when each line break may be LF or CRLF."""
    if "\n" not in old:
        return set()
    parts = old.replace("\r\n", "\n").split("\n")
    pattern = re.compile(r"\r?\n".join(re.escape(part) for part in parts))
    return {m.group() for m in pattern.finditer(text)}


def near_miss(text: str, old: str) -> str:
    """Where old_string almost matches: ignoring whitespace, else the most similar line."""
    places = len(_any_endings(text, old))
    if places:
        return (
            f"it matches {places} differently written places if line endings are ignored "
            "(the file mixes CRLF and LF)"
        )
    squash = re.compile(r"\s+")
    target = squash.sub("", old)
    if target and len(text) <= 20 << 20:
        where = squash.sub("", text).find(target)
        if where >= 0:
            # Walk non-space runs to map the squashed offset back to a real position.
            seen = 0
            for run in re.finditer(r"\S+", text):
                if seen + len(run.group()) > where:
                    line = _line_of(text, run.start() + where - seen)
                    span = old.count("\n") + 1
                    snippet = "\n".join(text.split("\n")[line - 1 : line - 1 + span])
                    return (
                        f"a whitespace-insensitive match exists at line {line} (the whitespace or "
                        f"indentation differs):\n{snippet[:1500]}"
                    )
                seen += len(run.group())
    import difflib

    first = next((ln.strip() for ln in old.splitlines() if ln.strip()), "")
    lines = [ln.strip() for ln in text.split("\n")[:50_000]]
    close = difflib.get_close_matches(first, lines, n=1, cutoff=0.6) if first else []
    if close:
        line = lines.index(close[0]) + 1
        return f"the most similar line is line {line}: {close[0][:300]}"
    return "nothing similar found"


def replaced(
    name: str, text: str, newline: str, stray: int, old: str, new: str, replace_all: bool
) -> str:
    """`text` (a file called `name`, with `newline` endings and `stray` undecodable bytes) with
    the edit applied, or a ToolError saying exactly why the edit cannot apply."""
    old, new, _ = locate(name, text, newline, stray, old, new, replace_all)
    # str.replace is literal: no regex, no `$&`/backreference expansion in new_string.
    return text.replace(old, new) if replace_all else text.replace(old, new, 1)


def locate(
    name: str, text: str, newline: str, stray: int, old: str, new: str, replace_all: bool
) -> tuple[str, str, list[int]]:
    """old and new in the file's line endings and where old matches (every place with
    `replace_all`, else the only one), or the ToolError saying why the edit cannot apply."""
    old, new = _adapt(text, old, new, newline)
    count = text.count(old)
    if count == 0:
        hint = "read the file again and copy old_string exactly (indentation, line breaks)"
        if stray and "\ufffd" in old:
            hint = (
                f"{name} has non-UTF-8 bytes, shown as \ufffd, that old_string cannot match: "
                "choose old_string around them, or fix them with bash"
            )
        raise ToolError(f"old_string not found in {name}; {near_miss(text, old)}", hint=hint)
    if count > 1 and not replace_all:
        spots, pos = [], -1
        for _ in range(min(count, 10)):
            pos = text.find(old, pos + 1)
            spots.append(str(_line_of(text, pos)))
        raise ToolError(
            f"old_string matches {count} times in {name} (lines {', '.join(spots)})",
            hint="add surrounding lines to old_string to make it unique, or set replace_all=true",
        )
    places, pos = [], text.find(old)
    while pos >= 0:
        places.append(pos)
        pos = text.find(old, pos + len(old)) if replace_all else -1
    return old, new, places
