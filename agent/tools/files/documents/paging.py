"""What the document readers share: the request, fitting blocks into one result, Markdown
tables, the notes on what is left, and a missing library's one line."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from agent.base.record import RESULT_CAP, ToolResult, cap
from agent.base.words import plural
from agent.tools.shared.common import ToolError

BUDGET = RESULT_CAP - 800  # characters of document text in one result; notes take the rest
CELL_CAP = 200  # characters of one table cell shown
MAX_COLUMNS = 40  # table columns shown


@dataclass(frozen=True)
class Ask:
    """One read of a document: how it is named, where to start (1-based, in the document's
    unit), how many units (None: as many as fit) and, for a workbook, which sheet."""

    name: str
    offset: int = 1
    limit: int | None = None
    sheet: str = ""


class AsText(Exception):
    """Show this file as plain text after all (a notebook that is not valid JSON), with a note."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


def fit(blocks: Iterable[str], budget: int = BUDGET, whole: str = "") -> tuple[list[str], bool]:
    """The leading blocks that fit in `budget` characters (at least one, capped: `whole` says
    how to see such a block whole), and whether the budget stopped it. Consumes `blocks`
    lazily: nothing past the budget is produced."""
    out: list[str] = []
    used = 0
    for block in blocks:
        if out and used + len(block) + 1 > budget:
            return out, True
        out.append(block if out else cap(block, budget, how_to_see_more=whole))
        used += len(out[-1]) + 1
    return out, False


def size_text(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1 << 20:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1 << 20):.1f} MB"


def cell_text(value: str) -> str:
    """One table cell: one line, pipes escaped, long text cut."""
    text = " ".join(value.split()) if ("\n" in value or "\r" in value) else value
    text = text.replace("|", "\\|")
    return text if len(text) <= CELL_CAP else f"{text[:CELL_CAP]}…"


def table(header: list[str], rows: Iterable[list[str]]) -> Iterable[str]:
    """A Markdown table, line by line (header and rule first), at most MAX_COLUMNS wide."""
    width = min(len(header), MAX_COLUMNS)
    yield "| " + " | ".join(cell_text(h) for h in header[:width]) + " |"
    yield "|" + "---|" * width
    for row in rows:
        cells = [*row[:width], *[""] * (width - len(row))]
        yield "| " + " | ".join(cell_text(c) for c in cells) + " |"


def more(unit: str, first: int, last: int, total: int | None, next_offset: int) -> str:
    """`showed rows 1-40 of 300; use offset=41 to read on` (nothing left: '')."""
    if total is not None and last >= total:
        return ""
    of = f" of {total:,}" if total is not None else ""
    return f"showed {unit} {first}-{last}{of}; use offset={next_offset} to read on"


def span(name: str, unit: str, first: int, last: int, whole: bool) -> str:
    """The terminal's one line: `read_file a.pdf · pages 2-5` (`· 12 pages` when whole)."""
    if whole:
        return f"read_file {name} · {plural(last - first + 1, unit)}"
    where = f"{unit} {first}" if first == last else f"{unit}s {first}-{last}"
    return f"read_file {name} · {where}"


def finish(body: str, notes: list[str], display: str) -> ToolResult:
    """The result: the body, then the notes in brackets, within the result cap."""
    text = body + ("\n\n" + "\n".join(f"[{n}]" for n in notes if n) if any(notes) else "")
    return ToolResult(cap(text, how_to_see_more="use offset/limit"), display=display)


def need(module: str, what: str) -> ToolError:
    """The one line a missing library gets."""
    return ToolError(
        f"reading {what} needs {module}, which is not installed: pip install {module} "
        "(in the environment agent runs in)",
        can_retry=False,
    )
