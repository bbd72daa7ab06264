"""Long tool outputs: kept whole in the session folder; the model gets the head and the tail,
the total size, and the path to page through with read_file (offset/limit) or grep.

Every tool result passes here (bash, web_fetch, MCP tools, subagent reports alike): the tools
themselves may return up to `SPILL_ROOM` characters when spilling is on
(ToolContext.result_room), so nothing is cut before the whole of it is saved.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent.base.record import RESULT_CAP, ToolResult, cap

SPILL_ROOM = 4_000_000  # characters a tool may return when long results are spilled
HEAD = 3_000  # characters of the start the model sees
TAIL = 1_500  # and of the end (a command's errors and exit status are there)
_MORE = "call it asking for less"
# (a short name for the file, the whole text) -> where it was saved; None: it could not be
Writer = Callable[[str, str], "Path | None"]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")[:40] or "tool"


def _head(text: str, room: int) -> str:
    """The first `room` characters, ending at a line break when one is near."""
    part = text[:room]
    nl = part.rfind("\n")
    return part[: nl + 1] if nl > room // 2 else part


def _tail(text: str, room: int) -> str:
    """The last `room` characters, starting after a line break when one is near."""
    part = text[-room:]
    nl = part.find("\n")
    return part[nl + 1 :] if 0 <= nl < room // 2 else part


def preview(text: str, where: Path, head: int = HEAD, tail: int = TAIL) -> str:
    """The head and tail of `text` with a note saying how much is left out and where it is."""
    start, end = _head(text, head), _tail(text, tail)
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    first = start.count("\n") + 1  # the first line not shown
    last = lines - end.count("\n") - (0 if end.endswith("\n") else 1)  # the last not shown
    hidden = len(text) - len(start) - len(end)
    span = f"lines {first:,}-{last:,}, " if last >= first else ""
    note = (
        f"[... {span}{hidden:,} characters not shown. The whole output ({len(text):,} "
        f"characters, {lines:,} lines) is saved in {where} — page through it with read_file "
        "(offset/limit count lines) or search it with grep ...]"
    )
    gap = "" if start.endswith("\n") else "\n"
    return f"{start}{gap}{note}\n{end}"


@dataclass
class Spill:
    """Saves results longer than `threshold` characters with `write`; see the module doc."""

    write: Writer
    threshold: int = RESULT_CAP

    def keep(self, tool: str, result: ToolResult) -> ToolResult:
        """`result` as the model should get it: whole when short, else saved and previewed."""
        text = result.output
        if len(text) <= self.threshold:
            return result
        where = self.write(_slug(tool), text)
        if where is None:  # the session folder cannot be written: cut it as before
            return capped(tool, result)
        head = min(HEAD, self.threshold * 2 // 3)
        tail = min(TAIL, self.threshold // 3)
        return ToolResult(preview(text, where, head, tail), result.is_error, result.display)


def capped(tool: str, result: ToolResult) -> ToolResult:
    """`result` cut to the result cap (a long one that could not be saved)."""
    if len(result.output) <= RESULT_CAP:
        return result
    more = f"{tool} gave more than fits in a result; {_MORE}"
    return ToolResult(cap(result.output, how_to_see_more=more), result.is_error, result.display)
