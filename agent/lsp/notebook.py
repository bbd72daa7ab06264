"""A Jupyter notebook as one Python document for a language server: its code cells joined in
order (magics and shell lines kept as comments, so the lines stay where they are), and the way
back from a line of it to its cell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SUFFIX = ".ipynb"


def code_of(path: Path) -> tuple[str, list[tuple[int, int]]] | None:
    """(the document, each code cell's (first line, cell number from 1)); None when the file
    is no notebook this can read."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        return None
    lines: list[str] = []
    starts: list[tuple[int, int]] = []
    for n, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        body = "".join(source) if isinstance(source, list) else str(source)
        starts.append((len(lines), n))
        lines += [f"#{ln}" if ln.lstrip().startswith(("%", "!")) else ln for ln in body.split("\n")]
    return "\n".join(lines) + "\n", starts


def placed(d: dict[str, Any], starts: list[tuple[int, int]]) -> dict[str, Any]:
    """A diagnostic of the joined document, with its cell and its line within that cell."""
    start = (d.get("range") or {}).get("start") or {}
    line = int(start.get("line", 0))
    first, cell = max(((f, c) for f, c in starts if f <= line), default=(0, 1))
    where = {"line": line - first, "character": int(start.get("character", 0))}
    return {**d, "cell": cell, "range": {"start": where, "end": where}}
