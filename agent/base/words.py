"""Words for people: counts ("1 line", "2 lines"), a help text's first line, wrapping."""

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


def wrapped(text: str, width: int) -> str:
    """`text` wrapped between words to `width` columns, each line by itself (its indent kept
    on the lines it wraps into); a word longer than that (a URL, a path) is never split, so
    it can be copied whole."""
    import textwrap

    if width <= 0:
        return text
    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        out.append(
            textwrap.fill(
                line,
                width,
                subsequent_indent=indent,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)
