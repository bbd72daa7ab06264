"""read_file (here) plus write_file and edit_file (edits.py): the file tools the model sees."""

from __future__ import annotations

import asyncio
import codecs
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from agent.base.record import RESULT_CAP, Target, Tool, ToolContext, ToolResult, cap, error
from agent.base.words import plural
from agent.tools import agentignore, documents, images, textio, walk
from agent.tools.binkinds import ADVICE, BINARY_EXTENSIONS
from agent.tools.common import ToolError, did_you_mean, guard, int_arg, resolve, shown, str_arg
from agent.tools.documents.nbedit import NOTEBOOK_EDIT
from agent.tools.editor_io import buffer_text
from agent.tools.edits import EDIT_FILE, WRITE_FILE
from agent.tools.stamps import stamped, stamps_of

DEFAULT_LIMIT = 2000
MAX_LINE = 2000  # characters kept of one line
CHUNK = 1 << 20
COLLECT_CAP = 1 << 20  # raw bytes gathered for one page; the result cap is far smaller anyway
SIZE_CAP = 10 << 20  # above this a file is read only in part (no total line count)


@dataclass
class Page:
    """Raw lines of one read: the lines, where they start, and what is known about the rest."""

    lines: list[bytes] = field(default_factory=list)
    first: int = 1  # line number of lines[0]
    total: int | None = None  # None when the file was too big to count
    size: int = 0
    last_cut: bool = False  # the final line was not read to its end


_Read = tuple[list[str], Page, list[str]]  # decoded lines, where they sit, notes for the model


def _skip_lines(f: BinaryIO, data: bytes, count: int) -> tuple[bytes, int]:
    """Drop `count` lines from the stream starting with `data`; returns (rest, lines dropped)."""
    dropped = 0
    while True:
        newlines = data.count(b"\n")
        if dropped + newlines >= count:
            rest = data.split(b"\n", count - dropped)[-1]
            return rest, count
        dropped += newlines
        data = f.read(CHUNK)
        if not data:
            return b"", dropped


def _collect(f: BinaryIO, data: bytes, size: int, offset: int, limit: int) -> Page:
    """Lines offset..offset+limit-1 of a byte-oriented file, reading only what is needed."""
    data, dropped = _skip_lines(f, data, offset - 1)
    acc, eof = bytearray(data), False
    newlines = acc.count(b"\n")
    while newlines < limit and len(acc) < COLLECT_CAP:
        chunk = f.read(CHUNK)
        if not chunk:
            eof = True
            break
        acc += chunk
        newlines += chunk.count(b"\n")
    blob = bytes(acc)
    parts = blob.split(b"\n", limit)
    page = Page(lines=parts, first=dropped + 1)
    if len(parts) > limit:
        parts.pop()  # the unread rest
    elif parts[-1] == b"":
        parts.pop()  # nothing after the last newline
    else:
        page.last_cut = not eof  # stopped at COLLECT_CAP inside a line
    if size <= SIZE_CAP:
        total = dropped + blob.count(b"\n")
        while chunk := f.read(CHUNK):
            total += chunk.count(b"\n")
        f.seek(max(size - 1, 0))
        page.total = total + (1 if size and f.read(1) != b"\n" else 0)
    return page


def _sniff(path: Path, ctx: ToolContext) -> None:
    """Refuse what cannot be read as text: missing, devices, binary by name (a directory is
    listed before this)."""
    if not path.exists():
        if path.is_symlink():
            raise ToolError(f"{path} is a broken symbolic link", can_retry=False)
        raise ToolError(f"file not found: {path}", can_retry=True, hint=did_you_mean(path, ctx))
    if not stat.S_ISREG(path.stat().st_mode):
        raise ToolError(f"{path} is not a regular file (device, pipe or socket)", can_retry=False)
    kind = BINARY_EXTENSIONS.get(path.suffix.lower().lstrip("."))
    if kind:
        what = f"{path.name} is a binary file ({kind})"
        raise ToolError(what, can_retry=False, hint=ADVICE[kind])


def _cut(line: str) -> str:
    if len(line) <= MAX_LINE:
        return line
    return f"{line[:MAX_LINE]}… [line cut: {len(line)} characters]"


def _decode_page(page: Page, fmt_bom: tuple[str, bytes] | None) -> tuple[list[str], str, int]:
    """Decode the page's lines; returns (lines, encoding note, undecodable count)."""
    raw = b"\n".join(page.lines)
    if fmt_bom:
        encoding, bom = fmt_bom
        if page.first == 1 and raw.startswith(bom):
            raw = raw[len(bom) :]
            if page.size == len(bom):  # nothing but the BOM: an empty file
                page.lines, page.total = [], 0
        note = f"{encoding} with BOM"
        fallback = False
    else:
        encoding, note = textio.legacy_file(raw) or "utf-8", ""
        fallback = encoding != "utf-8"
    if page.last_cut:  # the read stopped inside a line, maybe inside a character: drop its start
        decoder = codecs.getincrementaldecoder(encoding)("replace")
        decoder.decode(raw, final=False)
        raw = raw[: len(raw) - len(decoder.getstate()[0])]
    text, _, bad = textio.decode(raw, textio.TextFormat(encoding, b"", "\n", fallback))
    if fallback:
        note = f"{encoding} (not valid UTF-8; decoded with a fallback guess)"
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    return (lines if page.lines else []), note, bad


def _read(path: Path, offset: int, limit: int, ctx: ToolContext) -> _Read:
    """Read one page of `path` as text lines; returns (lines, page, notes)."""
    _sniff(path, ctx)
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(textio.SNIFF_BYTES)
        bom = textio.sniff_bom(head)
        wide = bom[0] if bom and not bom[0].startswith("utf-8") else textio.sniff_utf16(head)
        if not wide and textio.looks_binary(head):
            raise ToolError(
                f"{path.name} looks binary (NUL bytes in its first 8 KB)",
                can_retry=False,
                hint="inspect it with bash (`file`, `xxd | head`, `strings`) instead",
            )
        if wide:
            f.seek(0)
            lines, page, notes = _read_wide(f, size, offset, limit, wide)
            page.size = size
            return lines, page, notes
        page = _collect(f, head, size, offset, limit)
    page.size = size
    lines, note, bad = _decode_page(page, bom)
    notes = [f"encoding: {note}"] if note else []
    if bad:
        notes.append(f"{bad} undecodable byte sequence(s) shown as U+FFFD")
    return lines, page, notes


def _read_wide(f: BinaryIO, size: int, offset: int, limit: int, encoding: str) -> _Read:
    """UTF-16/32 text (its newlines are not single bytes), decoded as a stream: lines past
    the 10 MB mark can be read too; the total is counted for files up to that size."""
    head = f.read(4)
    found = textio.sniff_bom(head)
    bom = found[1] if found else b""
    f.seek(len(bom))
    decoder = codecs.getincrementaldecoder(encoding)("replace")
    lines: list[str] = []
    seen, bad, rest, counting = 0, 0, "", size <= SIZE_CAP
    while chunk := f.read(CHUNK):
        text = rest + decoder.decode(chunk)
        bad += text.count("\ufffd") - rest.count("\ufffd")
        *done, rest = text.split("\n")
        for line in done:
            seen += 1
            if offset <= seen < offset + limit:
                lines.append(line.removesuffix("\r"))
        if seen >= offset + limit - 1 and not counting:
            break
    else:
        rest += decoder.decode(b"", final=True)
        if rest:
            seen += 1
            if offset <= seen < offset + limit:
                lines.append(rest.removesuffix("\r"))
    page = Page(first=offset, total=seen if counting else None)
    notes = [f"encoding: {encoding}" + (" with BOM" if bom else " (no BOM; detected)")]
    if bad:
        notes.append(f"{bad} undecodable sequence(s) shown as U+FFFD")
    return lines, page, notes


def _render(lines: list[str], page: Page, notes: list[str], size: int) -> tuple[str, int]:
    """`cat -n` style output that stops before the result cap, with notes on what is left."""
    budget = RESULT_CAP - 800
    out: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        partial = page.last_cut and i == len(lines) - 1 and len(line) > MAX_LINE
        text = (
            f"{line[:MAX_LINE]}… [line cut: over {len(line)} characters]" if partial else _cut(line)
        )
        row = f"{page.first + i:>6}\t{text}"
        if used + len(row) + 1 > budget and out:
            break
        out.append(row)
        used += len(row) + 1
    shown_to = page.first + len(out) - 1
    cut_short = page.last_cut and len(out) == len(lines)
    if cut_short:
        notes.append(
            f"line {shown_to} goes on beyond the {COLLECT_CAP >> 20} MB read; read_file cannot "
            "show more of one line: use bash (e.g. `head -c`, `cut -c`) for the rest"
        )
    total = page.total
    if total is None:
        notes.append(
            f"file is {size / (1 << 20):.1f} MB, over the {SIZE_CAP >> 20} MB cap: read in part, "
            "total line count unknown; use offset/limit to read further"
        )
    if out and (total is None or shown_to < total):
        left = f" of {total}" if total is not None else ""
        more = f"use offset={shown_to + 1} to read on"
        notes.append(f"showed lines {page.first}-{shown_to}{left}; {more}")
    body = "\n".join(out)
    if notes:
        body += "\n\n" + "\n".join(f"[{n}]" for n in notes)
    return cap(body, how_to_see_more="use offset/limit to read a smaller range"), len(out)


def _directory(path: Path, ctx: ToolContext) -> tuple[str, int]:
    """A directory read: its entries as a search sees them (ignore files honoured)."""
    hide = agentignore.for_search(Path(ctx.cwd), path)
    return agentignore.listing(walk.Walker(path, []).children(), hide, shown(ctx, path))


def _lines_of(text: str, offset: int, limit: int) -> _Read:
    """A page of an editor buffer, as _read gives one of a file."""
    every = text.split("\n")
    if every and every[-1] == "":
        every.pop()
    lines = [line.removesuffix("\r") for line in every[offset - 1 : offset - 1 + limit]]
    page = Page(first=offset, total=len(every), size=len(text.encode("utf-8", "replace")))
    return lines, page, ["read from the editor's buffer"] if text else []


@guard
async def _run(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    path = resolve(ctx, str_arg(args, "path"))
    offset = max(int_arg(args, "offset", 1) or 1, 1)
    given = int_arg(args, "limit", None, minimum=1)
    limit = given or DEFAULT_LIMIT
    name = shown(ctx, path)
    if await asyncio.to_thread(path.is_dir):  # its entries, one level (offset/limit unused)
        text, count = await asyncio.to_thread(_directory, path, ctx)
        return ToolResult(text, display=f"read_file {name} · {plural(count, 'entry')}")
    if path.suffix.lower() in images.TYPES and await asyncio.to_thread(path.is_file):
        return await asyncio.to_thread(images.read_image, path, ctx, name)
    stamps = stamps_of(ctx)
    before = await asyncio.to_thread(stamps.take, path) if stamps is not None else None
    doc: ToolResult | str = ""  # a document's text, or why it is read as plain text after all
    if documents.handles(path):  # notebooks, PDF, spreadsheets, CSV, Word: in their own units
        await asyncio.to_thread(_sniff, path, ctx)
        ask = documents.Ask(name, offset, given, str_arg(args, "sheet", required=False))
        doc = await asyncio.to_thread(documents.read, path, ask)
        if isinstance(doc, ToolResult):
            return stamped(ctx, path, before, doc)
    buffer = await buffer_text(path, ctx) if not doc else None
    if buffer is not None:  # the editor's text: unsaved changes included
        lines, page, notes = _lines_of(buffer, offset, limit)
    else:
        lines, page, notes = await asyncio.to_thread(_read, path, offset, limit, ctx)
    notes[:0] = [doc] if isinstance(doc, str) and doc else []
    if stamps is not None:
        stamps.saw(path, before)  # read: it may be edited now (agent.tools.stamps)
    size = page.size
    if not lines:
        if offset == 1 and (size == 0 or page.total == 0):  # or nothing but a BOM
            return ToolResult("[the file is empty]", display=f"read_file {name} · empty")
        known = f" ({page.total} lines)" if page.total is not None else ""
        return error(
            f"offset {offset} is past the end of {name}{known}",
            can_retry=True,
            hint="use a smaller offset",
        )
    text, count = _render(lines, page, notes, size)
    last = page.first + count - 1
    whole = page.first == 1 and page.total is not None and last >= page.total
    span = plural(count, "line") if whole else f"lines {page.first}-{last}"
    return ToolResult(text, display=f"read_file {name} · {span}")


READ_FILE = Tool(
    name="read_file",
    description=(
        f"Read a file: numbered lines (cat -n), up to {DEFAULT_LIMIT} from offset (1-based; limit "
        "for fewer or more). Long lines are cut; encodings detected. Images, PDF, notebooks, "
        "xlsx, csv and docx are read too (offset/limit count pages, cells, rows). A directory "
        "lists its entries."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "offset": {"type": "integer", "description": "First line to read (1-based)"},
            "limit": {"type": "integer", "description": "Number of lines to read"},
            "sheet": {"type": "string", "description": "xlsx sheet"},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    run=_run,
    read_only=True,
    kind="read",
    target=Target("file", "path"),
    aliases=("Read",),
)


TOOLS: tuple[Tool, ...] = (READ_FILE, WRITE_FILE, EDIT_FILE, NOTEBOOK_EDIT)
