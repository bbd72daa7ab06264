"""Counting words for people: "1 line", "2 lines"."""

from __future__ import annotations

IRREGULAR = {"match": "matches", "was": "were", "entry": "entries", "directory": "directories"}


def plural(n: int, word: str) -> str:
    """`n` and `word`, plural unless n is 1: plural(1, "line") → "1 line"."""
    return f"{n:,} {word if n == 1 else IRREGULAR.get(word, word + 's')}"
