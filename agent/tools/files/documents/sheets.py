"""Excel workbooks (.xlsx/.xlsm, openpyxl in its streaming read-only mode): each sheet's
dimensions, then its first rows as a Markdown table of cell values, a formula shown beside its
computed value when the file holds both. `sheet` picks one sheet; offset/limit count rows.
Time and memory stay bounded on huge files: at most MAX_SCAN rows are read per call (the
result says how many were, and whether time ran out), and a workbook whose parts loaded whole
(every part but the worksheets streamed, whatever its name) are too big to load is refused
with what to do instead (agent.tools.files.documents.workbook), as is one locked with a password."""

from __future__ import annotations

import datetime as dt
import re
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.base.record import ToolResult
from agent.base.words import plural
from agent.tools.files.documents import workbook
from agent.tools.files.documents.paging import BUDGET, Ask, finish, more, need, table
from agent.tools.shared.common import ToolError

MAX_SCAN = 1_000_000  # rows read in one call, the skipped ones before `offset` included
MAX_SECONDS = 8.0  # and for no longer than this from the call's start (~10 s with the values)
MIN_SHEET_BUDGET = 1_500  # characters each sheet gets when all are shown
_DIMENSION = re.compile(rb'<(?:\w+:)?dimension\s+ref="([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?"')
_LOADING = threading.Lock()  # the stand-in is put in place while a workbook is opened


@dataclass
class Rows:
    """The rows of one sheet that fit: (row number, cell texts), and how the reading ended."""

    rows: list[tuple[int, list[Any]]] = field(default_factory=list)
    scanned: int = 0  # rows read from the file
    bounded: bool = False  # stopped by MAX_SCAN or MAX_SECONDS, not by the end or the budget
    timed_out: bool = False  # by MAX_SECONDS
    ended: bool = False  # the sheet's last row was read


def _head_size(ws: Any) -> None:
    """The sheet's size as its first 64 KB state it. Stands in for openpyxl's own look, which
    reads the whole sheet when the file states none (as streaming writers leave it): seconds
    per 100 MB, on opening the workbook, before a single row is wanted."""
    with ws._get_source() as src:
        m = _DIMENSION.search(src.read(1 << 16))
    if m:
        from openpyxl.utils import column_index_from_string  # deferred: loaded with openpyxl

        first, top, last, bottom = m.group(1, 2, 3, 4)
        ws._min_column, ws._min_row = column_index_from_string(first.decode()), int(top)
        ws._max_column = column_index_from_string((last or first).decode())
        ws._max_row = int(bottom or top)


def _load(path: Path, data_only: bool) -> Any:
    """The workbook in openpyxl's streaming read-only mode."""
    try:
        import openpyxl  # deferred: ~150 ms, only when a workbook is read
        from openpyxl.worksheet._read_only import ReadOnlyWorksheet
    except ImportError:
        raise need("openpyxl", "Excel workbooks") from None
    import contextlib
    from unittest import mock  # deferred: ~10 ms, only when a workbook is read

    # openpyxl's own method, private: another version without it keeps its own way
    private = hasattr(ReadOnlyWorksheet, "_get_size")
    quick = mock.patch.object(ReadOnlyWorksheet, "_get_size", _head_size)
    with _LOADING, quick if private else contextlib.nullcontext(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "extension not supported" and the like: not for us
        return openpyxl.load_workbook(path, read_only=True, data_only=data_only)


def _values(path: Path, sheet: str, first: int, last: int) -> dict[int, tuple[Any, ...]]:
    """The computed values the file stores for rows first..last of `sheet`."""
    book = _load(path, data_only=True)
    try:
        rows = book[sheet].iter_rows(min_row=first, max_row=last, values_only=True)
        return {first + i: row for i, row in enumerate(rows)}
    finally:
        book.close()


def text_of(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime) and value.time() == dt.time():
        return value.date().isoformat()
    if isinstance(value, (dt.date, dt.time, dt.datetime)):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    text = getattr(value, "text", None)  # an array formula
    return f"={text.lstrip('=')}" if isinstance(text, str) else str(value)


def _is_formula(value: Any) -> bool:
    return (isinstance(value, str) and value.startswith("=") and len(value) > 1) or isinstance(
        getattr(value, "text", None), str
    )


def _scan(ws: Any, first: int, limit: int | None, budget: int, started: float) -> Rows:
    """Rows from `first` on that fit in `budget` characters, wholly empty ones skipped."""
    got = Rows()
    used = 0
    for number, row in enumerate(ws.iter_rows(values_only=True), start=1):
        # bounded before a row is taken, so that a sheet whose last row was read has ended;
        # the first row is always read, however long the workbook took to open
        late = got.scanned and time.monotonic() - started > MAX_SECONDS
        if got.scanned >= MAX_SCAN or late:
            got.bounded, got.timed_out = True, bool(late)
            return got
        got.scanned += 1
        if number >= first and any(v is not None and v != "" for v in row):
            cells = list(row)
            while cells and cells[-1] in (None, ""):
                cells.pop()
            used += sum(len(text_of(v)) + 3 for v in cells) + 8
            if got.rows and used > budget:
                return got
            got.rows.append((number, cells))
            if limit is not None and number >= first + limit - 1:
                return got
        elif limit is not None and number >= first + limit - 1:
            return got
    got.ended = True
    return got


def _with_values(path: Path, sheet: str, got: Rows) -> list[list[str]]:
    """Cell texts; a formula beside the value the file computed for it, when it holds one."""
    formulas = any(_is_formula(v) for _, cells in got.rows for v in cells)
    values = _values(path, sheet, got.rows[0][0], got.rows[-1][0]) if formulas else {}
    out = []
    for number, cells in got.rows:
        computed = values.get(number, ())
        row = [str(number)]
        for i, v in enumerate(cells):
            value = computed[i] if i < len(computed) else None
            if _is_formula(v) and value is not None:
                row.append(f"{text_of(value)} ({text_of(v)})")
            else:
                row.append(text_of(v))
        out.append(row)
    return out


def _letters(n: int) -> str:
    s = ""
    while n:
        n, r = divmod(n - 1, 26)
        s = chr(65 + r) + s
    return s


def _dimension(ws: Any) -> tuple[str, int | None]:
    """The sheet's range as the file states it, and its last row (None: not stated)."""
    try:
        return ws.calculate_dimension(), ws.max_row
    except (ValueError, TypeError):
        return "size not recorded", None


def _sheet(
    path: Path, ws: Any, title: str, ask: Ask, budget: int, started: float
) -> tuple[str, list[str]]:
    """One sheet: its heading and table, and the notes on what is left of it."""
    if not hasattr(ws, "iter_rows"):
        return f"## {title} (a chart sheet: no cells)", []
    dims, total = _dimension(ws)
    ws.reset_dimensions()  # a stated size can be wrong: read what is there
    got = _scan(ws, ask.offset, ask.limit, budget, started)
    head = f"## {title} ({dims})"
    why = (
        f"the {MAX_SECONDS:.0f} s a call may take ran out"
        if got.timed_out
        else f"at most {MAX_SCAN:,} rows are read per call"
    )
    if not got.rows and got.bounded:
        return head, [
            f"{title}: stopped after reading {got.scanned:,} rows, before row {ask.offset} "
            f"({why}): export the sheet to CSV to read further"
        ]
    if not got.rows:
        where = "" if ask.offset == 1 else f" from row {ask.offset} on"
        return f"{head}\n[no cells with values{where}]", []
    rows = _with_values(path, title, got)
    width = max(len(r) for r in rows) - 1
    lines = table(["row", *(_letters(i) for i in range(1, width + 1))], rows)
    notes = []
    last = got.rows[-1][0]
    if got.bounded:
        notes.append(
            f"{title}: stopped after reading {got.scanned:,} rows ({why}); use "
            f"offset={got.scanned + 1} to read on"
        )
    elif not got.ended:
        stated = total if total is not None and total > last else None
        notes.append(more(f"{title} rows", got.rows[0][0], last, stated, last + 1))
    if width > 40:
        notes.append(f"{title}: columns past AN are not shown ({width} in these rows)")
    return head + "\n" + "\n".join(lines), notes


def read(path: Path, ask: Ask) -> ToolResult:
    started = time.monotonic()  # MAX_SECONDS holds for the whole call, all sheets together
    workbook.check(path, ask.name)
    book = _load(path, data_only=False)
    try:
        names = list(book.sheetnames)
        if ask.sheet and ask.sheet not in names:
            raise ToolError(
                f"{ask.name} has no sheet {ask.sheet!r}",
                hint="its sheets: " + ", ".join(repr(n) for n in names),
            )
        chosen = [ask.sheet] if ask.sheet else names
        each = max(BUDGET // max(len(chosen), 1), MIN_SHEET_BUDGET)
        parts, notes, left = [], [], BUDGET
        for title in chosen:
            if left < MIN_SHEET_BUDGET // 2:
                rest = chosen[chosen.index(title) :]
                notes.append(
                    "not shown: " + ", ".join(map(repr, rest)) + "; read one with sheet=NAME"
                )
                break
            text, more_notes = _sheet(path, book[title], title, ask, min(each, left), started)
            parts.append(text)
            notes += more_notes
            left -= len(text)
    finally:
        book.close()
    head = f"[Excel workbook: {plural(len(names), 'sheet')}: " + ", ".join(names) + "]"
    if len(chosen) > 1 and notes:
        notes.append("offset/limit apply to every sheet shown; sheet=NAME reads one")
    display = f"read_file {ask.name} · " + (ask.sheet or plural(len(names), "sheet"))
    return finish(head + "\n\n" + "\n\n".join(parts), notes, display)
