"""Markdown blocks for the REPL renderer: where finished blocks end, the visible tail of the
block being written, and unified diffs as rich Text."""

from __future__ import annotations

import re
from typing import Any

from agent.base.visible import visible

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def finished(text: str) -> int:
    """Length of the prefix of `text` made of finished blocks (blank line or closed fence)."""
    pos = cut = 0
    fence = ""
    for line in text.splitlines(keepends=True):
        if not line.endswith("\n"):
            break
        pos += len(line)
        m = _FENCE.match(line)
        if fence:
            mark = m.group(1) if m else ""
            if mark and line.strip() == mark and mark[0] == fence[0] and len(mark) >= len(fence):
                fence, cut = "", pos
        elif m:
            fence = m.group(1)
        elif not line.strip():
            cut = pos
    return cut


def tail(text: str, keep: int) -> str:
    """The last `keep` lines of a block being written, with its code fence reopened if cut:
    only what fits on the screen is rendered, however long the block grows."""
    lines = text.split("\n")
    if len(lines) <= keep:
        return text
    opener = ""
    for line in lines[:-keep]:
        m = _FENCE.match(line)
        if m and not opener:
            opener = line
        elif m and line.strip() == m.group(1) and m.group(1)[0] == opener.strip()[0]:
            opener = ""
    return "\n".join(([opener] if opener else []) + lines[-keep:])


def diff_text(diff: str) -> Any:
    """A unified diff as a rich Text: additions green, removals red, hunks cyan; the file
    lines in it made visible (agent.base.visible)."""
    from rich.text import Text

    out = Text()
    styles = {"+": "green", "-": "red", "@": "cyan"}
    for line in visible(diff).splitlines():
        head = line.startswith(("+++", "---", "diff --git", "index "))
        out.append(line + "\n", style="bold" if head else styles.get(line[:1], ""))
    out.rstrip()
    return out


PREVIEW_LINES = 4  # of a command's output shown under its line; Ctrl-O shows all of it
PREVIEW_WIDTH = 160  # characters of each of those lines


def output_preview(shown: str, failed: bool) -> Any:
    """The first lines of a command's output under its line, then — when it failed — the
    first lines of its stderr (red), each with how many more there are (Ctrl-O shows all)."""
    from rich.text import Text

    out_part, _, err_part = ("\n" + visible(shown)).partition("\n[stderr]\n")
    out_part = out_part[1:]
    out = Text()
    for part, style in ((out_part, "dim"), (err_part if failed else "", "red")):
        lines = part.splitlines()
        for line in lines[:PREVIEW_LINES]:
            cut = line if len(line) <= PREVIEW_WIDTH else line[: PREVIEW_WIDTH - 1] + "…"
            out.append(("    ⎿ " if not out else "      ") + cut + "\n", style)
        if len(lines) > PREVIEW_LINES:
            out.append(f"      … +{len(lines) - PREVIEW_LINES} lines (ctrl-o shows all)\n", "dim")
    out.rstrip()
    return out
