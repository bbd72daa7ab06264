"""Where a hunk's lines are in a file, tried as Codex's apply_patch tries them: exactly, then
with trailing whitespace ignored, then leading and trailing whitespace, then with typographic
punctuation read as ASCII (dashes, curly quotes, odd spaces). Each looser reading is a fallback
only: it is tried over the whole search range after the stricter one found nothing there."""

from __future__ import annotations

from collections.abc import Callable

_ASCII = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),  # dashes, minus
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),  # curly single quotes
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),  # curly double quotes
        # non-breaking, en/em, thin, hair, narrow, ideographic… spaces
        **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a", " "),
        **dict.fromkeys("\u202f\u205f\u3000", " "),
    }
)


def ascii_punctuation(line: str) -> str:
    """The line stripped, its typographic punctuation and spaces read as their ASCII kin."""
    return line.strip().translate(_ASCII)


def _same(line: str) -> str:
    return line


READINGS: tuple[Callable[[str], str], ...] = (_same, str.rstrip, str.strip, ascii_punctuation)


def seek(lines: list[str], want: list[str], start: int, at_end: bool) -> int:
    """The index from `start` on where `want` matches `lines`, or -1; `at_end`: only where it
    ends the file. An empty `want` matches at `start` (at the end with `at_end`)."""
    if not want:
        return len(lines) if at_end else start
    last = len(lines) - len(want)
    spots = [last] if at_end else list(range(start, last + 1))
    spots = [i for i in spots if i >= start]
    if not spots:
        return -1
    lo, hi = spots[0], spots[-1] + len(want)  # the file lines any spot may read
    for read in READINGS:
        wanted = [read(w) for w in want]
        keyed = [read(line) for line in lines[lo:hi]]
        for i in spots:
            if keyed[i - lo : i - lo + len(want)] == wanted:
                return i
    return -1
