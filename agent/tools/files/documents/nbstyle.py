"""How a notebook file's JSON is written (indentation, escaping, separators, final newline),
found from the file itself so that an edit changes only the cells it edits."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Style:
    """How the file's JSON is written: indentation, escaping, separators, the final newline."""

    indent: str | None
    ascii: bool
    separators: tuple[str, str]
    newline_at_end: bool

    def dump(self, nb: Any) -> str:
        text = json.dumps(
            nb, indent=self.indent, ensure_ascii=self.ascii, separators=self.separators
        )
        return text + ("\n" if self.newline_at_end else "")


def json_style(text: str, nb: Any) -> tuple[Style, str]:
    """The writer settings that reproduce `text` from `nb`, or nbformat's own with a note."""
    lines = text.split("\n", 2)
    indent = None
    if len(lines) > 1 and lines[1][:1] in (" ", "\t"):
        indent = lines[1][: len(lines[1]) - len(lines[1].lstrip(" \t"))]
    end = text.endswith("\n")
    compact = (",", ":") if indent is None and '":"' in text else (",", ": ")
    seps = [compact] if indent is None else [(",", ": ")]
    if indent is None:
        seps.append((", ", ": "))
    for ascii_only in (False, True):
        for sep in seps:
            style = Style(indent, ascii_only, sep, end)
            if style.dump(nb) == text:
                return style, ""
    fallback = Style(indent if indent is not None else " ", False, (",", ": "), True)
    return fallback, "the file's JSON layout was not reproducible: rewritten as nbformat writes it"
