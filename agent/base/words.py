"""Words for people: counts ("1 line", "2 lines") and a help text's first line."""

from __future__ import annotations

IRREGULAR = {"match": "matches", "was": "were", "entry": "entries", "directory": "directories"}


def plural(n: int, word: str) -> str:
    """`n` and `word`, plural unless n is 1: plural(1, "line") → "1 line"."""
    return f"{n:,} {word if n == 1 else IRREGULAR.get(word, word + 's')}"


def first_line(text: str, width: int = 100) -> str:
    """A command's help in one line: its first sentence (docstrings wrap), cut to `width`."""
    para = " ".join(text.strip().split("\n\n", 1)[0].split())
    if ". " in para:
        para = para.split(". ", 1)[0] + "."
    return para if len(para) <= width else para[: width - 1].rsplit(" ", 1)[0] + "…"
