"""CSV and TSV files: the dialect sniffed from the first 64 KB, the header when there is one,
the row count, and rows as a Markdown table; offset/limit count data rows. The file is
streamed, never loaded whole: a line is read at most LINE_CAP characters at a time (a longer
one is cut there, the rest of it skipped, and the result says so), and rows are counted to the
end only up to COUNT_CAP bytes, past that the count is an estimate from the rows read."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from agent.base.record import ToolResult
from agent.base.words import plural
from agent.tools.files.documents.paging import BUDGET, Ask, finish, more, table
from agent.tools.shared import textio
from agent.tools.shared.common import ToolError

SAMPLE = 64 << 10  # bytes the dialect and header are sniffed from
COUNT_CAP = 20 << 20  # larger files: rows are not counted to the end
LINE_CAP = 1 << 20  # characters of one line kept; a cell of one is never shown past 200 anyway
DELIMITERS = ",;\t|"
csv.field_size_limit(LINE_CAP)  # a field spread over many lines stops there too (an error)


class Lines:
    """The file's lines for csv.reader, each at most LINE_CAP characters: the rest of a longer
    one is read past in steps and dropped, never held whole (a 500 MB line took 1 GB)."""

    def __init__(self, stream: TextIO, quote: str) -> None:
        self.stream, self.quote = stream, quote
        self.count = 0
        self.cut: list[int] = []  # the numbers of the lines cut

    def __iter__(self) -> Lines:
        return self

    def __next__(self) -> str:
        line = self.stream.readline(LINE_CAP)
        if not line:
            raise StopIteration
        self.count += 1
        if len(line) < LINE_CAP or line.endswith(("\n", "\r")):
            return line
        while True:  # the rest of this line
            rest = self.stream.readline(LINE_CAP)
            if not rest or rest.endswith(("\n", "\r")):
                break
        self.cut.append(self.count)
        if self.quote and line.count(self.quote) % 2:
            line += self.quote  # the cut fell inside a quoted field: close it there
        return line + "\n"


def _encoding(path: Path) -> tuple[str, str]:
    """(codec for open(), note for the model) from the file's first MB."""
    with open(path, "rb") as f:
        head = f.read(1 << 20)
    if textio.looks_binary(head[: textio.SNIFF_BYTES]) and not textio.sniff_bom(head):
        raise ToolError(
            f"{path.name} looks binary (NUL bytes in its first 8 KB), not like a CSV file",
            can_retry=False,
            hint="inspect it with bash (`file`, `xxd | head`)",
        )
    bom = textio.sniff_bom(head)
    if bom:
        return ("utf-8-sig" if bom[0] == "utf-8" else bom[0]), ""
    legacy = textio.legacy_file(head)
    return (legacy, f"encoding: {legacy} (not valid UTF-8; a guess)") if legacy else ("utf-8", "")


def _dialect(sample: str, tsv: bool) -> tuple[type[csv.Dialect] | csv.Dialect, bool]:
    """The dialect and whether the first row is a header."""
    try:
        dialect: type[csv.Dialect] | csv.Dialect = csv.Sniffer().sniff(sample, DELIMITERS)
    except csv.Error:
        dialect = csv.excel_tab if tsv else csv.excel
    try:
        header = csv.Sniffer().has_header(sample)
    except csv.Error:
        header = False
    return dialect, header or _names(next(csv.reader(io.StringIO(sample), dialect), []))


def _names(row: list[str]) -> bool:
    """A first row that reads as column names: distinct, none empty, none a number (the
    Sniffer's guess misses these when a column's values all have its name's length)."""
    if not row or len(set(row)) < len(row):
        return False
    for cell in row:
        try:
            float(cell)
        except ValueError:
            if not cell.strip():
                return False
        else:
            return False
    return True


def _name(delimiter: str) -> str:
    return {"\t": "tab", ",": "comma", ";": "semicolon", "|": "pipe"}.get(
        delimiter, repr(delimiter)
    )


def _take(rows: Iterator[list[str]], first: int, limit: int | None) -> tuple[list[list[str]], int]:
    """Data rows from `first` on that fit the budget; returns them and the rows read so far
    (the one that did not fit included: it was read, and counts)."""
    taken: list[list[str]] = []
    used, seen = 0, 0
    for row in rows:
        seen += 1
        if seen < first:
            continue
        used += sum(min(len(c), 200) + 3 for c in row) + 8
        if taken and used > BUDGET:
            return taken, seen
        taken.append([str(first + len(taken)), *row])
        if limit is not None and len(taken) >= limit:
            break
    return taken, seen


def _count(rows: Iterator[list[str]], seen: int, size: int, per_row: float) -> str:
    """The data rows, counted to the end for a file up to COUNT_CAP, estimated past that from
    the average size of the rows sniffed."""
    if size <= COUNT_CAP:
        return f"{seen + sum(1 for _ in rows):,}"
    guess = max(int(size / per_row), seen) if per_row else seen
    return f"about {guess:,} (an estimate: {size >> 20} MB; {seen:,} rows read)"


def _row_size(sample: str, dialect: type[csv.Dialect] | csv.Dialect) -> float:
    """Average characters per row in the sample (its last, likely cut, row left out)."""
    try:
        n = sum(1 for _ in csv.reader(io.StringIO(sample), dialect)) - 1
    except csv.Error:
        return 0.0
    return len(sample) / n if n > 0 else 0.0


def read(path: Path, ask: Ask) -> ToolResult:
    encoding, enc_note = _encoding(path)
    size = path.stat().st_size
    with open(path, encoding=encoding, errors="replace", newline="") as stream:
        sample = stream.read(SAMPLE)
        dialect, has_header = _dialect(sample, path.suffix.lower() == ".tsv")
        stream.seek(0)
        lines = Lines(stream, dialect.quotechar or "")
        rows = csv.reader(lines, dialect)
        try:
            header = next(rows, []) if has_header else []
            taken, seen = _take(rows, ask.offset, ask.limit)
            count = _count(rows, seen, size, _row_size(sample, dialect))
        except csv.Error as exc:
            raise ToolError(
                f"{ask.name}: row {rows.line_num} cannot be parsed as CSV ({exc})",
                can_retry=False,
                hint="read it as text with bash (`sed -n 'N,Mp' FILE`)",
            ) from None
    if not taken and not header:
        if ask.offset == 1:
            return ToolResult("[the file is empty]", display=f"read_file {ask.name} · empty")
        raise ToolError(f"offset {ask.offset} is past the last row of {ask.name}")
    width = max([len(header), *(len(r) - 1 for r in taken)])
    names = header + [f"col {i}" for i in range(len(header) + 1, width + 1)]
    delim = _name(dialect.delimiter)
    what = "a header row" if has_header else "no header row"
    head = f"[{path.suffix.lstrip('.').upper()}: {delim}-separated, {what}, {count} data rows"
    head += f", {plural(width, 'column')}]"
    body = head + "\n" + "\n".join(table(["#", *names], taken))
    notes = [enc_note] if enc_note else []
    if lines.cut:
        at = ", ".join(str(n) for n in lines.cut[:5]) + (", …" if len(lines.cut) > 5 else "")
        notes.append(
            f"{plural(len(lines.cut), 'line')} longer than {LINE_CAP:,} characters cut there "
            f"(line {at}): the rest of each is not read; see it with bash (`cut -c`, `head -c`)"
        )
    if taken:
        total = int(count.replace(",", "")) if count[0].isdigit() else None
        last = int(taken[-1][0])
        notes.append(more("rows", ask.offset, last, total, last + 1))
        if width > 40:
            notes.append(f"only the first 40 of {width} columns are shown")
    else:
        notes.append(f"offset {ask.offset} is past the last row ({count} data rows)")
    return finish(body, notes, f"read_file {ask.name} · {count} rows")
